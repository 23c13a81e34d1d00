"""``fastre.Bounded`` finds exactly what the look-behind / ``\\b`` / ``^[ \\t]*`` form finds (it
only exists because those forms defeat ``re``'s literal prefix search)."""
from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from patchkit.analysis.fastre import WORD, Bounded

PAIRS = [  # (the slow form, the fast one), as the analyzer uses them
    (re.compile(r"(?<!\w)__[A-Za-z0-9_]*[A-Za-z0-9]_?(?!\w)"), Bounded(r"__[A-Za-z0-9_]*[A-Za-z0-9]_?(?!\w)")),
    (re.compile(r"\bself\s*:"), Bounded(r"self\s*:")),
    (re.compile(r"^[ \t]*class\s+\w+\s*\([^)]*,", re.M), Bounded(r"class\s+\w+\s*\([^)]*,", line_start=True)),
    (re.compile(r"\btype\s*\(\s*[^,()]+,\s*(?:\(|\w+\s*,)|\btype\s*\(\s*[\w.]+\s*\)\s*\("),
     Bounded(r"type\s*\(\s*[^,()]+,\s*(?:\(|\w+\s*,)|type\s*\(\s*[\w.]+\s*\)\s*\(")),
    (re.compile(r"\btype\(\s*[^,()\n]{1,200},\s*\("), Bounded(r"type\(\s*[^,()\n]{1,200},\s*\(")),
    (re.compile(r"(?<![\w.])self\s*\.\s*([A-Za-z_]\w*)"), Bounded(r"self\s*\.\s*([A-Za-z_]\w*)", WORD | {"."})),
]
PIECES = ["  class A(B, C)", "self", "myself", ".", ":", "__", "_", "x", "a1", " ", "\t", "\n", "class", "type", "dtype",
          "(", ")", ",", "Foo", "__init__", "__priv", "=", "cls"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_bounded_matches_the_look_behind_form(text):
    for slow, fast in PAIRS:
        # a line-start form's match begins after the indentation the slow form includes
        key = (lambda m: (m.end(), m.groups())) if fast.line_start else (lambda m: (m.start(), m.end(), m.groups()))
        assert [key(m) for m in fast.finditer(text)] == [key(m) for m in slow.finditer(text)], (slow.pattern, text)
        assert bool(fast.search(text)) == bool(slow.search(text))
        if not fast.line_start:
            assert fast.findall(text) == slow.findall(text)


def test_examples():
    assert Bounded(r"self\s*:").search("def f(myself: int)") is None
    assert Bounded(r"self\s*:").search("def f(self: C)").start() == 6
    assert Bounded(r"class\s+\w+\s*\([^)]*,", line_start=True).search("x = 1; class A(B, C):") is None
    assert Bounded(r"class\s+\w+\s*\([^)]*,", line_start=True).search("if x:\n    class A(B, C):")
