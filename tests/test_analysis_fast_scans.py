"""The analyzer's fast text scans give exactly what the plain regex scans they replace give.

Each fast scan (classindex's class headers and import aliases, model's per-line store search)
exists only for speed on whole trees (bench/analyzer_speed.py); these properties pin them to the
slow definition on generated texts built from the fragments that trip such scans: headers split
over lines, ``class`` inside words and strings, ``as`` inside words, odd line breaks.
"""
import ast
import re

from hypothesis import given, settings, strategies as st

from patchkit.analysis.astutil import bfs_walk, fast_walk, walk
from patchkit.analysis.classindex import _AS_TARGET, _HEADER, _as_targets, _headers
from patchkit.analysis.injection import _SELF_ANNOTATED, self_annotated
from patchkit.analysis.model import matching_lines

FRAGMENTS = [
    "class A(B):\n", "  class C(D, E):\n", "\tclass F(G.H, metaclass=M):\n", "class I:\n",
    "class J(\n    K,\n    L,\n):\n", "subclass(", "dataclass(", "# class M(N)\n", "x = 'class O(P)'\n",
    "classes(Q)\n", "class  R (S[T]):\n", "class U(V(W)):\n", "import x as y\n", "from m import Base as _B\n",
    "has as z", "alias q", " as\n w", "\tas\tv", "as", "(", ")", "\n", " ", "\t", "\r", "\x0c",
    "Foo.bar = 1\n", "def f(self: 'M'):", "(x,\n self :", "myself:", "(self)", "{'self': 1}", ", self", "Foo . baz =\n 2\n", "Foo.qux == 3\n", "  Foo.x = Foo.y = 4\n", "Foox.y = 5\n",
]

texts = st.lists(st.sampled_from(FRAGMENTS) | st.text(alphabet="ascl ():.\n =Fo", max_size=8),
                 max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_headers_are_the_regex_matches(text):
    assert [m.span() for m in _headers(text)] == [m.span() for m in _HEADER.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(texts)
def test_as_targets_are_the_regex_matches(text):
    assert _as_targets(text) == set(_AS_TARGET.findall(text))


@settings(max_examples=400, deadline=None)
@given(texts)
def test_self_annotated_is_the_regex_search(text):
    assert self_annotated(text) == bool(_SELF_ANNOTATED.search(text))


STORE = re.compile(r"\b(?:Foo|F)\s*\.\s*\w+\s*=(?!=)")
#: a match of the whole text can swallow a later line's own match (its greedy tail)
GREEDY = re.compile(r"F\s*o.*")


NEAR = re.compile(STORE.pattern.removeprefix("\\b"))


@settings(max_examples=400, deadline=None)
@given(texts, st.sampled_from([(STORE, None), (STORE, NEAR), (GREEDY, None)]))
def test_matching_lines_are_the_lines_that_match(text, patterns):
    pattern, near = patterns
    lines = text.splitlines()
    assert matching_lines(pattern, text, lines, near) == [i for i, line in enumerate(lines) if pattern.search(line)]


def test_matching_lines_sees_a_line_inside_a_longer_match():
    # one match of the whole text runs from line 0 over the break to the end of line 1, whose
    # own match it contains
    text = "F\noo Fo\n"
    assert [m.span() for m in GREEDY.finditer(text)] == [(0, 7)]
    assert matching_lines(GREEDY, text, text.splitlines()) == [1]


SOURCE = '''
class A:
    def f(self, x):
        if x:
            self.a = [y for y in x]
        def g(z):
            return lambda w: w + z
        return g
'''


def test_kept_walks_are_the_walks_they_replace():
    tree = ast.parse(SOURCE)
    fn = tree.body[0].body[0]
    leaves = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    fresh = [type(n).__name__ for n in ast.walk(fn) if not isinstance(n, leaves)]
    assert [type(n).__name__ for n in walk(fn)] == fresh
    assert [type(n).__name__ for n in walk(fn)] == fresh  # the kept list, second time
    first = [id(n) for n in fast_walk(fn)]
    assert [id(n) for n in fast_walk(fn)] == first
    assert all(type(n).__name__ not in ("Load", "Store", "Add") for n in fast_walk(fn))
    assert {id(n) for n in fast_walk(fn)} < {id(n) for n in ast.walk(fn)}
    # bfs_walk: ast.walk's order, less the context and operator leaves
    assert [id(n) for n in bfs_walk(tree)] == [id(n) for n in ast.walk(tree) if not isinstance(n, leaves)]
    # an expression is walked fresh every time (only functions and classes keep their lists)
    expr = fn.body[0].test
    assert not hasattr(expr, "_pk_fast") and [type(n).__name__ for n in fast_walk(expr)] == ["Name"]
