"""The tree-wide text scans the analyzer makes per query (is ``Name(`` called anywhere, which files
store ``Cls.x = ...``, is ``super().m`` named anywhere) go through a word index and literal-first
searches. Each must decide exactly what the plain pattern over every file decides: the reference
forms below are the ones the analyzer used before, and hypothesis feeds both the same text."""
from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings, strategies as st

from patchkit.analysis.fastre import Bounded, called_at, word_boundary
from patchkit.analysis.model import _stored_on
from patchkit.analysis.treeclasses import TreeClasses, _words
from patchkit.analysis.unreached import _named_anywhere

PIECES = ["Foo", "Bar", "FooBar", "m", "mm", "x", "_", "3", "é", "naïve", "→", "class ", "class", "super(",
          "super()", "(", ")", ".", " ", "\t", "\n", "=", "==", ":", ",", "Foo.", ".m", "self"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
NAMES = ["Foo", "Bar", "FooBar", "m", "mm", "x", "naïve"]


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_the_word_index_holds_every_whole_word(text):
    """Every ASCII-led identifier that ``\\b`` bounds in the text is in its word set (a superset is
    fine: the exact pattern runs on the files the index returns)."""
    got = _words(text)
    for w in set(re.findall(r"\w+", text)):
        if re.fullmatch(r"[A-Za-z_]\w*", w) and re.search(r"\b%s\b" % re.escape(w), text):
            assert w.encode() in got, (text, w)


@settings(max_examples=500, deadline=None)
@given(TEXT, st.sampled_from(NAMES))
def test_a_class_store_is_found_as_by_the_any_store_pattern(text, name):
    reference = name in {m.group(1) for m in re.finditer(r"\b(\w+)\s*\.\s*\w+\s*=(?!=)", text)}
    assert _stored_on(name, text) == reference, (text, name)


@settings(max_examples=500, deadline=None)
@given(TEXT, st.sampled_from(NAMES))
def test_a_bare_call_is_found_as_by_the_look_behind_pattern(text, name):
    for slow, body in ((rf"(?<![\w.])(?<!class ){re.escape(name)}\(", rf"{re.escape(name)}\("),
                       (rf"(?<!class )(?<![\w.]){re.escape(name)}\s*\(", rf"{re.escape(name)}\s*\(")):
        assert (Bounded(body, before=called_at).search(text) is not None) == bool(re.search(slow, text)), (text, slow)
    slow = rf"\b{re.escape(name)}\s*\.\s*\w+"
    fast = Bounded(rf"{re.escape(name)}\s*\.\s*\w+", before=word_boundary)
    assert (fast.search(text) is not None) == bool(re.search(slow, text)), (text, name)


@settings(max_examples=500, deadline=None)
@given(TEXT, st.sampled_from(["m", "mm", "Foo", "x"]),
       st.lists(st.sampled_from(["Foo", "Bar", "FooBar", "m"]), min_size=1, max_size=3, unique=True))
def test_named_anywhere_is_the_alternation_pattern(text, name, names):
    names = tuple(sorted(names, key=len, reverse=True))
    slow = re.compile(rf"(?:\b(?:{'|'.join(map(re.escape, names))})|\bsuper\((?:[^()\n]|\([^()\n]*\))*\))"
                      rf"\s*\.\s*{re.escape(name)}\b")
    assert _named_anywhere([("a.py", text)], name, names) == bool(slow.search(text)), (text, name, names)


def test_naming_returns_the_files_in_tree_order(tmp_path: Path):
    (tmp_path / "b.py").write_text("x = Foo()\n")
    (tmp_path / "a.py").write_text("# Foo, FooBar\n")
    (tmp_path / "c.py").write_text("FooBar = 1\nnaïve = 2\n")
    idx = TreeClasses(tmp_path)
    assert [r for r, _t in idx.naming("Foo")] == ["a.py", "b.py"]
    assert [r for r, _t in idx.naming("FooBar")] == ["a.py", "c.py"]
    assert [r for r, _t in idx.naming("naïve")] == ["c.py"]
    assert idx.naming("Nothing") == []
    # a name that is not an ASCII-led identifier has no index: every file, for the exact pattern
    assert [r for r, _t in idx.naming("été")] == ["a.py", "b.py", "c.py"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["class A(", "class ", "A(", " ", "\t", "\n", "x", "  class B(C)", "\n\tclass D("]),
                max_size=20).map("".join))
def test_an_indented_class_statement_is_found_as_by_the_multiline_pattern(text):
    from patchkit.analysis.fastre import indented_line_start
    slow = re.compile(r"^[ \t]+class \w+\(", re.M)
    assert (Bounded(r"class \w+\(", before=indented_line_start).search(text) is not None) == bool(slow.search(text))
