"""The smoke servers' KV-allocation check (patchkit/smoke/serverhooks/_pk_kvcheck.py).

On an H200 the ``shrinking-reserve`` mutant (the sizing fields follow the zero state, so the step
that resumes drafting is allocated for one token) passed every smoke stage: the request reads back
what it wrote past its allocation. Here the check runs against 0.5.12's allocation rule
(``eagle_info_v2.prepare_for_decode``: ``nxt = max(cur, committed + 2 x alloc)``, then the
pre-claim ``committed += 1``) with the patch's own runtime deciding the switches, for the correct
sizing and for the mutant's; and end to end through the hook folder on a stand-in scheduler module."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from patchkit.smoke import logscan
from patchkit.smoke.server import HOOK_DIR, KV_CHECK_ENV, server_env

sys.path.insert(0, str(HOOK_DIR))
import _pk_kvcheck as kv  # noqa: E402
sys.path.remove(str(HOOK_DIR))

FULL = (3, 4)   # steps, draft tokens (topk 1)
ZERO = (0, 1)   # the zero state


class EAGLEWorkerV2:  # the family the check knows, by class name
    def __init__(self):
        self.speculative_num_steps, self.speculative_num_draft_tokens = FULL
        self.topk = 1


class Mode:
    def __init__(self, decode=True):
        self.decode = decode

    def is_decode(self):
        return self.decode


def alloc_len(steps: int, tokens: int) -> int:
    """0.5.12's get_alloc_len_per_decode for topk 1."""
    return max((steps or 1) * 1, tokens)


def simulate(batch_sizes, threshold: int, sizing_follows_state: bool, hysteresis: int = 1) -> kv.Checker:
    """One long request (rid 'long') lives through every step; ``bs - 1`` short ones join each step.
    Per step, as SGLang 0.5.12 runs it: the scheduler allocates from the sizing fields as they are,
    then the worker decides its state (the patch's Switch), then the check runs."""
    from patches.dynamic_spec_disable.runtime import Switch
    worker, switch = EAGLEWorkerV2(), Switch(threshold, hysteresis)
    sizing = FULL
    sched = SimpleNamespace(draft_worker=worker)
    long = SimpleNamespace(rid="long", kv_allocated_len=100, kv_committed_len=100)
    out = io.StringIO()
    checker = kv.Checker(out)
    for bs in batch_sizes:
        reqs = [long] + [SimpleNamespace(rid=f"s{i}", kv_allocated_len=10, kv_committed_len=10) for i in range(bs - 1)]
        alloc = alloc_len(*sizing)
        for r in reqs:  # prepare_for_decode
            r.kv_allocated_len = max(r.kv_allocated_len, r.kv_committed_len + 2 * alloc)
            r.kv_committed_len += 1
        due = switch.observe(bs)  # the worker's step starts: the patch swaps states here
        if due is not None:
            worker.speculative_num_steps, worker.speculative_num_draft_tokens = ZERO if due else FULL
            if sizing_follows_state:
                sizing = ZERO if due else FULL
        checker.guarded(sched, SimpleNamespace(forward_mode=Mode(), reqs=reqs))
        # the step commits what it accepted (the pre-claimed slot is already counted)
        accepted = 0 if switch.disabled else worker.speculative_num_draft_tokens - 1
        long.kv_committed_len += accepted
    checker.text = out.getvalue()  # type: ignore[attr-defined]
    return checker


def test_the_shrinking_reserve_mutant_is_caught_and_the_patch_is_not():
    # ten steps above the threshold (the zero state), then the long request alone again (resume)
    sizes = [1] * 3 + [8] * 10 + [1] * 3
    good = simulate(sizes, threshold=4, sizing_follows_state=False)
    assert good.armed and good.count == 0, good.text
    bad = simulate(sizes, threshold=4, sizing_follows_state=True)
    assert bad.count >= 1, bad.text
    first = next(ln for ln in bad.text.splitlines() if "ERROR" in ln)
    assert "request long writes 4 KV slot(s) per step but only 2 are allocated" in first
    # the smoke log scan fails the cell on that line
    assert logscan.scan(bad.text).errors and not logscan.scan(good.text).errors


def test_a_short_stay_below_the_double_reserve_is_not_a_violation_either_way():
    # fewer zero-state steps than the full state's reserve covers: the old allocation still holds
    sizes = [1] * 3 + [8] * 3 + [1] * 3
    assert simulate(sizes, 4, sizing_follows_state=True).count == 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=60), st.integers(1, 8), st.integers(1, 4))
def test_the_patch_sizing_never_violates_the_bound(sizes, threshold, hysteresis):
    assert simulate(sizes, threshold, sizing_follows_state=False, hysteresis=hysteresis).count == 0


def test_what_the_check_reads_and_ignores():
    w = EAGLEWorkerV2()
    assert kv.writes_per_step(w) == 4
    w.topk, w.speculative_num_steps = 2, 3
    assert kv.writes_per_step(w) == 6
    assert kv.writes_per_step(SimpleNamespace()) is None
    # 0.5.16 keeps the lengths on req.kv
    r = SimpleNamespace(rid="a", kv=SimpleNamespace(kv_allocated_len=12, kv_committed_len=10))
    assert kv.kv_lens(r) == (12, 10) and kv.violations([r], 4) == [("a", 12, 10)] and kv.violations([r], 3) == []

    class EAGLEWorker:  # spec v1: another allocation rule, not checked
        speculative_num_steps, speculative_num_draft_tokens, topk = 3, 4, 1
    assert kv.spec_worker(SimpleNamespace(draft_worker=EAGLEWorker(), model_worker=None)) is None
    out = io.StringIO()
    c = kv.Checker(out)
    c.guarded(SimpleNamespace(draft_worker=EAGLEWorker()), SimpleNamespace(forward_mode=Mode(), reqs=[r]))
    c.guarded(SimpleNamespace(draft_worker=EAGLEWorkerV2()), SimpleNamespace(forward_mode=Mode(False), reqs=[r]))
    assert not c.armed and out.getvalue() == ""  # prefill steps and v1 workers are not checked
    # anything unreadable disables the check with one line, never the server
    c.guarded(SimpleNamespace(draft_worker=EAGLEWorkerV2()), SimpleNamespace(forward_mode=object(), reqs=[r]))
    assert c.broken and "patchkit-kv-check: disabled (AttributeError" in out.getvalue()


SCHEDULER = '''
class Scheduler:
    def __init__(self, worker):
        self.draft_worker = worker
    def run_batch(self, batch):
        self.draft_worker.speculative_num_steps, self.draft_worker.speculative_num_draft_tokens = batch.state
        return "result"
'''
DRIVER = '''
from types import SimpleNamespace
from sglang.srt.managers.scheduler import Scheduler
class EAGLEWorkerV2: pass
class Mode:
    def is_decode(self): return True
s = Scheduler(EAGLEWorkerV2()); s.draft_worker.topk = 1
r = SimpleNamespace(rid="r1", kv_allocated_len=12, kv_committed_len=11)
print(s.run_batch(SimpleNamespace(forward_mode=Mode(), reqs=[r], state=(0, 1))))   # zero state: 1 slot, fine
print(s.run_batch(SimpleNamespace(forward_mode=Mode(), reqs=[r], state=(3, 4))))   # resume: 4 slots, 2 allocated
'''


def test_the_hook_wraps_the_scheduler_when_sglang_imports_it(tmp_path):
    site = tmp_path / "site"
    (site / "sglang" / "srt" / "managers").mkdir(parents=True)
    for d in ("sglang", "sglang/srt", "sglang/srt/managers"):
        (site / d / "__init__.py").write_text("")
    (site / "sglang" / "srt" / "managers" / "scheduler.py").write_text(textwrap.dedent(SCHEDULER))
    (site / "driver.py").write_text(textwrap.dedent(DRIVER))

    def run(env_extra):
        env = server_env({**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(site),
                          **env_extra})
        return subprocess.run([sys.executable, str(site / "driver.py")], capture_output=True, text=True, env=env,
                              timeout=60)
    on = run({})
    assert on.returncode == 0, on.stderr
    assert on.stdout.split() == ["result", "result"]
    assert "patchkit-kv-check: armed on Scheduler.run_batch (worker EAGLEWorkerV2)" in on.stderr
    assert "request r1 writes 4 KV slot(s) per step but only 2 are allocated" in on.stderr
    assert on.stderr.count("ERROR") == 1
    off = run({KV_CHECK_ENV: "0"})
    assert off.returncode == 0 and "patchkit-kv-check" not in off.stderr


def test_the_log_scan_reports_the_check_and_fails_only_on_violations():
    armed = logscan.scan("patchkit-kv-check: armed on Scheduler.run_batch (worker EAGLEWorkerV2)\n")
    assert armed.kv_check == "armed" and not armed.errors
    gone = logscan.scan("patchkit-kv-check: disabled (AttributeError: 'X' object has no attribute 'reqs')\n")
    assert gone.kv_check.startswith("disabled (AttributeError") and not gone.errors
    bad = logscan.scan("patchkit-kv-check: armed on Scheduler.run_batch (worker EAGLEWorkerV2)\n"
                       "patchkit-kv-check ERROR: decode step 7 request r writes 4 KV slot(s) per step but only 2 ...\n")
    assert bad.kv_check == "armed" and bad.errors == [
        "patchkit-kv-check ERROR: decode step 7 request r writes 4 KV slot(s) per step but only 2 ..."]
