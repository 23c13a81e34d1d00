"""A base nobody builds, whose subclasses each give the attribute: habitat-lab's
``BooleanObjectState`` (documented as abstract) skips ``ObjectStateSpec.__init__``, which sets
``accepted_semantic_classes``, and its only subclasses ``ObjectIsClean`` and ``ObjectIsPoweredOn``
set it in their own ``__init__``. Judged as a class of its own it would fail, but no code in
the tree builds it (not by name, not handed on as a value): its reads are the subclasses', and
they are judged on their own. Such an error becomes a warning that says so, where a base of its
MRO sets the attribute in an initialiser it skips (an attribute no class of its MRO sets is the
field bug's shape, and stays an error: tests/test_analysis_precision_set_au.py)."""
from __future__ import annotations

from dataclasses import replace

from .model import ClassInfo

_INIT = ("__init__", "__post_init__", "__new__", "__attrs_post_init__")


def _gives(an, leaf: ClassInfo, base: ClassInfo, attr: str) -> bool:
    """A class of ``leaf``'s MRO before ``base`` assigns ``attr`` in an initialiser, or binds it in
    its class body."""
    for k in an.facts(leaf).classes:
        if k is base:
            return False
        if attr in k.class_names or any(m in _INIT for m, _ln in k.assigned_in.get(attr, ())):
            return True
    return False


def demote_template_base(an, ci: ClassInfo, findings: list) -> list:
    from ..ftypes import Severity
    from .mixins import _handed_as_value, built_in_tree
    todo = [x for x in findings if x.severity == Severity.ERROR and x.code in ("PK001", "PK003") and x.attr]
    if not todo:
        return findings
    leaves = sorted((d for d in an._descendants(ci) if not an._direct_subclasses(d)), key=lambda d: d.qualname)
    if not leaves or built_in_tree(an, ci) or _handed_as_value(an.project, ci) or ci.node.decorator_list:
        return findings  # a class decorator may register it, and a registry may build it
    # only a base initialiser it skips sets it: a template's own __init__ that forgets an attribute
    # no class of its MRO sets is the field bug's shape (EAGLEWorkerV2), and stays an error
    bases = [k for k in an.facts(ci).classes if k is not ci]
    out = []
    for x in findings:
        if x in todo and any(x.attr in k.assigned_in for k in bases) and all(_gives(an, d, ci, x.attr) for d in leaves):
            names = ", ".join(d.qualname for d in leaves[:3]) + (f", +{len(leaves) - 3} more" if len(leaves) > 3 else "")
            x = replace(x, severity=Severity.WARNING,
                        why=f"{x.why}; no code in view builds {ci.qualname}, and each of its subclasses ({names}) assigns it")
        out.append(x)
    return out
