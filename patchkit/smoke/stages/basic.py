"""Start-up, first decode, threshold crossings, sampled decode, batched-vs-alone equivalence and the
log scan (the sign-off 1.x stages, now for the flag on and off)."""
from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor

from ..run import StageFailed, first_divergence, generate, prompt_set, wait_ready


def ready(ctx):
    t = wait_ready(ctx, ctx.server, "ready")
    ctx.timings["time_to_ready_s"] = round(t, 2)
    return f"ready in {t:.1f}s"


def refusal(ctx):
    """The cell combines the flag with something the patch cannot support: the server must exit at
    start-up with the spec's refusal line, before serving."""
    why = ctx.cfg.expect_refusal
    srv = ctx.server
    deadline = time.monotonic() + ctx.cfg.timeout
    while time.monotonic() < deadline and srv.alive():
        rep = ctx.report()
        if rep.exception and not rep.refused:
            raise StageFailed("refusal", f"expected a refusal ({why}); the server failed instead: {rep.exception}",
                              rep.location)
        if rep.refused:
            break
        try:
            from ..server import http_json
            http_json(f"{srv.base_url}/get_model_info", timeout=2)
            raise StageFailed("refusal", f"expected a start-up refusal ({why}); the server started and serves")
        except StageFailed:
            raise
        except Exception:
            pass
        time.sleep(0.5)
    for _ in range(40):  # the refusal line may come just before the exit
        if not srv.alive():
            break
        time.sleep(0.25)
    rep = ctx.report()
    if not rep.refused:
        raise StageFailed("refusal", f"expected a refusal line ({why}); "
                                     f"{'the server exited without one' if not srv.alive() else 'none within the timeout'}",
                          rep.location)
    return {"refused": rep.refused, "expected": why}


def first_decode(ctx):
    t0 = time.monotonic()
    out = generate(ctx.base, [1, 100, 200], ctx.cfg.new_tokens, ctx.cfg.first_request_timeout)
    ctx.timings["first_request_latency_s"] = round(time.monotonic() - t0, 3)
    ids = out.get("output_ids") or []
    meta = out.get("meta_info", {})
    if len(ids) != ctx.cfg.new_tokens:
        raise StageFailed("first-decode", f"expected {ctx.cfg.new_tokens} tokens, got {len(ids)}")
    verify = meta.get("spec_verify_ct", 0)
    if not verify:
        raise StageFailed("first-decode", f"speculation did not run (spec_verify_ct={verify}) below the threshold")
    return {"tokens": len(ids), "spec_verify_ct": verify, "spec_accept_length": meta.get("spec_accept_length"),
            "latency_s": ctx.timings["first_request_latency_s"]}


def burst_size(cfg) -> int:
    return max(cfg.threshold * 2 + 2, cfg.threshold + 6)


def crossings(ctx):
    """Flag on: >= ``crossings`` switches each way, every request complete. Flag off: the same load
    and not one switch line."""
    cfg = ctx.cfg
    rng = random.Random(7)
    burst = burst_size(cfg)
    rounds = cfg.crossings if cfg.flag_on else min(cfg.crossings, 3)
    before = ctx.report()
    singles_spec = 0
    with ThreadPoolExecutor(burst) as ex:
        for i in range(rounds):
            lens = [rng.choice((24, 40, 64, 96)) for _ in range(burst)]
            futs = [ex.submit(generate, ctx.base, prompt_set(1, seed=i * 100 + k)[0], n, 300) for k, n in enumerate(lens)]
            for f, n in zip(futs, lens):
                got = len(f.result().get("output_ids") or [])
                if got != n:
                    raise StageFailed("threshold-crossings", f"burst {i}: asked {n} tokens, got {got}")
            one = generate(ctx.base, prompt_set(1, seed=10_000 + i)[0], rng.choice((16, 32)), 300)
            if one.get("meta_info", {}).get("spec_accept_length", 0) and \
                    one["meta_info"].get("spec_verify_ct", 0) < len(one.get("output_ids") or []):
                singles_spec += 1  # fewer verify steps than tokens: drafts were accepted
    time.sleep(1.0)
    after = ctx.report()
    off = after.switches_off - before.switches_off
    on = after.switches_on - before.switches_on
    if cfg.flag_on and (off < cfg.crossings or on < cfg.crossings):
        raise StageFailed("threshold-crossings",
                          f"expected >= {cfg.crossings} switches each way, the log shows OFF={off} ON={on}")
    if not cfg.flag_on and (off or on):
        raise StageFailed("threshold-crossings", f"the flag is not set, yet the log shows OFF={off} ON={on} switches")
    return {"bursts": rounds, "burst_size": burst, "switches_off": off, "switches_on": on,
            "singles_with_accepted_drafts": singles_spec}


def sampled(ctx):
    """Temperature sampling on both paths: the verify kernels for sampling differ from the greedy
    ones (on 0.5.12 the disabled path once handed them int32 tokens and the server died)."""
    burst = ctx.cfg.threshold + 4
    before = ctx.report().switches_off
    with ThreadPoolExecutor(burst) as ex:
        futs = [ex.submit(generate, ctx.base, prompt_set(1, seed=700 + k)[0], 48, 300, 1.0) for k in range(burst)]
        got = [len(f.result().get("output_ids") or []) for f in futs]
    one = generate(ctx.base, prompt_set(1, seed=799)[0], 16, 300, 1.0)
    if any(g != 48 for g in got) or len(one.get("output_ids") or []) != 16:
        raise StageFailed("sampled-decode", f"sampled requests returned {got} and {len(one.get('output_ids') or [])} tokens "
                                            f"(asked 48 each, then 16)")
    if ctx.cfg.flag_on and ctx.report().switches_off <= before:
        raise StageFailed("sampled-decode", "the sampled burst never took the disabled path")
    return {"burst": burst, "temperature": 1.0, "tokens": sum(got) + 16}


def greedy_equivalence(ctx):
    """The patched server alone vs batched above the threshold: the first token must agree (later
    divergences are bf16 near-ties between batch shapes; resume-equivalence judges those)."""
    prompts = prompt_set(6)
    n = 32
    alone = [generate(ctx.base, p, n, 300).get("output_ids") for p in prompts]
    filler = [prompt_set(1, seed=500 + k)[0] for k in range(ctx.cfg.threshold + 4)]
    before = ctx.report().switches_off
    with ThreadPoolExecutor(len(prompts) + len(filler)) as ex:
        futs = [ex.submit(generate, ctx.base, p, n, 300) for p in prompts]
        fill = [ex.submit(generate, ctx.base, p, n + 64, 300) for p in filler]
        batched = [f.result().get("output_ids") for f in futs]
        for f in fill:
            f.result()
    if ctx.cfg.flag_on and ctx.report().switches_off <= before:
        raise StageFailed("greedy-equivalence", "the batched run never took the disabled path")
    divergences = []
    for i, (a, b) in enumerate(zip(alone, batched)):
        d = first_divergence(a or [], b or [])
        if d is not None:
            divergences.append({"prompt": i, "first_divergent_position": d})
    for x in divergences:
        if x["first_divergent_position"] != 0 or not alone[x["prompt"]] or not batched[x["prompt"]]:
            continue
        # the first token of the two paths differs: only a near-tie at that position explains it
        from .resume import judge, position_logprobs
        a, b = batched[x["prompt"]][0], alone[x["prompt"]][0]
        lp = position_logprobs(ctx.base, prompts[x["prompt"]], [a, b])
        x.update(judge(ctx.cfg, a, b, lp, lp))
        if not x["explained"]:
            raise StageFailed("greedy-equivalence", f"first token differs between the speculative and disabled paths "
                                                    f"(not a near-tie): {divergences}")
    return {"prompts": len(prompts), "identical": len(prompts) - len(divergences), "divergences": divergences,
            "note": "later divergences are bf16 near-ties between batch shapes" if divergences else "",
            "_outputs": alone}


def log_scan(ctx):
    rep = ctx.report()
    if ctx.cfg.flag_on and not rep.ready:
        raise StageFailed("log-scan", f"the patch never logged its ready line ({ctx.spec.patterns.ready}): "
                                      f"feature not active?")
    if not ctx.cfg.flag_on and (rep.ready or rep.switches_on or rep.switches_off):
        raise StageFailed("log-scan", "the flag is not set, yet the patch logged its ready or switch lines")
    if rep.errors:
        raise StageFailed("log-scan", f"{len(rep.errors)} error line(s) in the server log, first: {rep.errors[0]}",
                          rep.location)
    detail = {"errors": 0, "switch_lines": rep.switches_off + rep.switches_on}
    if rep.decode_attention:
        detail["decode_attention"] = rep.decode_attention
    if rep.kv_check:
        detail["kv_check"] = rep.kv_check[:200]
    for k, v in rep.fields.items():
        detail.setdefault(k, v)
    return detail
