"""A method redefined under a class-body ``if`` with no ``else`` only replaces the plain definition
when the test holds; by default the plain one runs. matplotlib 3.11's ``Bbox`` redefines
``__init__`` under ``if DEBUG:`` as a wrapper that calls the original through an alias: taking the
wrapper, the analyzer lost ``TransformNode.__init__`` and reported ``_parents`` as never assigned
(in ``__getstate__``, judged since session 31). A definition that only exists under the ``if``, or
``if``/``else`` alternatives, are kept as before."""
from __future__ import annotations

from patchkit.analysis import analyse_source

WRAPPED = '''
DEBUG = False

class Node:
    def __init__(self):
        self._parents = {}
    def parents(self):
        return self._parents

class Box(Node):
    def __init__(self, points):
        super().__init__()
        self.points = points
    if DEBUG:
        ___init__ = __init__
        def __init__(self, points):
            self.___init__(points)
'''


def _got(src):
    return {(f.code, f.cls, f.attr) for f in analyse_source("m.py", src)}


def test_the_plain_definition_before_an_if_is_what_runs():
    assert _got(WRAPPED) == set()


def test_a_definition_only_under_the_if_still_counts():
    src = '''
import sys

class Box:
    def __init__(self):
        self.a = 1
    if sys.version_info >= (3, 8):
        def use(self):
            return self.b
'''
    assert ("PK003", "Box", "b") in _got(src)


def test_if_else_alternatives_are_read_as_before():
    src = '''
import sys

class Box:
    if sys.version_info >= (3, 8):
        def __init__(self):
            self.a = 1
    else:
        def __init__(self):
            self.b = 1
    def use(self):
        return self.b
'''
    # the else branch is the last definition the scan sees, as before this rule
    assert ("PK003", "Box", "b") not in _got(src)


def test_a_redefinition_that_keeps_no_alias_still_replaces_the_plain_one():
    """Only the wrapper shape (the block keeps the plain method under an alias) is left out: a
    version-gated redefinition, and a property setter under an ``if``, are read as before."""
    gated = '''
import sys

class Box:
    def __init__(self):
        self.a = 1
    if sys.version_info >= (3, 8):
        def __init__(self):
            self.a = 1
            self.b = 1
    def use(self):
        return self.b
'''
    assert not any(a == "b" for _c, _k, a in _got(gated))
    setter = '''
import sys

class Box:
    def __init__(self):
        self.x = 1
    @property
    def x(self):
        return self._x
    if sys.version_info >= (3, 8):
        @x.setter
        def x(self, v):
            self._x = v
'''
    assert not any(a == "_x" for _c, _k, a in _got(setter))
