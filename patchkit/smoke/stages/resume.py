"""resume-equivalence: long greedy requests stay alive while short bursts push the batch over the
threshold and let it fall back, >= ``transitions`` OFF->ON switches. Then every patched token is
checked against a speculation-off server of the same release, and so is every token of one request
submitted once a burst has switched speculation off (its prompt is admitted above the threshold,
where a patch may skip draft-model work for it), teacher-forced: one prefill of the
prompt plus the whole patched output on the reference gives, at every position, the reference's own
log-probs there. A token within a bf16 near-tie of the reference's best is explained; any other token
fails the stage (with the patched server's own view of that position for the report). Greedy outputs
of a model with realistic weights tie often in bf16, so comparing only up to the first divergence
would leave most of a request unchecked; scoring every position does not."""
from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ..run import StageFailed, generate, prompt_set

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
        tie = tie_threshold(cfg, top)
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


#: a divergence within this many steps of the log-prob lattice is a near-tie (see ``tie_threshold``).
#: Measured: the llama3-70b shape at tp 2 (0.5.16, two H200s, dummy weights) put the first token of
#: a prompt alone and batched 3, 3 and 4 steps of 1/32 apart; 6 leaves room above the largest seen.
LATTICE_STEPS = 6


def lattice_step(top: list) -> float:
    """The smallest positive gap between the top-k log-probs at a position. SGLang's logits are bf16
    cast to fp32, so log-probs of one position differ by whole bf16 ulps of the logits' magnitude
    (1/32 for logits in [4, 8)): a model whose logits are large (a full-size shape) has a coarse
    lattice, and batch shapes that reduce in another order move a logit by a few of its steps. fp32
    logits give no lattice and a negligible step."""
    vals = sorted({round(lp, 9) for lp, _ in top}, reverse=True)
    gaps = [a - b for a, b in zip(vals, vals[1:]) if a - b > 1e-7]
    # evidence of a lattice: exact repeats (bf16 logits repeat, fp32 ones do not) or three gaps
    if not gaps or (len(vals) == len(top) and len(gaps) < 3):
        return 0.0
    step = min(gaps)
    # a lattice only when every gap is a whole number of steps (fp32 logits are not)
    return step if all(abs(g / step - round(g / step)) < 1e-3 for g in gaps) else 0.0


def tie_threshold(cfg, top: list) -> float:
    """A bf16 near-tie at this position: min(near_tie, near_tie_rel x (top-1 minus top-k log-prob)),
    but never below ``LATTICE_STEPS`` steps of the position's log-prob lattice (a few ulps of the
    logits themselves, which no fixed threshold covers at every logit magnitude)."""
    spread = (top[0][0] - top[-1][0]) if len(top) >= 2 else None
    base = min(cfg.near_tie, cfg.near_tie_rel * spread) if spread else cfg.near_tie
    return max(base, LATTICE_STEPS * lattice_step(top))


def reference_scores(base: str, prompt: list[int], out: list[int], k: int = 20) -> list[dict]:
    """The reference's view of each patched token, teacher-forced in one prefill of ``prompt + out``:
    per position the top-k log-probs and the patched token's own (SGLang returns input log-probs from
    ``logprob_start_len``, the first one None)."""
    ids = list(prompt) + list(out)
    start = len(prompt) - 1
    meta = generate(base, ids, 1, 900, return_logprob=True, logprob_start_len=start,
                    top_logprobs_num=k).get("meta_info", {})
    toks = meta.get("input_token_logprobs") or []
    tops = meta.get("input_top_logprobs") or []
    if len(toks) != len(ids) - start or len(tops) != len(toks):
        raise StageFailed(STAGE, f"the reference returned {len(toks)} input log-probs for {len(ids) - start} "
                                 f"positions (internal: logprob_start_len={start})")
    scores = []
    for j, tok in enumerate(out, start=1):
        entry = toks[j]
        if not entry or entry[0] is None or int(entry[1]) != tok:
            raise StageFailed(STAGE, f"the reference's input log-prob {j} is for token "
                                     f"{entry[1] if entry else None}, not the patched token {tok} (internal)")
        scores.append({"token": tok, "logprob": float(entry[0]), "top": _entries(tops[j])})
    return scores


def score_positions(cfg, scores: list[dict]) -> tuple[list[dict], list[dict]]:
    """(near-ties, failures): each position whose patched token is not the reference's best, with the
    margin below the best and the tie threshold there; a failure when the margin is above it."""
    ties, bad = [], []
    for pos, sc in enumerate(scores):
        top = sc["top"]
        if not top or top[0][1] == sc["token"]:
            continue
        margin = max(0.0, top[0][0] - sc["logprob"])
        tie = tie_threshold(cfg, top)
        row = {"position": pos, "patched_token": sc["token"], "reference_token": top[0][1],
               "margin": round(margin, 6), "tie_threshold": round(tie, 6)}
        (ties if margin <= tie else bad).append(row)
    return ties, bad


def next_length(length: int, lived: int, needed: int, cap: int = LONG_TOKENS_CAP) -> int:
    """Tokens for the next round's long requests: enough, at the rate this round showed, to live
    through ``needed`` transitions with two to spare; at least double when none were seen; never
    shorter, never above ``cap``."""
    want = length * 2 if lived <= 0 else -(-length * (needed + 2) // lived)
    return max(length, min(cap, want))


#: tokens of each short request in a burst that also admits a request while speculation is off
#: (long enough that the OFF line is seen, and the request admitted, before the burst ends)
LATE_BURST_TOKENS = 96
#: tokens asked of such a request (it outlives the burst, so it also lives through the resume)
LATE_TOKENS = 64


def _takes_counted_path(ctx) -> bool:
    """Whether the spec says a prompt admitted while off takes the patch's disabled path on this
    server (its ready-line field matches), so that its counter must grow (``patterns.admitted_off``)."""
    spec = ctx.spec.patterns.admitted_off
    if not spec:
        return False
    value = ctx.report().fields.get(spec[1], "")
    return bool(re.search(spec[2], value))


def _judge(pending: list, admitted: list, tail, give_up: bool = False) -> None:
    """Count the late request in flight (``pending``: the patch's counter at its submission, its
    future) once a switch line shows the counter grown: it took the patch's disabled path. With
    ``give_up``, forget one that finished without that (the next cycle tries again)."""
    if pending and tail.admitted_off > pending[0]:
        admitted[0] += 1
        pending.clear()
    elif give_up and pending and pending[1].done():
        pending.clear()


def resume_equivalence(ctx):
    cfg = ctx.cfg
    if cfg.reference is None:
        raise StageFailed(STAGE, "no speculation-off reference server (internal: the matrix starts one)")
    # with the flag on, one request admitted while speculation is off (its prefill runs above T)
    # must still let the batch fall back to T once the burst ends: the long requests leave it room
    n_long = max(1, min(2, cfg.threshold - 1 if cfg.flag_on else cfg.threshold))
    burst = cfg.threshold + 4
    want_late = 1 if cfg.flag_on and cfg.threshold >= n_long + 1 else 0
    counted = want_late > 0 and _takes_counted_path(ctx)
    long_prompts: list[list[int]] = []
    asked: list[int] = []  # tokens asked of each scored request (rounds may grow them)
    kinds: list[str] = []  # "long", or "admitted-off" (submitted while the switch was OFF)
    results: list = []
    lived: list[int] = []
    late: list[tuple[list[int], object]] = []
    admitted = [0]  # late requests proven admitted while off (the patch's counter grew, where it has one)
    pending: list = []  # [the counter before the late request in flight, its future] until it is judged
    lock = threading.Lock()
    t0 = time.monotonic()
    rounds = 0
    length = cfg.long_tokens
    with ThreadPoolExecutor(n_long + burst + 2) as ex:
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
                tail = ctx.switch_tail()
                ons, offs = tail.on, tail.off
                _judge(pending, admitted, tail, give_up=True)
                admit = admitted[0] < want_late and not pending
                if admit:
                    # one batched request: the scheduler admits the whole burst in one prefill, before
                    # the decode step that switches speculation off, so only the late request below
                    # can be admitted while off (and move the patch's counter)
                    batch = [prompt_set(1, seed=20_000 + rounds * 1000 + cycles * 10 + k)[0] for k in range(burst)]
                    shorts = [ex.submit(generate, ctx.base, batch, LATE_BURST_TOKENS, 300)]
                    # once the burst has switched speculation off, admit one more request
                    end = time.monotonic() + 5.0
                    while time.monotonic() < end and ctx.switch_tail().off <= offs and not all(f.done() for f in shorts):
                        time.sleep(0.005)
                    tail = ctx.switch_tail()
                    if tail.disabled and not all(f.done() for f in shorts):
                        p = prompt_set(1, seed=40_000 + rounds * 100 + cycles)[0]
                        fut = ex.submit(generate, ctx.base, p, LATE_TOKENS, 1800)
                        late.append((p, fut))
                        if counted:
                            pending[:] = [max(tail.admitted_off, 0), fut]
                        else:
                            admitted[0] += 1
                else:
                    shorts = [ex.submit(generate, ctx.base, prompt_set(1, seed=20_000 + rounds * 1000 + cycles * 10 + k)[0],
                                        8, 300) for k in range(burst)]
                for f in shorts:
                    f.result()
                cycles += 1
                end = time.monotonic() + 5.0  # let the batch fall back under T: wait for the ON line
                while time.monotonic() < end and ctx.switch_tail().on <= ons and not done.is_set():
                    time.sleep(0.02)
                time.sleep(0.05)
                _judge(pending, admitted, ctx.switch_tail())
                if ctx.report().switches_on - start_on >= cfg.transitions + 2 and admitted[0] >= want_late:
                    break
            if not cfg.flag_on:  # batch-shape variation only: one burst beside the long requests
                shorts = [ex.submit(generate, ctx.base, prompt_set(1, seed=30_000 + k)[0], 64, 300) for k in range(burst)]
                for f in shorts:
                    f.result()
            for p, f in zip(prompts, futs):
                long_prompts.append(p)
                asked.append(length)
                kinds.append("long")
                results.append(f.result())
            if not cfg.flag_on or (lived and max(lived) >= cfg.transitions and admitted[0] >= want_late):
                break
            # a fast server finishes the long requests before enough bursts: make them longer
            length = next_length(length, max(lived[lived_before:], default=0), cfg.transitions, LONG_TOKENS_CAP)
    _judge(pending, admitted, ctx.switch_tail())  # by a switch line logged after the loops ended
    for p, f in late:
        long_prompts.append(p)
        asked.append(LATE_TOKENS)
        kinds.append("admitted-off")
        results.append(f.result())
    transitions = max(lived) if lived else 0
    if cfg.flag_on and transitions < cfg.transitions:
        raise StageFailed(STAGE, f"the long requests lived through at most {transitions} OFF->ON transitions "
                                 f"(needed {cfg.transitions}) in {rounds} rounds")
    if admitted[0] < want_late:
        why = (f"none of the {len(late)} submitted while off took the patch's disabled path (its counter "
               f"{ctx.spec.patterns.admitted_off[0]!r} did not grow)" if counted and late else
               f"no burst of {burst} x {LATE_BURST_TOKENS} tokens was still running once its OFF line was logged")
        raise StageFailed(STAGE, f"no request was admitted while speculation was off in {rounds} rounds: {why}")
    ties, failures, identical = [], [], 0
    for i, (p, n, r, kind) in enumerate(zip(long_prompts, asked, results, kinds)):
        name = f"request {i}" + (" (admitted while off)" if kind != "long" else "")
        out = r.get("output_ids") or []
        if len(out) != n:
            failures.append(f"{name}: asked {n} tokens, got {len(out)}")
            continue
        explained, bad = score_positions(cfg, reference_scores(cfg.reference.base, p, out))
        identical += not explained and not bad  # every token the reference's own best: no second generation
        ties.extend(dict(row, request=i) for row in explained)
        if bad:
            row = bad[0]
            pos, a, b = row["position"], row["patched_token"], row["reference_token"]
            verdict = judge(cfg, a, b, position_logprobs(ctx.base, list(p) + out[:pos], [a, b]),
                            position_logprobs(cfg.reference.base, list(p) + out[:pos], [a, b]))
            failures.append(f"{name} diverges at token {pos} ({len(bad)} of {n} tokens off the reference's "
                            f"greedy path): patched {a}, reference {b}, margins patched="
                            f"{verdict['patched']['margin_between_tokens']} reference="
                            f"{verdict['reference']['margin_between_tokens']} (tie threshold {row['tie_threshold']})")
    if failures:
        raise StageFailed(STAGE, "; ".join(failures[:3]))
    return {"requests": len(results), "tokens_each": cfg.long_tokens, "tokens_last_round": length, "transitions_lived": transitions,
            "admitted_while_off": admitted[0], "submitted_while_off": len(late), "off_path_counted": counted,
            "rounds": rounds, "identical": identical, "tokens_scored": sum(asked),
            "explained_near_ties": len(ties), "near_ties": ties[:20],
            "seconds": round(time.monotonic() - t0, 1)}
