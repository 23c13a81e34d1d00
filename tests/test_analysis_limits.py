"""Analyzer limits: construction-path summaries keep mutual recursion polynomial, and a per-file
budget turns a pathological file into a "could not be fully analysed" finding, never a hang.
(The speed figure for 200 methods lives in bench/analyzer_speed.py, not here.)"""
from __future__ import annotations

from hypothesis import given, settings as hsettings, strategies as st

from patchkit.analysis import analyse_source, state
from patchkit.analysis.checker import Analyzer, Settings
from patchkit.analysis.project import Project
from patchkit.ftypes import Severity


def mutual(n: int) -> str:
    """``n`` methods, each choosing among three others under configuration flags."""
    out = ["class Rec:", "    def __init__(self, cfg):", "        self.cfg = cfg", "        self.m0(cfg)", ""]
    for i in range(n):
        out += [f"    def m{i}(self, cfg):", f"        if cfg.opt{i}:", f"            self.a{i} = 1",
                f"            self.m{(i + 1) % n}(cfg)", f"        elif cfg.alt{i}:", f"            self.m{(i + 2) % n}(cfg)",
                "        else:", f"            self.m{(i + 3) % n}(cfg)", f"        return self.a{(i + 5) % n}", ""]
    out += ["    def use(self):", "        return self.a0", "", "", "class Fine:", "    def __init__(self):",
            "        self.x = 1", "", "    def get(self):", "        return self.y", ""]
    return "\n".join(out)


def test_tiny_budget_reports_the_file_as_not_fully_analysed():
    got = analyse_source("rec.py", mutual(40), settings=Settings(budget_steps=500))
    budget = [f for f in got if f.code == "PK901"]
    assert [(f.cls, f.severity) for f in budget] == [("Rec", Severity.WARNING)]
    assert "state-steps" in budget[0].why


def test_the_time_budget_counts_cpu_seconds_not_the_wall_clock():
    """A loaded machine stretches wall time, not the work done: a budget of 0.2 s outlives a 0.4 s
    sleep (no CPU spent), and the same file gets the same findings however busy the machine is."""
    import time

    from patchkit.analysis.state import Budget, BudgetExceeded
    b = Budget(seconds=0.2, steps=10**9).start()
    time.sleep(0.4)
    b.spend(2048)  # looks at the clock: 0.4 s of wall time passed, far less CPU
    spin = time.process_time() + 0.3
    while time.process_time() < spin:
        pass
    try:
        b.spend(2048)
    except BudgetExceeded as exc:
        assert "0.2 s" in str(exc)
    else:
        raise AssertionError("0.3 s of CPU past a 0.2 s budget did not end the walk")


def test_default_budget_analyses_200_mutually_recursive_methods():
    got = analyse_source("rec.py", mutual(200))
    assert not [f for f in got if f.code == "PK901"]
    assert {f.attr for f in got if f.cls == "Rec"} >= {"a0", "a5"}
    assert ("PK003", "y") in {(f.code, f.attr) for f in got if f.cls == "Fine"}


def _chain(spec: list[tuple[int, int, bool]]) -> str:
    """An acyclic call graph: method i assigns a_i on one branch and calls a later method."""
    n = len(spec)
    out = ["class C:", "    def __init__(self, cfg):", "        self.m0(cfg)", ""]
    for i, (target, other, both) in enumerate(spec):
        t = min(n - 1, i + 1 + target % max(1, n - i - 1)) if i < n - 1 else None
        o = min(n - 1, i + 1 + other % max(1, n - i - 1)) if i < n - 1 else None
        out += [f"    def m{i}(self, cfg):", f"        if cfg.f{i % 3}:", f"            self.a{i} = {i}"]
        out += [f"            self.m{t}(cfg)"] if t is not None else []
        out += ["        else:", f"            self.b{i} = {i}"]
        out += [f"            self.m{o}(cfg)"] if o is not None and both else []
        out += [f"        self.c{i} = self.a{i} if cfg.f{i % 3} else self.b{i}", ""]
    return "\n".join(out)


@hsettings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans()), min_size=2, max_size=9))
def test_summaries_never_claim_more_than_the_exact_walk(spec):
    """Summaries (every call summarised) never claim an attribute is definitely assigned when
    walking every path says it may not be: they may lose a correlation between a caller's test and
    a deeper callee's (a may-be-unassigned warning more), never hide an unassigned read."""
    src = _chain(spec)

    def assigned(depth: int) -> frozenset:
        old, state.MEMO_DEPTH = state.MEMO_DEPTH, depth
        try:
            p = Project(None, {})
            mod = p.add_source("c.py", src)
            return Analyzer(p).definitely_assigned(mod.classes["C"])
        finally:
            state.MEMO_DEPTH = old
    assert assigned(0) <= assigned(99)
