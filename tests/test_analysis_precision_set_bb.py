"""Session 40's rules from sets BB/BC (analyzer-precision-session40.md in bench/results/analyzer-precision-history.tar.xz), each with the
cases of the same shape that stay reported.

1. ``Registry().register(self, value)`` calls ``register`` on the object ``Registry()`` returns, with
   the instance as an argument: it does not run ``Registry.register`` on the instance, as
   ``Registry.register(self, value)`` would (glue-core 1.28.0's ``Subset.label`` setter; the
   analyzer reported ``Subset._registry`` and ``Subset._disable`` read during construction).
2. The "did you mean" hint of PK003 no longer names the property the read is in (pyNN 0.13.0's
   ``Morphology.soma_index`` reading ``self._soma_index``).
"""
from __future__ import annotations

import textwrap

from _analysed_package import package_findings
from patchkit.analysis import analyse_source


def _errors(src: str) -> set[tuple[str, str]]:
    return {(f.cls, f.attr) for f in analyse_source("m.py", textwrap.dedent(src)) if f.severity.value == "error"}


def _reported(src: str) -> set[tuple[str, str]]:
    return {(f.cls, f.attr) for f in analyse_source("m.py", textwrap.dedent(src))}


REGISTRY = """
class Registry:
    def __init__(self):
        self._registry = {{}}

    def register(self, obj, label):
        reg = self._registry
        reg[obj] = label
        return label


class Subset:
    def __init__(self, label):
        self.label = label

    @property
    def label(self):
        return self._label

    @label.setter
    def label(self, value):
        value = {call}
        self._label = value
"""


def test_a_method_of_a_built_object_handed_the_instance_does_not_run_on_the_instance():
    for call in ("Registry().register(self, value)", "Registry().register(obj=self, label=value)",
                 "make()[0].register(self, value)"):
        assert not _errors(REGISTRY.format(call=call)), call


def test_an_unbound_call_handed_the_instance_still_runs_on_it():
    """``Registry.register(self, value)`` (no call before the dot) runs the method on the instance,
    which has no ``_registry``: still an error, as it is at run time."""
    assert ("Subset", "_registry") in _errors(REGISTRY.format(call="Registry.register(self, value)"))


BASE_HELPER = """
class Base:
    def __init__(self):
        self.ready = True

    def setup(self):
        self.size = 1


class Sub(Base):
    def __init__(self):
        {call}

    def go(self):
        return self.size
"""


def test_a_base_helper_called_unbound_or_through_a_generic_alias_still_counts():
    for call in ("Base.setup(self)", "Base[int].setup(self)", "type(self).setup(self)"):
        assert ("Sub", "size") not in _errors(BASE_HELPER.format(call=call)), call


def test_a_helper_run_on_a_fresh_base_object_does_not_assign_on_the_instance():
    """``Base().setup()`` sets ``size`` on a new ``Base``, not on ``self`` (reported as set up
    outside construction, a warning, like any attribute only a method construction never calls
    assigns)."""
    assert ("Sub", "size") in _reported(BASE_HELPER.format(call="Base().setup()"))
    assert ("Sub", "size") not in _reported(BASE_HELPER.format(call="Base.setup(self)"))



MORPHOLOGY = """
class Morphology:
    def __init__(self):
        self.section_groups = {}

    @property
    def soma_index(self):
        return self._soma_index
"""


def test_the_did_you_mean_hint_does_not_name_the_property_the_read_is_in(tmp_path):
    """pyNN 0.13.0's ``Morphology.soma_index`` reads ``self._soma_index``, which only the neuron
    backend's cell template stores from outside (``self.morphology._soma_index = 0``): still an
    error (a store on an object merely named as the class is no evidence: on the labelled corpus
    it would have hidden six real bugs, biopython's ``Records.db`` among them), but no "did you
    mean self.soma_index?"."""
    [f] = [f for f in package_findings(tmp_path, {"morphology.py": MORPHOLOGY}) if f.attr == "_soma_index"]
    assert f.severity.value == "error" and "did you mean self.soma_index" not in f.hint
