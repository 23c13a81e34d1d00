"""A conditional expression's test is decided where an ``if`` statement's would be: a parameter
the call binds, a class constant. vllm-omni 0.30.0's ``DreamZeroState.reset`` runs
``saved = [] if clear_video_latents else list(self.video_latents_across_time)`` from ``__init__``
with the default ``True``; the ``else`` read was a false PK002 in set AJ. The same call with
``False`` still reads it before any assignment."""
from __future__ import annotations

import pytest

from patchkit.analysis import analyse_source

RESET = '''
class State:
    def __init__(self):
        {call}

    def reset(self, *, clear: bool = True):
        saved = {expr}
        self.items = saved
'''


def _got(src):
    return {(f.code, f.attr) for f in analyse_source("m.py", src)}


@pytest.mark.parametrize("expr", ["[] if clear else list(self.items)", "list(self.items) if not clear else []"])
def test_the_branch_the_bound_parameter_rules_out_is_not_walked(expr):
    assert _got(RESET.format(call="self.reset()", expr=expr)) == set()
    assert _got(RESET.format(call="self.reset(clear=True)", expr=expr)) == set()


@pytest.mark.parametrize("expr", ["[] if clear else list(self.items)", "list(self.items) if not clear else []"])
def test_the_branch_the_call_takes_is_still_judged(expr):
    assert ("PK002", "items") in _got(RESET.format(call="self.reset(clear=False)", expr=expr))


def test_an_unknown_test_walks_both_branches():
    src = RESET.replace("def reset(self, *, clear: bool = True)", "def reset(self, *, clear=None)").format(
        call="self.reset(clear=input())", expr="[] if clear else list(self.items)")
    assert ("PK002", "items") in _got(src)


def test_a_class_constant_decides_it_too():
    src = '''
class Model:
    USE_CACHE = False

    def __init__(self):
        self.size = self.cache.size if self.USE_CACHE else 0
        self.cache = None
'''
    assert _got(src) == set()
    assert ("PK002", "cache") in _got(src.replace("USE_CACHE = False", "USE_CACHE = True"))


@pytest.mark.parametrize("test", ["saved = [] if self._clear else list(self.items)",
                                  "saved = list(self.items)\n        if self._clear:\n            saved = []"])
def test_a_class_default_construction_already_replaced_is_not_taken_inside_a_deep_call(test):
    """Calls three deep are walked once as summaries from a state that stores nothing: a test of a
    class default there cannot be decided by "not stored yet" (a review of session 32 found the
    conditional expression, and the `if` before it, hiding this PK002)."""
    src = f'''
class State:
    _clear = True

    def __init__(self):
        self._clear = False
        self.a()
        self.items = []

    def a(self):
        self.b()

    def b(self):
        self.reset()

    def reset(self):
        {test}
        self.items = saved
'''
    assert ("PK002", "items") in _got(src)
