"""Soundness against an executing oracle: random classes with random control flow in __init__
and helpers are constructed under every combination of branch outcomes; an attribute the
analyzer calls definitely assigned must be present on every object that got constructed."""
from __future__ import annotations

import os
import itertools
import textwrap

from hypothesis import HealthCheck, given, settings, strategies as st

from patchkit.analysis.checker import Analyzer
from patchkit.analysis.project import Project

CONDS = ["c0", "c1", "c2"]
LOOPS = ["n0", "n1"]
ATTRS = ["a", "b", "c", "d", "e"]


def block(draw, depth: int, helpers: int, lvl: int, in_helper: bool = False) -> list[str]:
    n = draw(st.integers(1, 3))
    out: list[str] = []
    for _ in range(n):
        kinds = ["assign", "assign", "helper", "del", "delattr", "ret", "raise"] + (["prop"] if helpers >= 0 else [])
        if depth > 0:
            kinds += ["if", "ifelse", "ifand", "for", "try", "with", "match", "whiletrue", "closure"]
            kinds += ["ptest"]
            if in_helper:
                kinds += ["pif", "pstore"]
        k = draw(st.sampled_from(kinds))
        c = draw(st.sampled_from(CONDS))
        a = draw(st.sampled_from(ATTRS))
        if k == "assign":
            out.append(f"self.{a} = 1")
        elif k == "helper" and helpers > lvl:
            # constant, omitted or variable argument: the analyzer binds the constant ones
            arg = draw(st.sampled_from(["", "True", "False", "p=True", c]))
            out.append(f"self.h{draw(st.integers(lvl, helpers - 1))}({arg})")
        elif k == "pif":
            out.append("if not p:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper)))
        elif k == "pstore":  # the helper's parameter kept under its own name
            out.append("self.p = p")
        elif k == "ptest":  # and tested later, possibly after another call changed it
            out.append("if hasattr(self, 'p') and self.p:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper)))
        elif k == "prop":
            out.append("_ = self.pr")
        elif k == "closure":
            out.append("def _f():\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper)) + "\n_f()")
        elif k == "del":
            out.append(f"if hasattr(self, '{a}') and {c}:\n    del self.{a}")
        elif k == "delattr":
            out.append(f"if hasattr(self, '{a}') and {c}:\n    delattr(self, '{a}')")
        elif k == "ret":
            out.append(f"if {'not ' if draw(st.booleans()) else ''}{c}:\n    return")
        elif k == "raise":
            out.append(f"if {c}:\n    raise ValueError('{c}')")
        elif k == "if":
            out.append(f"if {c}:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper)))
        elif k == "ifelse":
            out.append(f"if {c}:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper)) + "\nelse:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper)))
        elif k == "ifand":
            c2 = draw(st.sampled_from(CONDS))
            op = draw(st.sampled_from(["and", "or"]))
            a2 = draw(st.sampled_from(ATTRS))
            out.append(f"if {c} {op} ({c2} or self.__dict__.setdefault('{a2}', 1)):\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper))
                       + "\nelse:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper)))
        elif k == "for":
            out.append(f"for _ in range({draw(st.sampled_from(LOOPS))}):\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper)))
        elif k == "try":
            out.append("try:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper) + [f"if {c}:\n    raise KeyError('k')"]
                                      + block(draw, depth - 1, helpers, lvl, in_helper))
                       + "\nexcept KeyError:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper)))
        elif k == "with":
            out.append("with contextlib.suppress(KeyError):\n" + ind([f"if {c}:\n    raise KeyError('k')"]
                                                                      + block(draw, depth - 1, helpers, lvl, in_helper)))
        elif k == "match":
            wild = draw(st.booleans())
            out.append(f"match {c}:\n    case True:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper), 8)
                       + ("\n    case _:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper), 8) if wild else ""))
        elif k == "whiletrue":
            out.append("while True:\n" + ind(block(draw, depth - 1, helpers, lvl, in_helper) + ["break"]))
        else:
            out.append("pass")
    return out


def ind(lines: list[str], n: int = 4) -> str:
    return textwrap.indent("\n".join(lines), " " * n)


@st.composite
def programs(draw) -> str:
    helpers = draw(st.integers(0, 3))
    params = ", ".join(CONDS + LOOPS)
    src = ["import contextlib", "", "class C:", f"    def __init__(self, {params}):"]
    src.append(ind(block(draw, 2, helpers, 0), 8))
    for h in range(helpers):
        # helper h may call only later helpers (no recursion), and reads the same conditions
        src.append(f"    def h{h}(self, p=False):")
        src.append(f"        {', '.join(CONDS + LOOPS)} = self._args")
        src.append(ind(block(draw, 2, helpers, h + 1, True), 8))
    # a property whose getter may assign (it runs wherever construction reads it)
    src.append("    @property")
    src.append("    def pr(self):")
    src.append(f"        {', '.join(CONDS + LOOPS)} = self._args")
    src.append(ind(block(draw, 1, -1, 0), 8))  # helpers=-1: no helper calls, no property read
    src.append("        return 1")
    return "\n".join(src) + "\n"


def oracle(source: str) -> frozenset | None:
    ns: dict = {}
    exec(compile(source, "gen.py", "exec"), ns)
    cls = ns["C"]
    seen = None
    for combo in itertools.product([False, True], [False, True], [False, True], [0, 1, 2], [0, 1, 2]):
        obj = cls.__new__(cls)
        object.__setattr__(obj, "_args", combo)
        try:
            cls.__init__(obj, *combo)
        except (ValueError, KeyError, AttributeError):
            continue
        have = frozenset(k for k in vars(obj) if k != "_args")
        seen = have if seen is None else seen & have
    return seen


def analyse(source: str) -> frozenset:
    # helpers unpack the same parameters from self._args: give the analyzer the same facts by
    # assigning _args first in __init__ (it is part of construction, like the oracle's setattr)
    p = Project()
    mod = p.add_source("gen.py", source)
    return Analyzer(p).definitely_assigned(mod.classes["C"])


@settings(max_examples=int(os.environ.get("PATCHKIT_ORACLE_EXAMPLES", "300")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_definitely_assigned_is_sound(source):
    truth = oracle(source)
    if truth is None:
        return  # no combination constructs an object
    claimed = analyse(source)
    assert claimed <= truth, f"unsound: claims {sorted(claimed - truth)} always assigned\n{source}"


def test_oracle_detects_a_real_gap():
    src = "class C:\n    def __init__(self, c0, c1, c2, n0, n1):\n        if c0:\n            self.a = 1\n"
    assert oracle(src) == frozenset()
    assert analyse(src) == frozenset()
