"""Session 44's rule from set BI (bench/results/analyzer-precision-session44.md), with the cases of
the same shape that stay reported.

``self[k] = v`` runs the class's ``__setitem__``, and a ``__setitem__`` that does
``setattr(self, key, value)`` is a computed store, reachable as ``obj[name] = v`` from anywhere:
trove 26.0.0's ``ModelBase.__setitem__``, which ``DatabaseModelBase.__init__`` feeds every keyword
of the constructor through ``merge_attributes`` (13 of trove's 18 sampled error groups, all false).
"""
from __future__ import annotations

import pytest

from _analysed_package import package_keys as findings

BASE = """
class ModelBase(object):
    def __setitem__(self, key, value):
        setattr(self, key, value)

    def __getitem__(self, key):
        return getattr(self, key)
"""

MODELS = """
from pkg import base


class DatabaseModelBase(base.ModelBase):
    def __init__(self, **kwargs):
        {pre}self.merge_attributes(kwargs)
        if not self.is_valid():
            raise ValueError(self.errors)

    def merge_attributes(self, values):
        for k, v in values.items():
            self[k] = v

    def is_valid(self):
        self.errors = {{}}
        self._validate(self.errors)
        return self.errors == {{}}

    def _validate(self, errors):
        pass


class DBInstance(DatabaseModelBase):
    def __init__(self, task_status, **kwargs):
        kwargs["task_id"] = task_status
        super().__init__(**kwargs)

    def _validate(self, errors):
        if self.task_id is None:
            errors["task_id"] = "bad"


class SecurityGroup(DatabaseModelBase):
    def delete(self):
        return self.id
"""


def _errors(got):
    return {(k[0], k[1]) for k in got if k[3] == "error"}


def test_keywords_stored_through_setitem_are_computed_stores(tmp_path):
    got = _errors(findings(tmp_path, {"base.py": BASE, "models.py": MODELS.format(pre="")}))
    assert got == set(), got


def test_a_read_before_the_first_item_store_stays_an_error(tmp_path):
    # construction reads the name before any computed store can have given it
    got = _errors(findings(tmp_path, {"base.py": BASE, "models.py": MODELS.format(pre="print(self.token)\n        ")}))
    assert ("DatabaseModelBase", "token") in got, got  # one finding per line, on the class that reads it


@pytest.mark.parametrize("init, reported", [
    # the item store runs __setitem__, which reads self._data before __init__ sets it
    ("self['a'] = 1\n        self._data = {}", True),
    ("self._data = {}\n        self['a'] = 1", False),
])
def test_an_item_store_during_construction_runs_setitem(tmp_path, init, reported):
    src = f"""
class Bag:
    def __init__(self):
        {init}

    def __setitem__(self, key, value):
        self._data[key] = value
"""
    got = _errors(findings(tmp_path, {"bag.py": src}))
    assert (("Bag", "_data") in got) is reported, got


def test_a_librarys_item_stores_are_not_followed(tmp_path):
    # litellm 1.110.2's _OperationRoutes: UserDict.__init__() with no mapping never calls
    # self.update(), whose `self[key] = value` would reach this __setitem__ (the labelled diff's gain)
    src = """
from collections import UserDict


class Routes(UserDict):
    def __init__(self, initial):
        super().__init__()
        self.data = dict(initial)
        self.written = set()

    def __setitem__(self, name, owner):
        self.data[name] = owner
        self.written.add(name)
"""
    got = _errors(findings(tmp_path, {"routes.py": src}))
    assert ("Routes", "written") not in got, got
