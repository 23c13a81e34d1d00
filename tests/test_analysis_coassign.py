"""Correlated guards (analysis/coassign.py): a construction path whose branch needs ``self.g`` to
pass cannot reach the read when ``g`` still has its failing class-level default there, or when every
store that makes ``g`` pass also stores the attribute read (twisted's ``Canvas.resize`` reads
``_width`` under ``if self.contents is not None`` with ``contents = None`` at class level). A guard
that some store makes pass without the attribute proves nothing."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from patchkit.analysis import analyse_source

SRC = '''
class Canvas:
    contents = None

    def __init__(self):
        self.resize(1, 1)

    def resize(self, w, h):
        if self.contents is not None:
            self.old = self._width
        self._width = w
        self.contents = [0] * w


class Bad:
    ready = False

    def __init__(self):
        self.start()
        self.go()

    def start(self):
        self.ready = True

    def go(self):
        if self.ready:
            return self.data
        return None

    def load(self):
        self.data = 1
        self.ready = True
'''


def _errors(src: str) -> set[tuple[str, str]]:
    return {(f.cls, f.attr) for f in analyse_source("c.py", src) if f.severity == "error"}


def test_a_guard_with_a_failing_default_excludes_the_path():
    errors = _errors(SRC)
    assert ("Canvas", "_width") not in errors
    assert ("Bad", "data") in errors  # start() makes `ready` pass without `data`


@settings(max_examples=30, deadline=None)
@given(default=st.sampled_from(["None", "False", "0", "1", "'x'"]), together=st.booleans())
def test_the_guard_excludes_only_when_it_cannot_pass_without_the_attribute(default, together):
    """The class default decides whether the guard can pass before any store; a truthy default
    (1, 'x') can, so the read is reported unless the only store that makes it pass also sets it
    and the default cannot pass."""
    # `together`: the only store that makes the flag pass also sets width; otherwise enable() sets
    # the flag alone (still after construction, so the failing default decides the path)
    extra = "" if together else "\n    def enable(self):\n        self.flag = True\n"
    src = f'''
class C:
    flag = {default}

    def __init__(self):
        self.setup(1)

    def setup(self, w):
        if self.flag:
            self.old = self.width
        self.flag = True
        self.width = w
{extra}'''
    flagged = ("C", "width") in _errors(src)
    default_passes = default in ("1", "'x'")
    assert flagged == default_passes


VIEW = '''
class Graph:
    def __init__(self):
        self.adj = {}

    def subgraph(self, nodes):
        if hasattr(self, "_NODE_OK"):
            return (self._graph, self._EDGE_OK)
        return self.adj

    def other(self):
        if hasattr(self, "_tag"):
            return self.label
        return None

    def set_tag(self):
        self._tag = 1

    def set_label(self):
        self.label = 2


def subgraph_view(G):
    new = Graph()
    new._NODE_OK = 1
    new._EDGE_OK = 2
    new._graph = G
    return new
'''


def test_hasattr_on_an_attribute_set_only_from_outside_guards_its_companions():
    """networkx's ``if hasattr(self, "_NODE_OK"): ... self._graph, self._EDGE_OK``: none of the
    three is set by the class; ``subgraph_view`` sets them together. A companion the class sets
    itself in another method than the guard's (``label``) is judged as usual."""
    found = {(f.cls, f.attr): f for f in analyse_source("g.py", VIEW)}
    assert ("Graph", "_graph") not in found and ("Graph", "_EDGE_OK") not in found
    assert ("Graph", "label") in found


BASES = '''
class BaseTester:
    def setup_method(self):
        self.K3 = 3

    def test_k(self):
        return self.K3


class TestGraph(BaseTester):
    pass
'''

SPECIAL = '''
from .base import TestGraph as _TestGraph


class TestSpecial(_TestGraph):
    def setup_method(self):
        _TestGraph.setup_method(self)
        self.kind = "special"


class TestBroken(_TestGraph):
    def setup_method(self):
        self.kind = "broken"
'''


def test_an_explicit_call_through_an_aliased_ancestor_runs_the_overridden_method(tmp_path):
    """``_TestGraph.setup_method(self)`` (an import alias of an intermediate class) reaches the
    ``setup_method`` that class inherits; an override that calls nothing shadows it."""
    from _analysed_package import package_errors
    errors = package_errors(tmp_path, {"base.py": BASES, "special.py": SPECIAL})
    assert ("TestSpecial", "K3") not in errors
    assert ("TestBroken", "K3") in errors
