"""Kills the analyzer mutant the suite let live (issue 21, item 7): ``super()`` must resolve from
the class that DEFINES the running method, not from the concrete class being constructed. From
the concrete class, ``super().__init__()`` inside an inherited ``__init__`` finds that same
``__init__`` again, the walk sees a recursion, drops the path and misses the read after it."""
from __future__ import annotations

from patchkit.analysis import analyse_source

HOOK = '''
class A:
    def __init__(self):
        self.build()


class B(A):
    def __init__(self):
        super().__init__()
        self.y = self.x

    def build(self):
        self.x = 1


class C(B):
    def build(self):
        self.other = 2
'''

THREE_LEVELS = '''
class A:
    def __init__(self):
        self.x = 1


class B(A):
    def __init__(self):
        super().__init__()
        self.y = self.x


class C(B):
    def __init__(self):
        super().__init__()
        self.z = self.x + self.y
'''

HELPER = '''
class A:
    def setup(self):
        self.x = 1


class B(A):
    def setup(self):
        super().setup()
        self.y = 2


class C(B):
    def __init__(self):
        self.setup()
        self.z = self.x + self.y


class D(B):
    def setup(self):
        self.y = 3

    def __init__(self):
        self.setup()
        self.z = self.x
'''


def errors(src: str) -> set[tuple[str, str, str]]:
    return {(f.code, f.cls, f.attr) for f in analyse_source("m.py", src) if f.severity.value == "error"}


def test_super_in_an_inherited_init_runs_the_defining_class_base():
    """C inherits B.__init__; its super().__init__() is A.__init__, whose self.build() is C.build,
    which does not set x: the read of self.x in B.__init__ fails for C (and only for C)."""
    assert errors(HOOK) == {("PK002", "C", "x")}


def test_a_chain_of_super_inits_assigns_everything():
    assert errors(THREE_LEVELS) == set()


def test_super_helper_resolves_along_the_defining_class():
    # C: C.__init__ -> B.setup -> super().setup() = A.setup sets x: clean.
    # D: D.setup overrides without super(): x is never set.
    assert errors(HELPER) == {("PK002", "D", "x")}
