"""Session 27's rules from set AE (analyzer-precision-session27.md in bench/results/analyzer-precision-history.tar.xz), each with a case of
the same shape that is still reported:

- ``isinstance(getattr(self, "x", None), T)`` or ``callable(getattr(self, "x", None))`` is true only
  when ``x`` exists (aider's ``RepoMap.tags_cache_error`` returns early when the cache is already a
  dict): the path where it holds is not one that misses ``x``;
- ``hasattr(self, "x")`` during construction, before any path stored ``x``, is false when only the
  class's own methods store it (quimb's ``D2BP._update_message_conditioner`` skips the sweeper's
  refresh while ``__init__`` has not built the sweeper);
- a class that assigns no instance attributes and whose owner sets the attribute on it from
  outside, on an object named for the class (flaml's ``AutoMLState``: ``state.data_size = ...``),
  is a holder: a warning that names the store, not the field bug's error, even when another class
  of its module assigns the same name on itself.
"""
from __future__ import annotations


import pytest

from _analysed_package import package_keys as findings



REPOMAP = """
class RepoMap:
    def __init__(self, root):
        self.root = root
        self.load_cache()

    def load_cache(self):
        try:
            self.CACHE = open(self.root)
        except OSError:
            self.cache_error()

    def cache_error(self):
        if {test}:
            return
        self.CACHE = dict()

    def get(self, key):
        return self.CACHE.get(key)
"""


@pytest.mark.parametrize("test", ['isinstance(getattr(self, "CACHE", None), dict)',
                                  'isinstance(getattr(self, "CACHE", None), (dict, list))',
                                  'callable(getattr(self, "CACHE", None))'])
def test_a_typed_getattr_guard_implies_the_attribute(tmp_path, test):
    assert not {f for f in findings(tmp_path, {"m.py": REPOMAP.format(test=test)}) if f[1] == "CACHE"}


@pytest.mark.parametrize("test", ['isinstance(getattr(self, "CACHE", None), (dict, type(None)))',
                                  'isinstance(getattr(self, "CACHE", None), object)',
                                  'isinstance(getattr(self, "CACHE", 0), int)',
                                  'isinstance(getattr(self, "OTHER", None), dict)'])
def test_a_test_the_default_can_pass_implies_nothing(tmp_path, test):
    got = findings(tmp_path, {"m.py": REPOMAP.format(test=test)})
    assert {f[:3] for f in got} == {("RepoMap", "CACHE", "PK001")}  # an error, or a warning for a flag of its own


D2BP = """
class Common:
    def __init__(self, tn):
        self.tn = tn


class D2BP(Common):
    def __init__(self, tn, power=1.0):
        super().__init__(tn)
        self._power = power
        self._refresh()
        {build}
        self._init_exprs()

    def _init_exprs(self):
        self.exprs = {{}}

    def _refresh(self):
        self.conditioner = self._power * 2
        if hasattr(self, "sweeper"):
            self.sweeper.touch(self.exprs)

    @property
    def power(self):
        return self._power

    @power.setter
    def power(self, p):
        self._power = p
        self._refresh()
"""


def test_hasattr_is_false_before_construction_stores_it(tmp_path):
    got = findings(tmp_path, {"m.py": D2BP.format(build="self.sweeper = list(tn)")})
    assert not {f for f in got if f[1] == "exprs"}


def test_hasattr_stays_open_when_construction_stored_it_first(tmp_path):
    # the sweeper exists before the refresh: the guarded read of exprs runs during construction
    text = D2BP.format(build="").replace("self._power = power\n", "self._power = power\n        self.sweeper = list(tn)\n")
    got = findings(tmp_path, {"m.py": text})
    assert ("D2BP", "exprs", "PK002", "error") in got


def test_hasattr_stays_open_when_other_code_stores_it(tmp_path):
    # a store from outside the class could have given the instance the attribute: no verdict
    got = findings(tmp_path, {"m.py": D2BP.format(build="self.sweeper = list(tn)"),
                              "owner.py": "def attach(bp, s):\n    bp.sweeper = s\n"})
    assert ("D2BP", "exprs", "PK002", "error") in got


HOLDER = """
class SearchState:
    def __init__(self, data_size):
        self.data_size = data_size


class AutoMLState:
    def sample(self, n):
        return n <= self.data_size[0]
"""


def test_a_stateless_holder_filled_by_its_owner_is_not_the_field_bug(tmp_path):
    owner = "def prepare(state, X):\n    state.data_size = X.shape\n"
    got = findings(tmp_path, {"m.py": HOLDER, "task.py": owner})
    assert ("AutoMLState", "data_size", "PK003", "warning") in got
    assert ("AutoMLState", "data_size", "PK003", "error") not in got


@pytest.mark.parametrize("owner", [None, "def prepare(other, X):\n    other.data_size = X.shape\n"])
def test_a_stateless_class_with_the_attribute_in_another_class_keeps_the_error(tmp_path, owner):
    # nothing named for the class fills it from outside: the assignment landed in the other class
    got = findings(tmp_path, {"m.py": HOLDER, **({"task.py": owner} if owner else {})})
    assert ("AutoMLState", "data_size", "PK003", "error") in got
