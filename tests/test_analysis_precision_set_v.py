"""Session 21's rules from set V (analyzer-precision-session21.md in
bench/results/analyzer-precision-history.tar.xz) that change a
finding's severity rather than remove it, so the rule examples (valid: no finding at all) cannot
hold them; each next to a case of the same shape that stays an error:

- an instance built by the class's ``from_*`` factory and given the attribute by the function that
  built it is set up after construction: a warning (two-phase), no longer an error (OpenNMT's
  ``DynamicDatasetIter.from_opt`` then ``data_iter.num_workers = ...``).
"""
from __future__ import annotations

import textwrap
from pathlib import Path

from _analysed_package import package_findings

ONMT_ITER = """
class DatasetIter:
    def __init__(self, corpora):
        self.corpora = corpora
    @classmethod
    def from_opt(cls, corpora):
        return cls(corpora)
    def init_datasets(self):
        return [c for c in self.corpora][: self.num_workers]
def build_iter(corpora):
    it = DatasetIter.%s(corpora)
    it.num_workers = 2
    return it
"""


def severities(tmp_path: Path, text: str) -> dict:
    return {(f.cls, f.attr, f.code): f.severity.value
            for f in package_findings(tmp_path, {"m.py": textwrap.dedent(text)})}


def test_a_from_factory_instance_set_up_by_its_builder_is_two_phase(tmp_path):
    assert severities(tmp_path, ONMT_ITER % "from_opt") == {("DatasetIter", "num_workers", "PK003"): "warning"}


def test_a_store_on_what_another_call_returns_is_no_evidence(tmp_path):
    """``DatasetIter.corpora_of(...)`` is not an alternative constructor by name: the store on its
    result says nothing about DatasetIter, and the read stays an error."""
    assert severities(tmp_path, ONMT_ITER % "corpora_of") == {("DatasetIter", "num_workers", "PK003"): "error"}
