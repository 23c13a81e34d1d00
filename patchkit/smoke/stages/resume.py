"""resume-equivalence: long greedy requests stay alive while short bursts push the batch over the
threshold and let it fall back, >= ``transitions`` OFF->ON switches; each long output is compared
token by token with a speculation-off server of the same release. Each divergence is judged at that
position on both servers: when both rank the two tokens within a bf16 near-tie of each other it is
explained, and the reference continues greedily from the patched prefix, so the rest of the request
is still compared (with realistic weights near-ties happen; one must not end the comparison). Any
other divergence fails the stage."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ..run import StageFailed, first_divergence, generate, prompt_set

STAGE = "resume-equivalence"


def _entries(x) -> list:
    """[[logprob, token_id, text], ...] -> [(logprob, token_id)]."""
    out = []
    for e in x or []:
        if isinstance(e, (list, tuple)) and len(e) >= 2 and e[0] is not None:
            out.append((float(e[0]), int(e[1])))
    return out


def position_logprobs(base: str, prefix: list[int], tokens: list[int], k: int = 20) -> dict:
    """At the position after ``prefix``: top-k log-probs and the log-probs of ``tokens``."""
    out = generate(base, prefix, 1, 300, return_logprob=True, top_logprobs_num=k, token_ids_logprob=list(tokens))
    meta = out.get("meta_info", {})
    tops = meta.get("output_top_logprobs") or [[]]
    ids = meta.get("output_token_ids_logprobs") or [[]]
    top = _entries(tops[0] if tops else [])
    by_id = {t: lp for lp, t in _entries(ids[0] if ids else [])}
    for lp, t in top:
        by_id.setdefault(t, lp)
    return {"top": top, "tokens": {t: by_id.get(t) for t in tokens}}


def judge(cfg, a: int, b: int, patched: dict, ref: dict) -> dict:
    """Is the divergence (patched token ``a``, reference token ``b``) a near-tie on both servers?"""
    detail = {"patched_token": a, "reference_token": b}
    explained = True
    for name, lp in (("patched", patched), ("reference", ref)):
        la, lb = lp["tokens"].get(a), lp["tokens"].get(b)
        top = lp["top"]
        spread = (top[0][0] - top[-1][0]) if len(top) >= 2 else None
        tie = min(cfg.near_tie, cfg.near_tie_rel * spread) if spread else cfg.near_tie
        margin = abs(la - lb) if la is not None and lb is not None else None
        top2 = round(top[0][0] - top[1][0], 6) if len(top) >= 2 else None
        detail[name] = {"margin_between_tokens": None if margin is None else round(margin, 6), "top2_margin": top2,
                        "tie_threshold": round(tie, 6)}
        if margin is None or margin > tie:
            explained = False
    detail["explained"] = explained
    return detail


#: the longest a long request may grow (the tiny model's context is 4096 tokens, prompts are short)
LONG_TOKENS_CAP = 3500


#: explained near-ties after which one request is no longer followed (recorded as such)
MAX_TIES = 8


def compare_request(out: list[int], ref: list[int], continue_ref, judge_at, max_ties: int = MAX_TIES):
    """Walk the patched tokens ``out`` against the reference's greedy tokens ``ref`` for the same prompt.
    ``judge_at(pos, a, b)`` judges a divergence (patched ``a``, reference ``b`` at ``pos``) and returns
    a verdict with ``explained``; after an explained one, ``continue_ref(pos)`` gives the reference's
    greedy tokens for positions ``pos..`` from the patched prefix ``out[:pos]``, and the walk goes on.
    Returns (verdicts, failure message or "", positions compared)."""
    verdicts: list[dict] = []
    base = 0
    while True:
        d = first_divergence(out[base:], ref)
        if d is None:
            return verdicts, "", len(out)
        pos = base + d
        if d >= min(len(out) - base, len(ref)):
            return verdicts, f"the reference returned {base + len(ref)} tokens", pos
        verdict = judge_at(pos, out[pos], ref[d])
        verdict.update(position=pos)
        verdicts.append(verdict)
        if not verdict["explained"]:
            return verdicts, (f"diverges at token {pos}: patched {out[pos]}, reference {ref[d]}, "
                              f"margins patched={verdict['patched']['margin_between_tokens']} "
                              f"reference={verdict['reference']['margin_between_tokens']} "
                              f"(tie threshold {verdict['reference']['tie_threshold']})"), pos
        base = pos + 1
        if base >= len(out):
            return verdicts, "", len(out)
        if len(verdicts) >= max_ties:
            return verdicts, "", base  # followed up to here; the record says so
        ref = continue_ref(base)


def next_length(length: int, lived: int, needed: int, cap: int = LONG_TOKENS_CAP) -> int:
    """Tokens for the next round's long requests: enough, at the rate this round showed, to live
    through ``needed`` transitions with two to spare; at least double when none were seen; never
    shorter, never above ``cap``."""
    want = length * 2 if lived <= 0 else -(-length * (needed + 2) // lived)
    return max(length, min(cap, want))


def resume_equivalence(ctx):
    cfg = ctx.cfg
    if cfg.reference is None:
        raise StageFailed(STAGE, "no speculation-off reference server (internal: the matrix starts one)")
    n_long = max(1, min(2, cfg.threshold))
    burst = cfg.threshold + 4
    long_prompts: list[list[int]] = []
    asked: list[int] = []  # tokens asked of each long request (rounds may grow them)
    results: list[dict] = []
    lived: list[int] = []
    lock = threading.Lock()
    t0 = time.monotonic()
    rounds = 0
    length = cfg.long_tokens
    with ThreadPoolExecutor(n_long + burst) as ex:
        while rounds < 4:
            rounds += 1
            prompts = [prompt_set(1, seed=9000 + rounds * 10 + k)[0] for k in range(n_long)]
            start_on = ctx.report().switches_on
            lived_before = len(lived)
            done = threading.Event()
            finished = [0]

            def long_req(p):
                out = generate(ctx.base, p, length, 1800)
                with lock:
                    finished[0] += 1
                    lived.append(ctx.report().switches_on - start_on)
                    if finished[0] == n_long:
                        done.set()
                return out

            futs = [ex.submit(long_req, p) for p in prompts]
            time.sleep(0.2)
            cycles = 0
            while not done.is_set() and cfg.flag_on:
                ons = ctx.report().switches_on
                shorts = [ex.submit(generate, ctx.base, prompt_set(1, seed=20_000 + rounds * 1000 + cycles * 10 + k)[0],
                                    8, 300) for k in range(burst)]
                for f in shorts:
                    f.result()
                cycles += 1
                end = time.monotonic() + 5.0  # let the batch fall back under T: wait for the ON line
                while time.monotonic() < end and ctx.report().switches_on <= ons and not done.is_set():
                    time.sleep(0.02)
                time.sleep(0.05)
                if ctx.report().switches_on - start_on >= cfg.transitions + 2:
                    break
            if not cfg.flag_on:  # batch-shape variation only: one burst beside the long requests
                shorts = [ex.submit(generate, ctx.base, prompt_set(1, seed=30_000 + k)[0], 64, 300) for k in range(burst)]
                for f in shorts:
                    f.result()
            for p, f in zip(prompts, futs):
                long_prompts.append(p)
                asked.append(length)
                results.append(f.result())
            if not cfg.flag_on or (lived and max(lived) >= cfg.transitions):
                break
            # a fast server finishes the long requests before enough bursts: make them longer
            length = next_length(length, max(lived[lived_before:], default=0), cfg.transitions, LONG_TOKENS_CAP)
    transitions = max(lived) if lived else 0
    if cfg.flag_on and transitions < cfg.transitions:
        raise StageFailed(STAGE, f"the long requests lived through at most {transitions} OFF->ON transitions "
                                 f"(needed {cfg.transitions}) in {rounds} rounds")
    ref_outputs = [cfg.reference.greedy(p, n) for p, n in zip(long_prompts, asked)]
    divergences, failures, compared = [], [], []
    for i, (p, n, r, ref) in enumerate(zip(long_prompts, asked, results, ref_outputs)):
        out = r.get("output_ids") or []
        if len(out) != n:
            failures.append(f"request {i}: asked {n} tokens, got {len(out)}")
            continue

        def judge_at(pos, a, b, p=p, out=out):
            prefix = list(p) + out[:pos]
            return judge(cfg, a, b, position_logprobs(ctx.base, prefix, [a, b]),
                         position_logprobs(cfg.reference.base, prefix, [a, b]))

        def continue_ref(pos, p=p, out=out, n=n):
            return cfg.reference.greedy(list(p) + out[:pos], n - pos)

        verdicts, failure, upto = compare_request(out, ref, continue_ref, judge_at)
        compared.append(upto)
        for v in verdicts:
            v.update(request=i)
        divergences.extend(verdicts)
        if failure:
            failures.append(f"request {i} {failure}")
    if failures:
        raise StageFailed(STAGE, "; ".join(failures[:3]))
    return {"requests": len(results), "tokens_each": cfg.long_tokens, "tokens_last_round": length, "transitions_lived": transitions,
            "rounds": rounds, "identical": sum(1 for i in range(len(results)) if not any(v["request"] == i for v in divergences)),
            "explained_divergences": divergences, "tokens_compared": compared,
            "seconds": round(time.monotonic() - t0, 1)}
