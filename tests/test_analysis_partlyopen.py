"""A ``__getattr__`` that serves a configuration store opens a class for its configuration keys only
(patchkit/analysis/partlyopen.py): diffusers' ``ConfigMixin``/``ModelMixin``. Any other
``__getattr__`` that can return keeps the class open for every name."""
from __future__ import annotations

import ast

import pytest

from patchkit.analysis import analyse_source
from patchkit.analysis.partlyopen import serves_config

SERVING = {
    "diffusers ConfigMixin": """
def __getattr__(self, name):
    is_in_config = "_internal_dict" in self.__dict__ and hasattr(self.__dict__["_internal_dict"], name)
    if is_in_config and name not in self.__dict__:
        return self._internal_dict[name]
    raise AttributeError(name)""",
    "diffusers ModelMixin (hands the rest to nn.Module)": """
def __getattr__(self, name):
    if "_internal_dict" in self.__dict__ and name in self._internal_dict:
        return self._internal_dict[name]
    return super().__getattr__(name)""",
    "a named base's __getattr__": """
def __getattr__(self, key):
    if key in self.config:
        return self.config[key]
    return Base.__getattr__(self, key)""",
}
NOT_SERVING = {
    "a default for every name": """
def __getattr__(self, name):
    if name in self._config:
        return self._config[name]
    return None""",
    "a store not named for configuration": """
def __getattr__(self, name):
    if name in self._children:
        return self._children[name]
    raise AttributeError(name)""",
    "a computed value": """
def __getattr__(self, name):
    return getattr(self._wrapped, name)""",
    "falls off the end (returns None)": """
def __getattr__(self, name):
    if name in self.config:
        return self.config[name]""",
}


@pytest.mark.parametrize("name", sorted(SERVING))
def test_config_serving_getattr_is_recognised(name):
    assert serves_config(ast.parse(SERVING[name]).body[0])


@pytest.mark.parametrize("name", sorted(NOT_SERVING))
def test_other_getattrs_are_not(name):
    assert not serves_config(ast.parse(NOT_SERVING[name]).body[0])


def _cls(getattr_src: str, read: str) -> str:
    body = "\n".join("    " + line for line in getattr_src.strip().splitlines())
    return f"""
class Base:
{body}

class Scheduler(Base):
    def __init__(self, num_train_timesteps=1000):
        self.register_to_config(num_train_timesteps=num_train_timesteps, beta_start=0.1)
        self.timesteps = list(range(num_train_timesteps))

    def register_to_config(self, **kw):
        self._internal_dict = kw

    def step(self):
        return {read}
"""


@pytest.mark.parametrize("name", sorted(SERVING))
def test_a_serving_getattr_answers_for_parameters_and_registered_keys_only(name):
    """Parameters and registered keywords are never reported; a name no key and no store gives is."""
    src = SERVING[name]
    ok = [f for f in analyse_source("m.py", _cls(src, "self.num_train_timesteps + self.beta_start"))
          if f.attr in ("num_train_timesteps", "beta_start")]
    assert ok == []
    bad = analyse_source("m.py", _cls(src, "self.sigmas"))
    assert [(f.code, f.attr) for f in bad if f.attr == "sigmas"] == [("PK003", "sigmas")]


@pytest.mark.parametrize("name", sorted(NOT_SERVING))
def test_any_other_getattr_keeps_the_class_open(name):
    assert [f for f in analyse_source("m.py", _cls(NOT_SERVING[name], "self.sigmas")) if f.attr == "sigmas"] == []
