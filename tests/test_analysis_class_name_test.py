"""A test of the instance's class name (``self.__class__.__name__ == "AdamW"``, ``type(self).__name__
in (...)``) is decided for each concrete class judged, in construction and in the methods read
after it. paddle's ``Optimizer._maybe_refuse`` returns unless ``self.__class__.__name__ ==
'AdamW'`` and then reads ``self._need_refuse``, which only ``Optimizer.__init__`` (run by AdamW) sets;
the analyzer reported it on ``AMPOptimizer`` (a labelled false positive, family class-flag-guard)."""
from __future__ import annotations

import ast

import pytest

from patchkit.analysis import analyse_source
from patchkit.analysis.conditions import class_name_truth

OPTIMIZER = '''
class Optimizer:
    def __init__(self, lr):
        self.lr = lr
        self._need_refuse = False

    def step(self):
        if self.__class__.__name__ != "AdamW":
            return None
        return self._need_refuse


class AMPOptimizer(Optimizer):
    def __init__(self, inner):  # a wrapper: it never runs Optimizer.__init__
        self.inner = inner


class AdamW(Optimizer):
    pass
'''


def _errors(src):
    return {(f.cls, f.attr) for f in analyse_source("m.py", src) if f.severity.value in ("error", "warning")}


def test_classes_of_other_names_never_reach_the_read():
    assert _errors(OPTIMIZER) == set()


def test_the_named_class_is_still_judged():
    named = OPTIMIZER.replace("class AMPOptimizer(Optimizer):", "class AdamW(Optimizer):", 1).replace(
        "class AdamW(Optimizer):\n    pass", "class Plain(Optimizer):\n    pass")
    assert ("AdamW", "_need_refuse") in _errors(named)


def test_another_test_of_the_name_is_undecided():
    other = OPTIMIZER.replace('if self.__class__.__name__ != "AdamW":', 'if self.__class__.__name__ != self.kind:')
    assert ("AMPOptimizer", "_need_refuse") in _errors(other)


def test_construction_decides_the_test_for_the_class_being_built():
    src = """
class Base:
    def __init__(self):
        if type(self).__name__ in ("Fast", "Faster"):
            self.kernel = object()

    def run(self):
        if type(self).__name__ == "Fast":
            return self.kernel
        return None


class Fast(Base):
    pass


class Slow(Base):
    pass
"""
    assert _errors(src) == set()
    unguarded = src.replace('        if type(self).__name__ == "Fast":\n            return self.kernel', '        return self.kernel')
    assert _per_class(unguarded, "Slow") and not _per_class(unguarded, "Fast")
    why = [f.why for f in analyse_source("m.py", unguarded) if f.attr == "kernel"]
    assert why and "runs without reaching the assignment" in why[0]


def _per_class(src, name):
    """The findings of one class (analyse_source reports a read once, on the first class it holds for)."""
    from patchkit.analysis.checker import Analyzer
    from patchkit.analysis.project import Project
    project = Project(None)
    mod = project.add_source("m.py", src)
    return [(f.code, f.attr) for f in Analyzer(project).check_class(mod.classes[name], set())]


@pytest.mark.parametrize("test,name,truth", [
    ('self.__class__.__name__ == "A"', "A", True),
    ('self.__class__.__name__ == "A"', "B", False),
    ('type(self).__name__ != "A"', "A", False),
    ('type(self).__name__ in ("A", "B")', "B", True),
    ('self.__class__.__name__ not in ["A", "B"]', "C", True),
    ('not self.__class__.__name__ == "A"', "A", False),
])
def test_class_name_truth(test, name, truth):
    assert class_name_truth(ast.parse(test, mode="eval").body, "self", name) is truth


def test_a_bare_class_cell_is_the_defining_class_in_source_and_the_instance_s_in_a_fact():
    test = ast.parse('__class__.__name__ == "A"', mode="eval").body
    assert class_name_truth(test, "self", "A") is None  # source: the defining class's cell
    assert class_name_truth(test, "self", "A", fact_form=True) is True  # a fact's spelling of self.__class__


def test_code_elsewhere_storing_a_class_keeps_the_test_undecided():
    src = OPTIMIZER + """

def upgrade(opt):
    opt.__class__ = AdamW
"""
    assert ("PK003", "_need_refuse") in _per_class(src, "AMPOptimizer")


@pytest.mark.parametrize("test", ['self.__class__.__name__ == other', 'other.__class__.__name__ == "A"',
                                  'self.__class__.__qualname__ == "A"', 'self.__class__.__name__.startswith("A")'])
def test_other_tests_are_not_decided(test):
    assert class_name_truth(ast.parse(test, mode="eval").body, "self", "A") is None
