"""``if getattr(self, "g", False):`` is a guard like ``hasattr(self, "g")`` that also needs ``g``
truthy. vllm-omni 0.30.0's ``MiniMaxH3Qwen3VLEncoder`` reads ``self._omni_layerwise_hooks`` under
``getattr(self, "_omni_layerwise_enabled", False)``; the offloader sets both names on the module from
outside, together (a false PK003 in set AJ). Where the class itself sets the guard on a path that
leaves the attribute out, the read stays an error."""
from __future__ import annotations

import pytest

from patchkit.analysis import analyse_source
from patchkit.analysis.coassign import EXISTS, TRUTHY, guard_attrs
from patchkit.analysis.conditions import Fact

OUTSIDE = '''
class Encoder:
    def __init__(self, layers):
        self.layers = layers

    def forward(self, x):
        if getattr(self, "_offload_enabled", {default}):
            for hook in self._offload_hooks:
                hook(x)
        return x


def enable_offload(module, hooks):
    module._offload_hooks = hooks
    module._offload_enabled = True
'''


def _errors(src):
    return {(f.code, f.attr) for f in analyse_source("m.py", src) if f.severity.value == "error"}


@pytest.mark.parametrize("default", ["False", "None", "0", "()", "[]", "''"])
def test_both_names_from_outside_under_a_getattr_guard_are_not_an_error(default):
    assert _errors(OUTSIDE.format(default=default)) == set()


def test_a_truthy_default_is_no_guard():
    assert ("PK003", "_offload_hooks") in _errors(OUTSIDE.format(default="True"))


def test_the_class_setting_the_guard_without_the_attribute_stays_an_error():
    src = OUTSIDE.format(default="False") + '''
class Cached(Encoder):
    def warm(self):
        self._offload_enabled = True
'''
    assert ("PK003", "_offload_hooks") in _errors(src)


def test_guard_attrs_reads_the_getattr_form():
    got = guard_attrs({Fact("getattr(self, '_on', False)", True)})
    assert set(got) == {("_on", TRUTHY), ("_on", EXISTS)}
    assert guard_attrs({Fact("getattr(self, '_on', False)", False)}) == []
    assert guard_attrs({Fact("getattr(self, '_on', 1)", True)}) == []
