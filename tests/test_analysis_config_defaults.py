"""A ``__getattr__`` serving a configuration store answers for the keys the store starts from when
``__init__`` copies it from a dict display in the class body (``self.config =
self._defaults.copy()``: vllm-ascend 0.23.0's ``EplbConfig``, whose ``_validate_config`` reads
``self.expert_map_path`` during construction; four false PK002 groups of set AK). A name that is
no key of the defaults is still judged as in a closed class."""
from __future__ import annotations

import pytest

from patchkit.analysis import analyse_source

EPLB = '''
class EplbConfig:
    _defaults = {{
        "dynamic_eplb": False,
        "expert_map_path": None,
    }}

    def __init__(self, user_config=None):
        self.config = {copy}
        for key, value in (user_config or {{}}).items():
            if key not in self.config:
                raise ValueError(key)
            self.config[key] = value
        self._validate_config()

    def __getattr__(self, key):
        if key in self.config:
            return self.config[key]
        raise AttributeError(key)

    def _validate_config(self):
        if self.{read} is not None:
            return True
        return False
'''


def _found(src):
    return {(f.code, f.attr) for f in analyse_source("m.py", src) if f.severity.value in ("error", "warning")}


@pytest.mark.parametrize("copy", ["self._defaults.copy()", "dict(self._defaults)", "{**self._defaults}",
                                  "copy.deepcopy(self._defaults)", "EplbConfig._defaults.copy()"])
def test_a_default_key_read_through_the_getattr_is_served(copy):
    assert _found(EPLB.format(copy=copy, read="expert_map_path")) == set()


def test_a_name_the_defaults_lack_is_still_judged():
    assert ("PK002", "expert_map_paths") in _found(EPLB.format(copy="self._defaults.copy()", read="expert_map_paths"))


def test_a_store_that_does_not_start_from_the_defaults_answers_for_nothing_more():
    assert ("PK002", "expert_map_path") in _found(EPLB.format(copy="{}", read="expert_map_path"))


@pytest.mark.parametrize("variant", [
    ("self.config = {}", "self.config = {}\n        config = self._defaults.copy()"),  # a local
    ("self.config = {}", "self.config = {}\n        self.config_backup = self._defaults.copy()"),  # another store
    ("self.config = {}", "self.config = {}\n        self.config = other._defaults.copy()"),  # not this class's
])
def test_only_the_served_store_copied_from_this_class_s_defaults_counts(variant):
    src = EPLB.format(copy="{}", read="expert_map_path").replace("self.config = {}", variant[1].replace(
        "other._defaults", "OTHER._defaults"), 1)
    src = "class OTHER:\n    _defaults = {'expert_map_path': None}\n" + src
    assert ("PK002", "expert_map_path") in _found(src)
