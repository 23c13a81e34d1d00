"""Rules from set J (seed 39, session 10), each with the counterpart that stays an error."""
from __future__ import annotations

from _analysed_package import package_findings

ANNOTATED_NEW = '''
class Template:
    def __new__(cls, source):
        return cls._from_namespace({"name": source})

    @classmethod
    def _from_namespace(cls, namespace):
        t: "Template" = object.__new__(cls)
        t.globals = {}
        t.name = namespace["name"]
        return t

    def render(self):
        return self.globals, self.name
'''


def test_an_annotated_new_in_a_factory_builds_the_instance(tmp_path):
    """jinja2's ``Template._from_namespace`` builds every template with
    ``t: Template = object.__new__(cls)`` and sets its attributes (2 false groups): an annotated
    assignment is the same alternative constructor as a plain one (before: errors)."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"m.py": ANNOTATED_NEW})}
    assert found[("Template", "globals")].severity != "error" and found[("Template", "name")].severity != "error"


SIBLINGS = '''
class _BaseGrid:
    def set(self, **kws):
        for ax in self._figure.axes:
            ax.set(**kws)


class Grid(_BaseGrid):
    def __init__(self):
        self._margin = 0

    def tight_layout(self):
        return self._figure.tight_layout()


class FacetGrid(Grid):
    def __init__(self):
        super().__init__()
        self._figure = object()


class JointGrid(_BaseGrid):
    def __init__(self):
        self._figure = object()


class Worker:
    def __init__(self):
        self.size = 1

    def step(self):
        return self.threshold


class DraftWorker:
    def __init__(self):
        self.threshold = 4
'''


def test_a_sibling_under_a_common_base_is_the_same_family(tmp_path):
    """seaborn's ``Grid`` reads ``self._figure``, which its subclasses set, and so does its sibling
    ``JointGrid`` under ``_BaseGrid`` (10 errors in one false group). A class with no base in common
    that sets the attribute is the field bug's shape and keeps the error."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"m.py": SIBLINGS}) if f.severity == "error"}
    assert ("Grid", "_figure") not in found, found
    assert ("Worker", "threshold") in found
