"""An early exit on a conjunction settles its last open operand: after ``if partial and not
hasattr(self, "m"): raise``, a read of ``self.m`` under ``partial`` has ``m``. NeMo's
``unfreeze(partial=True)``, vendored by vllm-omni 0.30.0 (``_frozen_grad_map``), was a false
positive of set AJ."""
from __future__ import annotations

import pytest

from patchkit.analysis import analyse_source
from patchkit.analysis.conditions import Fact
from patchkit.analysis.presence import implied_by_exclusion

MODULE = '''
class Module:
    def __init__(self):
        self.params = {{}}

    def freeze(self):
        self._frozen = dict(self.params)

    def unfreeze(self, partial=False):
        if {exit_test}:
            raise ValueError("freeze first")
        for name in self.params:
            if not partial:
                continue
            if name in self._frozen:
                return self._frozen[name]
        return None
'''


def _reads_of_frozen(src):
    return [f for f in analyse_source("m.py", src) if f.attr == "_frozen"]


@pytest.mark.parametrize("exit_test", ['partial and not hasattr(self, "_frozen")',
                                       'not hasattr(self, "_frozen") and partial',
                                       'partial and getattr(self, "_frozen", None) is None'])
def test_the_exit_settles_the_attribute_under_the_other_operand(exit_test):
    assert _reads_of_frozen(MODULE.format(exit_test=exit_test)) == []


@pytest.mark.parametrize("exit_test", ['partial and not self.params', 'not hasattr(self, "_frozen") and self.params'])
def test_other_exits_settle_nothing(exit_test):
    assert _reads_of_frozen(MODULE.format(exit_test=exit_test))


def test_implied_by_exclusion_needs_every_other_operand_true():
    false_conj = Fact("partial and (not hasattr(self, 'm'))", False)
    assert implied_by_exclusion({false_conj, Fact("partial", True)}, "self") == {"m"}
    assert implied_by_exclusion({false_conj}, "self") == set()
    assert implied_by_exclusion({false_conj, Fact("partial", False)}, "self") == set()
    three = Fact("a and b and (not hasattr(self, 'm'))", False)
    assert implied_by_exclusion({three, Fact("a", True)}, "self") == set()
    assert implied_by_exclusion({three, Fact("a", True), Fact("b", True)}, "self") == {"m"}


@pytest.mark.parametrize("between", ["partial = other", "del self._frozen", 'delattr(self, "_frozen")'])
def test_nothing_is_inferred_past_a_rebinding_or_a_deletion(between):
    src = MODULE.format(exit_test='partial and not hasattr(self, "_frozen")').replace(
        "def unfreeze(self, partial=False):", "def unfreeze(self, partial=False, other=None):").replace(
        "        for name in self.params:", f"        {between}\n        for name in self.params:", 1)
    assert _reads_of_frozen(src)


def test_an_instance_flag_and_a_local_of_the_same_name_are_not_confused():
    src = MODULE.format(exit_test='self.partial and not hasattr(self, "_frozen")').replace(
        "def __init__(self):\n        self.params = {}",
        "def __init__(self, partial=None):\n        self.params = {}\n        self.partial = partial")
    assert _reads_of_frozen(src)
