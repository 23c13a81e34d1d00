"""A property's setter that reads its own getter (``self.events.total(value=self.total)``) is not a
recursive call: the walk keys the methods it is inside by their ``def``, not by name, since getter
and setter share one. Keyed by name, the getter's run inside the setter looked like recursion, every
construction path through ``self.total = ...`` was dropped, and the class reported nothing (napari
0.4.17's ``progress``, whose ``self.desc`` read after ``tqdm.__init__`` was the bug)."""
from __future__ import annotations

import textwrap

from hypothesis import given, settings, strategies as st

from patchkit.analysis import analyse_source

SRC = '''
class Counter:
    def __init__(self, start):
        self.total = start
        print(self.missing)

    @property
    def total(self):
        return self._total

    @total.setter
    def total(self, value):
        self._total = value
        {use}
'''

USES = ["print(self.total)", "self.changed(value=self.total)", "assert self.total == value",
        "if self.total < 0:\n            raise ValueError(value)", "pass"]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(USES))
def test_a_setter_that_reads_its_getter_still_lets_construction_go_on(use):
    src = textwrap.dedent(SRC).replace("{use}", use.replace("\n", "\n        "))
    got = {(f.code, f.attr) for f in analyse_source("m.py", src)}
    assert ("PK002", "missing") in got, (use, got)
    assert not any(attr == "_total" for _code, attr in got), got  # the setter stores it before the getter runs


def test_true_recursion_is_still_cut():
    src = textwrap.dedent('''
    class Tree:
        def __init__(self, n):
            self.walk(n)
            print(self.leaf)

        def walk(self, n):
            if n:
                self.walk(n - 1)
            else:
                self.leaf = 0
    ''')
    got = {(f.code, f.attr) for f in analyse_source("m.py", src)}
    assert ("PK002", "leaf") not in got, got  # the recursive call returns only through the base case
