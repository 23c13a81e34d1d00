"""localconsts.value on what a call site fixes: str methods of a known string, and comparisons of a
known scalar with a constant or a display of constants. Checked against Python's own evaluation."""
from __future__ import annotations

import ast

from hypothesis import given, strategies as st

from patchkit.analysis.localconsts import PURE_STR_METHODS, UNKNOWN, value

words = st.text(alphabet="aB _-xY", max_size=6)


@given(words, st.sampled_from(sorted(PURE_STR_METHODS)), st.lists(words, max_size=4),
       st.sampled_from(["in", "not in", "==", "!="]))
def test_known_values_evaluate_as_python_does(s, method, items, op):
    right = repr(tuple(items)) if "in" in op else repr(items[0] if items else "x")
    src = f"mode.{method}() {op} {right}"
    got = value(ast.parse(src, mode="eval").body, {"mode": s})
    assert got == eval(src, {"mode": s})


def test_unknown_parts_stay_unknown():
    def v(src, consts):
        return value(ast.parse(src, mode="eval").body, consts)
    assert v("mode.lower() in ('a',)", {}) is UNKNOWN  # the name is not known
    assert v("mode.lower() in options", {"mode": "a"}) is UNKNOWN  # the container is not a display
    assert v("mode.split() == 'a'", {"mode": "a"}) is UNKNOWN  # not a pure no-argument str method
    assert v("mode.lower('x') == 'a'", {"mode": "a"}) is UNKNOWN  # arguments: not evaluated
    assert v("n.lower() == 'a'", {"n": 3}) is UNKNOWN  # not a string
    assert v("mode < 'b'", {"mode": "a"}) is UNKNOWN  # orderings are not evaluated
