"""Path states of the construction walk (assigned attributes + the conditions known on the
path), their merging, the statement-sequence result (Flow), the per-function frame, and the
per-file work budget."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .conditions import VALUE, Cond
from .model import ClassInfo

MAX_STATES = 96


MAX_DEPTH = 12


#: calls nested this deep are walked once per (class, method, entry facts) and the summary is
#: reused: mutually recursive helpers stay polynomial (shallower calls keep every path's conditions)
MEMO_DEPTH = 3


class BudgetExceeded(Exception):
    """The walk of one file went past its time or state budget."""


@dataclass
class Budget:
    """Work allowed for one file: CPU seconds of this process and state-steps (statements x states).
    CPU time, not the wall clock: on a loaded machine (a CI runner, the benchmarks beside it) the
    same file must get the same findings (salabim.py took 7.7 s of CPU and 25 s of wall time with
    three analyses running, and the wall-clock budget cut the rest of the file)."""

    seconds: float = 20.0
    steps: int = 3_000_000
    used: int = 0
    deadline: float = 0.0

    def start(self) -> "Budget":
        import time
        self.deadline = time.process_time() + self.seconds
        self.used = 0
        return self

    def spend(self, n: int) -> None:
        self.used += n
        if self.used > self.steps:
            raise BudgetExceeded(f"more than {self.steps} state-steps")
        if self.used & 0x3FF < n:  # look at the clock about every thousand steps
            import time
            if self.deadline and time.process_time() > self.deadline:
                raise BudgetExceeded(f"more than {self.seconds:g} s of CPU")


@dataclass(frozen=True)
class State:
    assigned: frozenset
    #: the Cond facts known on this path
    conds: frozenset = frozenset()

    def add(self, *names: str) -> "State":
        return State(self.assigned | frozenset(names), self.conds)

    def remove(self, name: str) -> "State":
        return State(self.assigned - {name}, self.conds)

    def with_cond(self, c: Cond) -> "State":
        return State(self.assigned, self.conds | {c})

    def contradicts(self, key: str, pol: bool) -> bool:
        return any(c.key == key and c.holds != pol for c in self.conds)


def merge(states: Iterable[State]) -> list[State]:
    """Deduplicate; states with equal assigned sets merge keeping their common conditions."""
    by_assigned: dict[frozenset, State] = {}
    for s in states:
        prev = by_assigned.get(s.assigned)
        by_assigned[s.assigned] = s if prev is None else State(s.assigned, prev.conds & s.conds)
    out = list(by_assigned.values())
    if len(out) > MAX_STATES:
        common = frozenset.intersection(*(s.assigned for s in out))
        conds = frozenset.intersection(*(s.conds for s in out))
        out = [State(common, conds)]
    return out


@dataclass
class Flow:
    """Result of a statement sequence: states that fall through, return, break, continue."""

    normal: list[State] = field(default_factory=list)
    returns: list[State] = field(default_factory=list)
    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)


@dataclass
class Frame:
    cls: ClassInfo            # the class that defines the function being walked (for super())
    fn: ast.AST
    selfname: str
    guarded: bool = False     # inside try/except AttributeError or `with suppress(...)`
    known: frozenset = frozenset()  # attrs implied by hasattr/getattr tests around the point
    depth: int = 0
    #: parameters whose value the call site fixes (a constant argument or the default of an
    #: omitted one) and which the function never rebinds: ``super().__init__(use_dsa=True)``
    consts: dict = field(default_factory=dict)
    #: functions defined in this function's body so far (a call runs their body now)
    local_funcs: dict = field(default_factory=dict)
    #: locals bound to a super() method (``superinit = super(ArgumentParser, self).__init__``):
    #: calling the local calls that method
    bound_super: dict = field(default_factory=dict)
    #: conditions the states carried when this function was entered (older than its locals)
    entry_conds: frozenset = frozenset()
    #: locals stored under their own name (self.x = x): their facts outlive the call as facts
    #: about the attribute
    kept: set = field(default_factory=set)
    #: locals bound to a test or a lookup of the instance (``has = hasattr(self, "x")``,
    #: ``v = getattr(self, "x", None)``): a branch on the local is a branch on that (localflags.py)
    flag_tests: dict = field(default_factory=dict)
    #: ids of the ``elif`` nodes of ladders whose every test above was decided false (ladderlocals.py)
    ladder_live: set = field(default_factory=set)


#: callback for a construction-time read: (attr, node, frame, states)
ReadHook = Callable[[str, ast.Attribute, Frame, list[State]], None]


def _compose(entries: list[State], rel: list[State], absolute: bool) -> list[State]:
    """Entry states followed by a summary's states (relative to an empty entry, or absolute),
    leaving out pairs whose conditions contradict each other. A value the summary's function
    stored (a VALUE condition) replaces what the entry knew about that attribute, and its own
    tests of an attribute it stored are about that value: neither contradicts the entry (python-can's
    ``EtasBus`` sets ``self._oci_filters = None`` and then a setter re-runs ``_apply_filters``,
    which stores it again; the old composition dropped every path and judged nothing)."""
    out = []
    # per summary state: the keys it stored, and the (key, truth) pairs an entry must not contradict
    tests = []
    for r in rel:
        stored = {c.key for c in r.conds if c.origin == VALUE}
        tests.append((r, stored, frozenset((c.key, not c.holds) for c in r.conds if c.key not in stored)))
    for s in entries:
        known = {(c.key, c.holds) for c in s.conds}  # s contradicts (key, holds) iff it has (key, not holds)
        for r, stored, against in tests:
            if not known.isdisjoint(against):
                continue
            base = frozenset(c for c in s.conds if c.key not in stored) if stored else s.conds
            out.append(State(r.assigned if absolute else s.assigned | r.assigned, base | r.conds))
    return merge(out)


def _join(flows: list[Flow]) -> Flow:
    out = Flow()
    for f in flows:
        out.normal += f.normal
        out.returns += f.returns
        out.breaks += f.breaks
        out.continues += f.continues
    out.normal = merge(out.normal)
    return out
