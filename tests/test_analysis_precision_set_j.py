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
