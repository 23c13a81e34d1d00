"""request-kinds: each kind of request alone (speculation on) and inside a burst above the threshold
(flag on: the disabled path), checked for what that kind promises."""
from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor

from ..run import StageFailed, generate, prompt_set

STAGE = "request-kinds"
REGEX = r"[0-9]{3}-[0-9]{4}"
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"]}


def _logprobs(ctx, ids, n):
    r = generate(ctx.base, ids, n, 300, return_logprob=True, top_logprobs_num=2)
    meta = r.get("meta_info", {})
    toks = meta.get("output_token_logprobs") or []
    tops = meta.get("output_top_logprobs") or []
    out = r.get("output_ids") or []
    if len(out) != n or len(toks) != n or len(tops) != n:
        return f"logprobs: {len(out)} tokens, {len(toks)} token log-probs, {len(tops)} top-2 lists (asked {n})"
    for i, (tok, lp, top) in enumerate(zip(out, toks, tops)):
        if lp[1] != tok:
            return f"logprobs: position {i} reports token {lp[1]}, the output has {tok}"
        if len(top) != 2 or top[0][0] < top[1][0] or lp[0] > top[0][0] + 1e-3:
            return f"logprobs: position {i}: top-2 {top} inconsistent with the token's log-prob {lp[0]}"
    return None


def _sampling(ctx, ids, n):
    r = generate(ctx.base, ids, n, 300, 0.8, sampling={"top_p": 0.9, "top_k": 20, "min_p": 0.05})
    got = len(r.get("output_ids") or [])
    return None if got == n else f"top-p/top-k/min-p: {got} tokens (asked {n})"


def _stop(ctx, ids, n):
    ref = generate(ctx.base, ids, n, 300).get("output_ids") or []
    if len(ref) < 8:
        return f"stop: the greedy run returned {len(ref)} tokens"
    stop = ref[len(ref) // 2]
    r = generate(ctx.base, ids, n, 300, sampling={"stop_token_ids": [stop], "ignore_eos": False})
    out = r.get("output_ids") or []
    if stop in out[:-1]:
        return f"stop: token {stop} appears at {out.index(stop)} and decoding went on to {len(out)} tokens"
    return None


def _n2(ctx, ids, n):
    r = generate(ctx.base, ids, n, 300, 0.8, sampling={"n": 2})
    outs = r if isinstance(r, list) else [r]
    lens = [len(x.get("output_ids") or []) for x in outs]
    return None if lens == [n, n] else f"n=2: got {len(outs)} outputs of {lens} tokens (asked 2 x {n})"


def _regex(ctx, ids, n):
    r = generate(ctx.base, ids, n, 300, sampling={"regex": REGEX})
    text = r.get("text", "")
    return None if re.fullmatch(REGEX, text or "") else f"regex: {text!r} does not match {REGEX}"


def _json(ctx, ids, n):
    r = generate(ctx.base, ids, n, 300, sampling={"json_schema": json.dumps(SCHEMA)})
    try:
        doc = json.loads(r.get("text", ""))
        ok = isinstance(doc, dict) and isinstance(doc.get("name"), str) and isinstance(doc.get("age"), int)
    except ValueError:
        ok = False
    return None if ok else f"json-schema: {r.get('text', '')!r} does not satisfy the schema"


KINDS = {"logprobs": _logprobs, "sampling": _sampling, "stop": _stop, "n>1": _n2, "regex": _regex,
         "json-schema": _json}


def request_kinds(ctx):
    cfg = ctx.cfg
    kinds = dict(KINDS)
    skipped = {}
    if cfg.grammar_skip:
        for k in ("regex", "json-schema"):
            kinds.pop(k)
            skipped[k] = cfg.grammar_skip
    skipped["stop strings"] = "skipped: text stop strings need a tokenizer; stop_token_ids tested"
    failures, done = [], {}
    burst = cfg.threshold + 4
    for i, (name, fn) in enumerate(kinds.items()):
        ids = prompt_set(1, seed=4000 + i)[0]
        why = fn(ctx, ids, 24)  # alone: below the threshold
        if why:
            failures.append(f"{name} alone: {why}")
            continue
        before = ctx.report().switches_off
        with ThreadPoolExecutor(burst + 1) as ex:
            fill = [ex.submit(generate, ctx.base, prompt_set(1, seed=4500 + i * 50 + k)[0], 96, 300) for k in range(burst)]
            import time
            time.sleep(0.05)
            fut = ex.submit(fn, ctx, ids, 48)
            why = fut.result()
            for f in fill:
                f.result()
        if why:
            failures.append(f"{name} above the threshold: {why}")
        disabled = ctx.report().switches_off > before
        if cfg.flag_on and not disabled and not why:
            failures.append(f"{name}: the burst never took the disabled path")
        done[name] = {"alone": "ok", "above_threshold": "ok" if not why else "failed", "took_disabled_path": disabled}
    if failures:
        raise StageFailed(STAGE, "; ".join(failures[:3]))
    return {"kinds": done, "skipped": skipped}
