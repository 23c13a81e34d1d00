"""localflags.py: a local bound to a test of the instance (``in_init = self._cmap is None``) carries
the test's truth on each construction path whose conditions decide it, judged when it is bound;
a later ``if not in_init:`` then correlates (matplotlib 3.11's ``Colorizer``)."""
from __future__ import annotations

import textwrap

from hypothesis import given, settings, strategies as st

from patchkit.analysis import analyse_source


def found(src: str) -> set:
    return {(f.code, f.cls.split(".")[-1], f.attr) for f in analyse_source("m.py", textwrap.dedent(src))}


#: construction stores ``_a``, then a helper binds a local to a test of it and branches on the local
SETUP = """
class C:
    def __init__(self, x):
        self._a = {value}
        self.setup(x)
        self.b = 1

    def setup(self, x):
        flag = self._a {op}{between}
        if {neg}flag:
            print(self.b)
"""


def setup_src(value: str, op: str = "is None", negate: bool = False, between: str = "") -> str:
    return SETUP.format(value=value, op=op, neg="not " if negate else "", between=between)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["None", "1"]), st.sampled_from(["is None", "is not None"]), st.booleans())
def test_the_branch_on_the_local_is_taken_exactly_when_the_stored_value_makes_the_test_so(value, op, negate):
    truth = (value == "None") == (op == "is None")
    taken = truth != negate
    assert (("PK002", "C", "b") in found(setup_src(value, op, negate))) == taken, (value, op, negate)


def test_the_test_is_judged_when_the_local_is_bound_not_at_the_branch():
    # flag is True: _a was None when it was bound, whatever x stores afterwards
    assert ("PK002", "C", "b") in found(setup_src("None", between="\n        self._a = x"))


def test_a_property_whose_getter_returns_the_attribute_is_that_attribute():
    got = found("""
    class Colorizer:
        def __init__(self, norm):
            self._norm = None
            self.norm = norm
            self.callbacks = []

        @property
        def norm(self):
            return self._norm

        @norm.setter
        def norm(self, norm):
            in_init = self.norm is None
            if not in_init:
                self.changed()
            self._norm = norm

        def changed(self):
            self.callbacks.append(1)
    """)
    assert not got, got


def test_an_undecided_test_decides_nothing():
    # _a is whatever x is: the read may run
    assert ("PK002", "C", "b") in found(setup_src("x", negate=True))


def test_a_branch_on_a_plain_local_is_no_guard_of_an_attribute_of_that_name():
    """``if use_cache:`` tests a local; its key reads like ``self.use_cache``, which no path assigns,
    and was taken for a guard that can never pass: the read under it was never judged."""
    got = found("""
    class Store:
        def __init__(self, cfg):
            use_cache = cfg.get("cache")
            if use_cache:
                print(self.cache_dir)
            self.cache_dir = cfg.get("dir")
    """)
    assert ("PK002", "Store", "cache_dir") in got


def test_a_local_holding_hasattr_or_getattr_guards_like_the_call():
    src = textwrap.dedent("""
    class A:
        def __init__(self, x):
            self.setup(x)
            self.b = 1

        def setup(self, x):
            have = hasattr(self, "b")
            if have:
                print(self.b)
            v = getattr(self, "b", None)
            if v is not None:
                print(self.b)
            if v:
                print(self.b)
            if not have:
                print(self.b)
    """)
    got = analyse_source("m.py", src)
    assert {(f.code, f.attr) for f in got} == {("PK002", "b")}, got
    assert {f.line for f in got} == {17}  # only the read under `not have` (the last one)


def test_a_local_named_like_an_attribute_leaves_the_attribute_facts_alone():
    """Condition keys drop ``self.``, so a local ``mode`` and ``self.mode`` share one: binding or
    rebinding the local must neither erase what ``self.mode = "fast"`` stored nor add a second,
    opposite fact under that key."""
    import ast as _ast

    from patchkit.analysis.conditions import VALUE, Cond
    from patchkit.analysis.localflags import bind
    from patchkit.analysis.state import Frame, State
    fn = _ast.parse(textwrap.dedent("""
    def __init__(self):
        mode = self.mode == "slow"
        mode = 3
    """)).body[0]
    stored = {Cond("mode", True, 1, "self.mode", VALUE), Cond('mode == "fast"', True, 1, 'self.mode == "fast"', VALUE),
              Cond('mode == "slow"', False, 1, 'self.mode == "slow"', VALUE)}
    fr = Frame(cls=None, fn=fn, selfname="self")
    st = [State(frozenset(), frozenset(stored))]
    for s in fn.body:
        st = bind(s, st, fr)
        assert stored <= st[0].conds, s.lineno  # the attribute's facts stay
        assert [c for c in st[0].conds if c.key == "mode"] == [Cond("mode", True, 1, "self.mode", VALUE)]
