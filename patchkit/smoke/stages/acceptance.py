"""resume-acceptance: a request whose tokens were decoded during a disabled stretch must draft as
well afterwards as one decoded with speculation on. A disabled step that skips the draft model's
work leaves holes in the draft's KV cache; exact verification hides them from the outputs, so only
acceptance shows them (vLLM measured an EAGLE-3 draft losing nearly all acceptance that way).

Two arms of ``n`` greedy long requests, distinct prompts: *steady* decodes them alone (the batch
stays at or below T), *lived* beside ``T + 4`` fillers three times as long, started first: the long
requests start once the switch has gone OFF and decode inside the stretch. Then each long request is continued (its prompt plus its output, one request at
a time): the prefix comes from the radix cache, the draft's KV cache as the first phase left it,
and the continuation's acceptance is read from ``spec_verify_ct``. The stage fails when the lived
arm accepts ``TOLERANCE`` less than the steady arm. A draft that does not agree with the target
(steady acceptance below ``MEASURABLE``, e.g. random weights) cannot show a hole: the stage says
so instead of passing silently."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from ..run import StageFailed, generate, prompt_set

STAGE = "resume-acceptance"
#: the lived arm may accept this fraction less than the steady arm (steady-state noise of the
#: continuation's acceptance is a few percent; the holes' damage is a collapse)
TOLERANCE = 0.10
#: steady acceptance below which a hole cannot be told from disagreement
MEASURABLE = 1.5
FIRST_TOKENS = 96
CONTINUATION_TOKENS = 64


def accept(outs: list[dict]) -> tuple[int, int]:
    """(completion tokens, verify steps) summed over responses."""
    tok = sum(int((o.get("meta_info") or {}).get("completion_tokens", len(o.get("output_ids") or []))) for o in outs)
    ver = sum(int((o.get("meta_info") or {}).get("spec_verify_ct", 0)) for o in outs)
    return tok, ver


def _settled(ctx, timeout: float = 5.0):
    """The log report once its switch counts stop moving (the server logs a switch after the step
    that made it: a count read at once can still grow by the previous arm's last switch)."""
    rep = ctx.report()
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        time.sleep(0.5)
        nxt = ctx.report()
        if (nxt.switches_on, nxt.switches_off) == (rep.switches_on, rep.switches_off):
            return nxt
        rep = nxt
    return rep


def _arm(ctx, seed: int, n: int, fillers: int) -> dict:
    base = ctx.base
    longs = prompt_set(n, seed=seed)
    start = _settled(ctx)
    ons, offs = start.switches_on, start.switches_off
    with ThreadPoolExecutor(n + fillers) as ex:
        fill = [ex.submit(generate, base, p, 3 * FIRST_TOKENS, 300) for p in prompt_set(fillers, seed=seed + 1)]
        end = time.monotonic() + 60
        while fillers and ctx.report().switches_off <= offs and time.monotonic() < end:
            time.sleep(0.02)  # the long requests start inside the stretch
        outs = [f.result() for f in [ex.submit(generate, base, p, FIRST_TOKENS, 300) for p in longs]]
        for f in fill:
            f.result()
    time.sleep(0.3)
    conts = [generate(base, p + list(o.get("output_ids") or []), CONTINUATION_TOKENS, 300) for p, o in zip(longs, outs)]
    tok, ver = accept(conts)
    rep = ctx.report()
    return {"requests": n, "fillers": fillers, "tokens": tok, "verify_ct": ver,
            "accept_length": round(tok / ver, 3) if ver else None,
            "switches_off": rep.switches_off - offs, "switches_on": rep.switches_on - ons}


def resume_acceptance(ctx):
    cfg = ctx.cfg
    if not cfg.flag_on:
        return {"skipped": "skipped: the flag is off (no disabled stretch)"}
    n = max(1, min(4, cfg.threshold))
    steady = _arm(ctx, 95_000, n, 0)
    detail = {"steady": steady}
    if not steady["accept_length"]:
        raise StageFailed(STAGE, f"speculation did not run on the continuations (spec_verify_ct=0, {n} requests "
                                 f"at or below the threshold)")
    if steady["accept_length"] < MEASURABLE:
        detail["skipped"] = (f"not measurable: steady acceptance {steady['accept_length']} < {MEASURABLE} "
                             f"(the draft does not agree with the target; a hole would not show)")
        return detail
    lived = _arm(ctx, 96_000, n, cfg.threshold + 4)
    detail["lived"] = lived
    if lived["switches_off"] < 1:
        raise StageFailed(STAGE, f"{n} long requests beside {cfg.threshold + 4} fillers never switched speculation "
                                 f"off: no disabled stretch to live through")
    ratio = round((lived["accept_length"] or 0.0) / steady["accept_length"], 3)
    detail["ratio"] = ratio
    if ratio < 1.0 - TOLERANCE:
        raise StageFailed(STAGE, f"continuations of requests decoded during a disabled stretch accepted "
                                 f"{lived['accept_length']} tokens per step against {steady['accept_length']} "
                                 f"without one ({ratio:.2f}x): the draft model's KV cache has holes there")
    return detail
