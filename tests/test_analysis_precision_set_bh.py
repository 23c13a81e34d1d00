"""Session 43's rules from set BH (bench/results/analyzer-precision-session43.md), each with the
cases of the same shape that stay reported.

1. A method an instance attribute hides: construction stores ``self.m = <value>`` on every path,
   so the inherited ``m`` (and what it reads) never runs (pyx 0.18's ``flexlineaxispos_pt``).
2. ``Base.__init__(self)`` of a class behind an unreadable base: the class-level names of that
   class are the instance's (pybrain 0.3's ``Module.bufferlist = None``, read by ``Module.__init__``).
3. A base nobody builds whose every subclass overrides the method holding the read (pybrain's
   ``MaskedParameters`` overriding ``TopologyEvolvable``'s ``paramdim`` and ``mutate``): a warning.
4. Call-site evidence for an injection takes lowercase class names (deeptools 3.5.6's
   ``hm = heatmapper.heatmapper()`` handed to ``plotMatrix(hm, ...)``, which sets ``hm.startLabel``).
5. A classmethod factory's ``obj = cls(...)`` / ``obj, reused = super().make(...)`` is an instance
   it sets up (joblib 1.6.0's ``MemmappingExecutor._temp_folder_manager``).
6. ``new = copy.copy(self); new.task = ...`` in a method: another instance set up by its class
   (rocketry 2.5.1's ``TaskCond._set_task``).
"""
from __future__ import annotations

import pytest

from _analysed_package import package_keys as findings


def _errors(got):
    return {(k[0], k[1]) for k in got if k[3] == "error"}


def _warnings(got):
    return {(k[0], k[1]) for k in got if k[3] == "warning"}


LINE = """
class Line:
    def __init__(self, x1):
        self.x1 = x1

    def point(self, v):
        return self.x1 * v

    def direction(self, v):
        return self.fixed
"""

FLEX = """
from .base import Line


class Flex(Line):
    def __init__(self, point, direction, cond=True):
        {body}

    def path(self, v):
        return self.point(v), self.direction(v)
"""


@pytest.mark.parametrize("body, reported", [
    ("self.point = point\n        self.direction = direction", set()),
    # stored only on one path: the inherited methods may run
    ("if cond:\n            self.point = point\n        self.direction = direction", {("Flex", "x1")}),
    # the stored value is the bound method itself, wrapped: it still runs
    ("self.point = wrap(self.point)\n        self.direction = direction", {("Flex", "x1")}),
])
def test_a_method_an_instance_attribute_hides_never_runs(tmp_path, body, reported):
    src = FLEX.format(body=body) + "\n\ndef wrap(f):\n    return f\n"
    got = _errors(findings(tmp_path, {"base.py": LINE, "flex.py": src}))
    assert {g for g in got if g[0] == "Flex"} == reported, got


def test_a_base_method_called_explicitly_is_not_hidden(tmp_path):
    src = FLEX.format(body="self.point = point\n        self.direction = direction").replace(
        "return self.point(v), self.direction(v)", "return Line.point(self, v)")
    got = _errors(findings(tmp_path, {"base.py": LINE, "flex.py": src}))
    assert ("Flex", "x1") in got, got


def test_a_property_is_not_hidden_by_a_store(tmp_path):
    base = """
    class Base:
        def __init__(self):
            self._v = 0
            self.cache = {}

        @property
        def value(self):
            return self.cache

        @value.setter
        def value(self, v):
            self._v = v
    """
    sub = """
    from .base import Base


    class Sub(Base):
        def __init__(self):
            self.value = 3
    """
    got = _errors(findings(tmp_path, {"base.py": base, "sub.py": sub}))
    assert ("Sub", "cache") in got, got


UNREADABLE = """
from nowhere_to_be_found import Named


class Module(Named):
    bufferlist = None

    def __init__(self, indim):
        self.bufferlist = [] if not self.bufferlist else self.bufferlist
        self.bufferlist += [("inputbuffer", indim)]
        self.indim = indim
"""

LAYER = """
from nowhere_either import NeuronLayer
from .module import Module


class MultiplicationLayer(NeuronLayer):
    def __init__(self, dim):
        Module.__init__(self, 2 * dim)
        {extra}
"""


def test_class_names_of_an_explicit_init_behind_an_unreadable_base(tmp_path):
    got = findings(tmp_path, {"module.py": UNREADABLE, "layer.py": LAYER.format(extra="")})
    assert ("MultiplicationLayer", "bufferlist") not in _errors(got), got


CONTAINER = """
class ParameterContainer:
    def __init__(self, paramdim):
        self.paramdim = paramdim
        self._params = [0.0] * paramdim

    def mutate(self):
        return [p + 1 for p in self._params[: self.paramdim]]
"""

TOPOLOGY = """
from .container import ParameterContainer


class TopologyEvolvable(ParameterContainer):
    def __init__(self, inner):
        self.inner = inner
"""

MASKED = """
from .topology import TopologyEvolvable


class MaskedParameters(TopologyEvolvable):
    def __init__(self, inner):
        TopologyEvolvable.__init__(self, inner)

    {override}
"""


@pytest.mark.parametrize("override, expected", [
    ("def mutate(self):\n        return self.inner", ("TopologyEvolvable", "_params", "PK003", "warning")),
    # the subclass keeps the base's mutate: its instances fail there
    ("def other(self):\n        return 1", ("MaskedParameters", "_params", "PK003", "error")),
])
def test_a_base_nobody_builds_whose_subclasses_override_the_reader(tmp_path, override, expected):
    got = findings(tmp_path, {"container.py": CONTAINER, "topology.py": TOPOLOGY,
                              "masked.py": MASKED.format(override=override)})
    assert expected in got, got
    assert not _errors(got) & {("TopologyEvolvable", "_params")}, got


def test_a_base_built_by_name_keeps_its_error(tmp_path):
    got = findings(tmp_path, {"container.py": CONTAINER, "topology.py": TOPOLOGY + "\n\nDEFAULT = TopologyEvolvable(None)\n",
                              "masked.py": MASKED.format(override="def mutate(self):\n        return self.inner")})
    assert ("TopologyEvolvable", "_params") in _errors(got), got


HEATMAPPER = """
class heatmapper:
    def __init__(self):
        self.matrix = None

    def ticks(self):
        return self.startLabel, self.endLabel
"""

PLOT = """
from . import heatmapper


def plot(hm, start):
    {stores}
    return hm.ticks()


def main():
    hm = heatmapper.{built}()
    return plot(hm, "TSS")
"""


@pytest.mark.parametrize("built, stores, reported", [
    ("heatmapper", "hm.startLabel = start\n    hm.endLabel = 'TES'", False),
    ("other", "hm.startLabel = start\n    hm.endLabel = 'TES'", True),   # another class handed over
    ("heatmapper", "pass", True),                                        # nobody stores them
])
def test_a_lowercase_class_handed_to_a_function_that_sets_it_up(tmp_path, built, stores, reported):
    got = findings(tmp_path, {"heatmapper.py": HEATMAPPER, "plot.py": PLOT.format(built=built, stores=stores)})
    assert (("heatmapper", "startLabel") in _errors(got)) == reported, got


EXECUTOR = """
class Reusable:
    @classmethod
    def get_reusable(cls, n):
        return cls(n), False

    def __init__(self, n):
        self.n = n


class Memmapping(Reusable):
    @classmethod
    def get(cls, n):
        {bind}
        executor._manager = object()
        return executor

    def terminate(self):
        return self._manager


class Pool:
    def __init__(self):
        self._manager = None  # another class's own attribute of that name: not every store is an injection
"""


@pytest.mark.parametrize("bind, reported", [
    ("executor, reused = super().get_reusable(n)", False),
    ("executor = cls(n)", False),
    ("executor = make(n)", True),       # no evidence it is an instance of the class
])
def test_a_classmethod_factory_sets_up_the_instance_it_builds(tmp_path, bind, reported):
    src = EXECUTOR.format(bind=bind) + "\n\ndef make(n):\n    return object()\n"
    got = findings(tmp_path, {"executor.py": src})
    assert (("Memmapping", "_manager") in _errors(got)) == reported, got


TASKCOND = """
import copy


class TaskCond:
    def __init__(self, syntax):
        self.syntax = syntax

    def with_task(self, task):
        {copy}
        new.task = task
        return new

    def get_state(self):
        return self.task.last_success
"""


@pytest.mark.parametrize("copy, reported", [
    ("new = copy.copy(self)", False),
    ("new = copy.deepcopy(self)", False),
    ("new = copy.copy(task)", True),    # a copy of something else
])
def test_a_copy_of_self_set_up_by_its_own_class(tmp_path, copy, reported):
    got = findings(tmp_path, {"cond.py": TASKCOND.format(copy=copy)})
    assert (("TaskCond", "task") in _errors(got)) == reported, got
