"""Constant facts the analyzer evaluates: a literal an attribute was bound to on the construction path
against the literal a read's guard compares it with, a class constant each subclass binds its own
way, a class default read before construction stores the attribute, and one module imported two
ways in a try/except."""
from __future__ import annotations

import ast

from hypothesis import given, settings, strategies as st

from patchkit.analysis import analyse_source
from patchkit.analysis.conditions import fact_contradicts_constants, tested_self_attr as attr_a_test_reads
from patchkit.analysis.alternatives import _same_module_two_ways
from patchkit.analysis.severity import _literal_conflict
from patchkit.ftypes import Severity

LITERALS = st.one_of(st.text(alphabet="abcxyz_", min_size=1, max_size=4), st.integers(-3, 3))
NAMES = st.sampled_from(["mode", "layer_type", "kind"])


@settings(max_examples=300, deadline=None)
@given(NAMES, NAMES, LITERALS, LITERALS, st.booleans(), st.booleans())
def test_literal_conflict_is_two_different_literals_both_held(a, b, v, w, p, q):
    k1, k2 = f"{a} == {v!r}", f"{b} == {w!r}"
    want = a == b and p and q and v != w
    assert _literal_conflict(k1, p, k2, q) is want
    assert _literal_conflict(k2, q, k1, p) is want  # symmetric


def test_literal_conflict_leaves_other_shapes_alone():
    assert not _literal_conflict("mode == x", True, "mode == y", True)      # names, not literals
    assert not _literal_conflict("mode == True", True, "mode == 1", True)   # bools are flags
    assert not _literal_conflict("mode == 'a'", True, "mode != 'a'", True)


@settings(max_examples=300, deadline=None)
@given(NAMES, LITERALS, LITERALS, st.booleans(), st.sampled_from(["==", "!="]))
def test_a_fact_on_a_class_constant_is_evaluated(name, bound, tested, holds, op):
    key = f"{name} {op} {tested!r}"
    value = (bound == tested) == (op == "==")
    assert fact_contradicts_constants(key, holds, {name: bound}, frozenset()) is (value != holds)
    # a local of the same name is not the class's constant
    assert not fact_contradicts_constants(key, holds, {name: bound}, frozenset({name}))
    assert not fact_contradicts_constants(key, holds, {}, frozenset())


def test_tested_self_attr_reads_the_forms_class_const_truth_decides():
    got = [attr_a_test_reads(ast.parse(src, mode="eval").body, "self") for src in
           ("self._window", "not self._window", "self.a is None", "self.mode == 'x'", "self.a.b", "f(self.a)")]
    assert got == ["_window", "_window", "a", "mode", None, None]


def test_same_module_two_ways():
    assert _same_module_two_ways("import .sub.Thing", "import sub.Thing")
    assert _same_module_two_ways("import pkg.sub.Thing", "import sub.Thing")
    assert not _same_module_two_ways("import pkg.sub.Thing", "import other.Thing")
    assert not _same_module_two_ways("import pkg.sub.Thing", "class at line 4")
    assert not _same_module_two_ways("import Thing", "import Thing2")


def _errors(src: str):
    return [(f.code, f.attr) for f in analyse_source("m.py", src) if f.severity == Severity.ERROR]


MODE = """\
class Layer:
    def __init__(self, kind):
        self.kind = kind
        if kind == "linear":
            self.linear = object()
        else:
            self.attn = object()

    def forward(self):
        if self.kind == "linear":
            return self.linear
        return self.attn


class Fixed(Layer):
    def __init__(self):
        self.kind = {bound!r}
        self.attn = object()
"""


def test_a_subclass_binding_the_mode_is_judged_by_the_literal():
    # the read under `== "linear"` is dead for a subclass bound to "full", live for one bound to "linear"
    assert _errors(MODE.format(bound="full")) == []
    assert _errors(MODE.format(bound="linear")) == [("PK003", "linear")]


DEFAULT = """\
class Window:
    _window = {default}

    def __init__(self):
        self._create()

    def _create(self):
        if not self._window:
            self._window = object()
            self._atoms = {{}}

    def drop(self):
        return self._atoms
"""


def test_a_class_default_decides_the_test_until_construction_stores_it():
    assert _errors(DEFAULT.format(default="None")) == []
    # a truthy default skips the branch in construction: only a later _create() could make the atoms
    assert [(f.code, f.attr) for f in analyse_source("m.py", DEFAULT.format(default="1"))] == [("PK004", "_atoms")]
