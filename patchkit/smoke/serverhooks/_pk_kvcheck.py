"""Check every speculative decode step against the KV slots the scheduler allocated for it.

SGLang's spec-v2 scheduler sizes each decode step's KV reserve *before* the worker runs
(``prepare_for_decode``: ``kv_allocated_len = max(cur, kv_committed_len + 2 x get_alloc_len_per_decode())``),
from the server arguments as they are then. A step whose worker then writes more draft or verify
tokens than that reserve covers writes KV through ``req_to_token`` entries past the allocation
(stale slots, or the padding slot): the request reads back what it wrote, so outputs rarely change
and no stage sees it (the ``shrinking-reserve`` mutant survived every stage on an H200). This hook
wraps ``Scheduler.run_batch``: after each decode step of a worker of the spec-v2 family
(``EAGLEWorkerV2`` in its MRO), each request must have

    kv_allocated_len - kv_committed_len >= W - 1

where W = max(steps x topk, draft tokens) is what the worker's *current* state writes (the patch
swaps states at the start of the step, so after ``run_batch`` returns the worker holds the state
that step ran). ``-1``: 0.5.12 pre-claims the step's first slot in ``kv_committed_len``. Upstream's
double reserve keeps the real margin at ``2 x alloc - 1`` or more, so a correct patch never comes
near the bound. A violation prints one line with ``ERROR`` in it (the smoke log scan fails the cell
on it); the first decode step it checks prints ``patchkit-kv-check: armed``. Anything it cannot
read (another release's names) disables it with one line, never the server."""
from __future__ import annotations

import sys
from typing import Any, Optional

TARGET = "sglang.srt.managers.scheduler"
ENV = "PATCHKIT_SMOKE_KV_CHECK"
PREFIX = "patchkit-kv-check"
#: the worker family whose allocation rule the bound above describes
FAMILY = "EAGLEWorkerV2"
#: violations printed one by one; after that one summary line per 100
SHOWN = 5


def enabled(env) -> bool:
    return (env.get(ENV) or "").strip().lower() in ("1", "true", "yes", "on")


def writes_per_step(worker: Any) -> Optional[int]:
    """KV slots per request one step of ``worker``'s current state writes (None: not readable)."""
    steps = getattr(worker, "speculative_num_steps", None)
    tokens = getattr(worker, "speculative_num_draft_tokens", None)
    if steps is None or tokens is None:
        return None
    topk = getattr(worker, "topk", None) or getattr(worker, "speculative_eagle_topk", None) or 1
    return max(int(steps) * int(topk), int(tokens))


def kv_lens(req: Any) -> tuple[Optional[int], Optional[int]]:
    """(kv_allocated_len, kv_committed_len) of a request (0.5.16 keeps them on ``req.kv``)."""
    out = []
    for name in ("kv_allocated_len", "kv_committed_len"):
        v = getattr(req, name, None)
        if v is None:
            v = getattr(getattr(req, "kv", None), name, None)
        out.append(None if v is None else int(v))
    return out[0], out[1]


def violations(reqs, writes: int) -> list[tuple[str, int, int]]:
    """(request id, allocated, committed) of each request whose reserve is short of ``writes``."""
    bad = []
    for r in reqs:
        allocated, committed = kv_lens(r)
        if allocated is not None and committed is not None and allocated - committed < writes - 1:
            bad.append((str(getattr(r, "rid", "?")), allocated, committed))
    return bad


def spec_worker(scheduler: Any) -> Optional[Any]:
    for name in ("draft_worker", "model_worker"):
        w = getattr(scheduler, name, None)
        if w is not None and any(c.__name__ == FAMILY for c in type(w).__mro__):
            return w
    return None


class Checker:
    def __init__(self, out=None):
        self.out = out or sys.stderr
        self.armed = self.broken = False
        self.steps = self.count = 0

    def say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def after_step(self, scheduler: Any, batch: Any) -> None:
        mode = getattr(batch, "forward_mode", None)
        if mode is None or not mode.is_decode():
            return
        worker = spec_worker(scheduler)
        writes = None if worker is None else writes_per_step(worker)
        if writes is None:
            return
        if not self.armed:
            self.armed = True
            self.say(f"{PREFIX}: armed on Scheduler.run_batch (worker {type(worker).__name__})")
        self.steps += 1
        for rid, allocated, committed in violations(getattr(batch, "reqs", None) or [], writes):
            self.count += 1
            if self.count <= SHOWN or self.count % 100 == 0:
                self.say(f"{PREFIX} ERROR: decode step {self.steps} request {rid} writes {writes} KV slot(s) per "
                         f"step but only {allocated - committed + 1} are allocated (kv_allocated_len {allocated}, "
                         f"kv_committed_len {committed}); violations so far: {self.count}")

    def guarded(self, scheduler: Any, batch: Any) -> None:
        if self.broken:
            return
        try:
            self.after_step(scheduler, batch)
        except Exception as exc:  # another release's names: the check goes away, the server stays
            self.broken = True
            self.say(f"{PREFIX}: disabled ({type(exc).__name__}: {exc})")


def wrap(run_batch, checker: Checker):
    def run_batch_checked(self, batch, *args, **kwargs):
        out = run_batch(self, batch, *args, **kwargs)
        checker.guarded(self, batch)
        return out
    run_batch_checked.__wrapped__ = run_batch  # type: ignore[attr-defined]
    return run_batch_checked


def install(module: Any) -> None:
    """Called once ``TARGET`` is imported."""
    cls = getattr(module, "Scheduler", None)
    if cls is None or not callable(getattr(cls, "run_batch", None)):
        print(f"{PREFIX}: disabled (no Scheduler.run_batch in {TARGET})", file=sys.stderr, flush=True)
        return
    cls.run_batch = wrap(cls.run_batch, Checker())
