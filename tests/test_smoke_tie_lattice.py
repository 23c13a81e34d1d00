"""The near-tie threshold follows the bf16 lattice of a position's log-probs: a full-size shape's
large logits are a few coarse ulps apart after a change of batch shape, which a fixed 0.05 called a
wrong token (llama3-70b shape, tp 2, 0.5.16 on two H200s: 3 steps of 1/32)."""
from __future__ import annotations

import math
import random
import struct

from hypothesis import given, settings, strategies as st

from patchkit.smoke.stages.resume import LATTICE_STEPS, judge, lattice_step, tie_threshold


def _cfg():
    return type("Cfg", (), {"near_tie": 0.05, "near_tie_rel": 0.25})()


def _bf16(x: float) -> float:
    """Round to bfloat16 (nearest even), as a float."""
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", u))[0]


def _logits(seed: int, mean: float, sd: float, bf16: bool = True, n: int = 4096) -> list:
    r = random.Random(seed)
    xs = [mean + sd * r.gauss(0, 1) for _ in range(n)]
    return [_bf16(x) for x in xs] if bf16 else xs


def _logprobs(logits: list) -> list:
    m = max(logits)
    lse = m + math.log(sum(math.exp(x - m) for x in logits))
    return [x - lse for x in logits]


def _top(logits: list, k: int = 20) -> list:
    lp = _logprobs(logits)
    order = sorted(range(len(lp)), key=lambda i: -lp[i])[:k]
    return [(lp[i], i) for i in order]


def _ulp(x: float) -> float:
    return 2.0 ** (math.floor(math.log2(abs(x))) - 7)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.sampled_from([4.5, 6.0, 9.0, 12.0, 20.0]))
def test_the_lattice_step_is_the_logits_bf16_ulp(seed, scale):
    logits = _logits(seed, scale, 0.3)
    top = _top(logits)
    top_logit = max(logits)
    step = lattice_step(top)
    # the gaps are whole ulps of the binade the top-k live in (or of a lower one they straddle)
    assert step > 0 and step <= _ulp(top_logit) + 1e-6
    assert tie_threshold(_cfg(), top) >= LATTICE_STEPS * step - 1e-9


def test_a_few_ulps_at_large_logits_is_a_tie_and_a_far_token_is_not():
    logits = _logits(7, 5.0, 0.4)
    top = _top(logits, 20)
    lp = {t: v for v, t in top}
    best = top[0][1]
    step = lattice_step(top)
    assert step == 1 / 32
    near = next(t for v, t in top[1:] if 2 * step <= top[0][0] - v <= 3 * step)
    far = _logprobs(logits)
    far_tok = sorted(range(len(far)), key=lambda i: far[i])[len(far) // 2]  # a median token: far below
    views = {"top": top, "tokens": {best: lp[best], near: lp[near], far_tok: far[far_tok]}}
    assert judge(_cfg(), near, best, views, views)["explained"]
    assert not judge(_cfg(), far_tok, best, views, views)["explained"]
    # just past the lattice allowance is a wrong token, not a tie
    past = next(i for i, v in enumerate(far) if (LATTICE_STEPS + 1) * step <= max(far) - v <= (LATTICE_STEPS + 3) * step)
    views["tokens"][past] = far[past]
    assert not judge(_cfg(), past, best, views, views)["explained"]


def test_fp32_logits_have_no_lattice_and_keep_the_fixed_threshold():
    top = _top(_logits(3, 0.0, 3.0, bf16=False))
    assert lattice_step(top) == 0.0
    spread = top[0][0] - top[-1][0]
    assert tie_threshold(_cfg(), top) == min(0.05, 0.25 * spread)
