"""forced-acceptance: a second server of the same cell with acceptance forced
(``SGLANG_SIMULATE_ACC_LEN``, where the release has it) and SGLang's checkers on. Drafts are accepted
at full depth, so after every OFF->ON switch a single request must show accepted drafts again:
a switch that forgets to restore the full state leaves acceptance at 1. Outputs are not compared."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from ..run import StageFailed, generate, prompt_set

STAGE = "forced-acceptance"
MIN_ACCEPT = 1.5


def forced_acceptance(ctx):
    """Runs on the cell's forced-acceptance server (its env carries ``forced_env``)."""
    cfg = ctx.cfg
    base = ctx.base
    rounds = 3 if cfg.flag_on else 1
    burst = cfg.threshold + 4
    before = ctx.report()
    accept: list[float] = []
    for i in range(rounds):
        if cfg.flag_on:
            with ThreadPoolExecutor(burst) as ex:
                futs = [ex.submit(generate, base, prompt_set(1, seed=80_000 + i * 100 + k)[0], 32, 300)
                        for k in range(burst)]
                for f in futs:
                    f.result()
            time.sleep(0.3)
        one = generate(base, prompt_set(1, seed=81_000 + i)[0], 32, 300)
        accept.append(float(one.get("meta_info", {}).get("spec_accept_length") or 0.0))
    after = ctx.report()
    switched = after.switches_on - before.switches_on
    if cfg.flag_on and switched < rounds:
        raise StageFailed(STAGE, f"{rounds} bursts but {switched} OFF->ON switches under forced acceptance")
    low = [round(a, 2) for a in accept if a < MIN_ACCEPT]
    if low:
        raise StageFailed(STAGE, f"after OFF->ON switches single requests accepted {low} tokens per step "
                                 f"(forced {cfg.forced_env}); speculation did not resume at full depth")
    return {"env": cfg.forced_env, "accept_length_after_switches": [round(a, 2) for a in accept]}
