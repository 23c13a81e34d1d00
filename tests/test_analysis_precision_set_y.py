"""Session 23's rules from set Y (analyzer-precision-session23.md in bench/results/analyzer-precision-history.tar.xz) across modules,
which the single-module rule examples cannot hold:

- a torch ``Module`` first in the bases does not hide a method it lacks: ``self._init_irreps(...)``
  runs the mixin imported from another module (nequip's ``SaveForOutput(torch.nn.Module,
  GraphModuleMixin)``), while ``__init__`` and torch's own methods stay torch's;
- a subclass in another module whose ``__init__`` reads, after its ``super().__init__()``, what a base's
  try body stored: the paths where the base swallowed the error end at that read (fastNLP's
  samplers); the same subclass without the read keeps the base's may-be-unassigned finding.
"""
from __future__ import annotations

import textwrap

import pytest

from _analysed_package import package_findings

MIXIN = """
class GraphModuleMixin:
    def _init_irreps(self, irreps_in=None):
        self.irreps_in = dict(irreps_in or {})
        self.irreps_out = dict(self.irreps_in)
    def __init__(self):
        self.from_mixin_init = True
"""

MODULE = """
import torch
from .mixin import GraphModuleMixin
class SaveForOutput(torch.nn.Module, GraphModuleMixin):
    def __init__(self, field, irreps_in=None):
        super().__init__()
%s
        self.irreps_out[field] = self.irreps_in[field]
    def flag(self):
        return self.from_mixin_init
"""


def findings(tmp_path, files):
    return {(f.cls, f.attr, f.code, f.severity.value)
            for f in package_findings(tmp_path, {k: textwrap.dedent(v) for k, v in files.items()})}


def test_a_method_the_torch_module_lacks_runs_the_mixin_from_another_module(tmp_path):
    got = findings(tmp_path, {"mixin.py": MIXIN, "misc.py": MODULE % "        self._init_irreps(irreps_in=irreps_in)"})
    assert not {g for g in got if g[1] in ("irreps_in", "irreps_out")}, got
    # __init__ is still torch's: nn.Module.__init__ does not chain to the mixin's, so what only the
    # mixin's __init__ stores is never assigned on this class
    assert ("SaveForOutput", "from_mixin_init", "PK003", "error") in got, got


def test_without_the_call_the_mixins_attributes_are_read_unassigned(tmp_path):
    got = findings(tmp_path, {"mixin.py": MIXIN, "misc.py": MODULE % "        pass"})
    assert {("SaveForOutput", "irreps_in", "PK002", "error"), ("SaveForOutput", "irreps_out", "PK002", "error")} <= got, got


BASE = """
import warnings
class ReproducibleBatchSampler:
    def __init__(self, dataset, length):
        try:
            self.length = [int(n) for n in length]
            self.sorted_indices = sorted(range(len(self.length)), key=self.length.__getitem__)
        except (TypeError, ValueError) as exc:
            warnings.warn(f"cannot sort by length: {exc}")
"""

SUB = """
from .base import ReproducibleBatchSampler
class BucketedBatchSampler(ReproducibleBatchSampler):
    def __init__(self, dataset, length):
        super().__init__(dataset, length)
%s
        self.dataset = dataset
    def __iter__(self):
        return iter(self.sorted_indices[: len(self.length)])
"""


@pytest.mark.parametrize("checked", [True, False])
def test_a_subclass_read_after_the_base_swallowed_an_error_ends_those_paths(tmp_path, checked):
    line = "        assert len(self.sorted_indices) == len(dataset)" if checked else "        pass"
    got = findings(tmp_path, {"base.py": BASE, "sub.py": SUB % line})
    later = {g for g in got if g[0] == "BucketedBatchSampler" and g[2] == "PK001"}
    if checked:
        assert not later, got
        assert ("BucketedBatchSampler", "sorted_indices", "PK002", "warning") in got, got
    else:
        assert {("BucketedBatchSampler", "sorted_indices", "PK001", "error"),
                ("BucketedBatchSampler", "length", "PK001", "error")} <= later, got


SWEEP = """
class SweepLine:
    __slots__ = ("intersections", %s)
    def __init__(self):
        self.intersections = {}
    def add(self, p):
        self.queue.offer(p)
"""

QUEUE = """
from .sweep import SweepLine
class EventQueue:
    def __init__(self, segments, line):
        self.events = list(segments)
%s
    def offer(self, p):
        self.events.append(p)
def isect(segments):
    line = SweepLine()
    queue = EventQueue(segments, line)
    return line, queue
"""


@pytest.mark.parametrize("slot, store, severity", [
    ('"queue"', "        line.queue = self", "warning"),  # imgaug's SweepLine: reserved, filled by the queue
    ('"queue"', "        line.intersections = {}", "error"),  # reserved, but nothing fills it
    ('"other"', "        line.queue = self", "error"),  # no slot for it: a store on some object is no evidence
    # filled only when there is something to queue (biopython's _ExtraIndices.initialize returns first)
    ('"queue"', "        if not self.events:\n            return\n        line.queue = self", "error"),
    ('"queue"', "        if self.events:\n            line.queue = self", "error"),
])
def test_a_slot_the_class_reserves_and_another_module_fills_is_a_warning(tmp_path, slot, store, severity):
    got = findings(tmp_path, {"sweep.py": SWEEP % slot, "queue.py": QUEUE % store})
    assert ("SweepLine", "queue", "PK003", severity) in got, got
