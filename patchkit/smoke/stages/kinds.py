"""request-kinds: each kind of request alone (speculation on) and inside a burst above the threshold
(flag on: the disabled path), checked for what that kind promises."""
from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor

from ..run import StageFailed, generate, prompt_set
from ..textcaps import option_value, text_skips
from ..tinytok import byte_decoder

STAGE = "request-kinds"
REGEX = r"[0-9]{3}-[0-9]{4}"
REGEX_PREFIX = r"[0-9]{0,3}|[0-9]{3}-[0-9]{0,4}"
#: a schema whose compact documents are short: a random-weight model finishes one in a few tokens
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}, "n": {"enum": [1, 22, 333]}},
          "required": ["ok", "n"], "additionalProperties": False}
DOCS = [json.dumps({"ok": b, "n": v}, separators=(",", ":")) for b in (True, False) for v in (1, 22, 333)]


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


TEXT_TOKENS = 48


def pick_stop(text: str) -> str:
    """A two-character printable piece of ``text`` whose first occurrence lies in its later two
    thirds (so decoding must run a while before it stops); "" when there is none."""
    for lo in (max(1, len(text) // 3), 1):
        for i in range(lo, len(text) - 1):
            piece = text[i:i + 2]
            if piece.isprintable() and piece.isascii() and piece.strip() == piece and text.find(piece) == i \
                    and "\ufffd" not in text[i - 1:i + 3]:
                return piece
    return ""


def _stop_text(ctx, ids, n):
    # the greedy reference of this server, taken alone (below the threshold) on the first call
    refs = ctx.__dict__.setdefault("_text_refs", {})
    if tuple(ids) not in refs:
        refs[tuple(ids)] = generate(ctx.base, ids, TEXT_TOKENS, 300)
    ref = refs[tuple(ids)]
    ref_ids, ref_text = ref.get("output_ids") or [], ref.get("text") or ""
    stop = pick_stop(ref_text)
    if not stop:
        return f"stop strings: no printable two-character piece in the greedy text {ref_text[:60]!r}"
    r = generate(ctx.base, ids, TEXT_TOKENS, 300, sampling={"stop": [stop], "ignore_eos": False})
    out, text = r.get("output_ids") or [], r.get("text") or ""
    fin = (r.get("meta_info") or {}).get("finish_reason") or {}
    if stop in text:
        return f"stop strings: {stop!r} is in the returned text {text[:80]!r}"
    if fin.get("type") == "stop" and fin.get("matched") != stop:
        return f"stop strings: finished on {fin.get('matched')!r}, asked to stop on {stop!r}"
    if ref_ids[:len(out)] != out:
        # batched bf16 may take another path than the reference: then only the text is checked
        return None if fin.get("type") in ("stop", "length") else f"stop strings: finish reason {fin}"
    want = ref_text[:ref_text.index(stop)]
    if fin.get("type") != "stop" or text.replace("\ufffd", "") != want.replace("\ufffd", ""):
        return (f"stop strings: the output follows the greedy reference but ended as {fin} with "
                f"{text[-30:]!r}, expected a stop on {stop!r} after {want[-30:]!r}")
    decode = byte_decoder(ctx.cfg.model_path)
    if decode:
        k = next((j for j in range(1, len(ref_ids) + 1) if stop in decode(ref_ids[:j])), len(ref_ids))
        slack = int(option_value(ctx.cfg.server_args, "--speculative-num-draft-tokens") or 1) - 1
        if len(out) > k + slack:
            return (f"stop strings: {stop!r} was complete after {k} tokens, decoding went on to "
                    f"{len(out)} (more than one verify step of {slack + 1} tokens)")
    return None


def _n2(ctx, ids, n):
    r = generate(ctx.base, ids, n, 300, 0.8, sampling={"n": 2})
    outs = r if isinstance(r, list) else [r]
    lens = [len(x.get("output_ids") or []) for x in outs]
    return None if lens == [n, n] else f"n=2: got {len(outs)} outputs of {lens} tokens (asked 2 x {n})"


def _finished(r) -> bool:
    return ((r.get("meta_info") or {}).get("finish_reason") or {}).get("type") not in (None, "length")


def _regex(ctx, ids, n):
    r = generate(ctx.base, ids, n, 300, sampling={"regex": REGEX, "ignore_eos": False})
    text = r.get("text") or ""
    if _finished(r):
        return None if re.fullmatch(REGEX, text) else f"regex: {text!r} does not match {REGEX}"
    return None if re.fullmatch(REGEX_PREFIX, text) else f"regex: {text!r} (cut at {n} tokens) is no prefix of {REGEX}"


def _json(ctx, ids, n):
    r = generate(ctx.base, ids, n, 300, sampling={"json_schema": json.dumps(SCHEMA), "ignore_eos": False})
    text = r.get("text") or ""
    if not _finished(r):
        return f"json-schema: {text!r} not finished in {n} tokens (a compact document has at most {len(max(DOCS, key=len))} characters)"
    try:
        doc = json.loads(text)
    except ValueError:
        return f"json-schema: {text!r} is not JSON"
    ok = isinstance(doc, dict) and set(doc) == {"ok", "n"} and isinstance(doc["ok"], bool) and doc["n"] in (1, 22, 333)
    return None if ok else f"json-schema: {text!r} does not satisfy the schema"


KINDS = {"logprobs": _logprobs, "sampling": _sampling, "stop": _stop, "stop strings": _stop_text, "n>1": _n2,
         "regex": _regex, "json-schema": _json}


def request_kinds(ctx):
    cfg = ctx.cfg
    skipped = text_skips(list(cfg.server_args), cfg.grammar_skip)
    kinds = {k: fn for k, fn in KINDS.items() if k not in skipped}
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
