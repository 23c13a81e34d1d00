"""A declaration without a value (``attr: T`` in a class body) that nothing in the hierarchy
fulfils: a contract for subclasses or for the code that owns the instances, not a hole, unless
the tree shows the class is the incomplete one."""
from __future__ import annotations

from typing import Optional

from .injection import _index_for
from .severity import is_test_path


def declared_contract(an, ci, f, attr) -> Optional[str]:
    """``attr: T`` (no value) in a class body of the MRO, nothing in the hierarchy assigns it, and no
    code in the analysed tree builds ``ci``: the declaration is a contract that subclasses or the
    code that owns the instances fulfil (airflow's ``BaseDBManager.metadata``, completed by provider
    packages), as on an abstract base, when ``ci`` declares it itself or its own subclasses provide
    it. A class the tree does build keeps the error unless package code (not a test) stores the
    attribute on an object other than its own instance, an owner's injection; and a leaf that
    inherits the declaration while other subclasses of the declarer provide it keeps the error."""
    from .mixins import built_in_tree
    owner = next((c for c in f.classes if attr in c.classvar_decls and not c.module.external), None)
    if owner is not None:  # ``x: ClassVar[T]`` and no value: set on the class from elsewhere (falcon's app)
        return f"{owner.qualname} declares `{attr}` a ClassVar without a value (set on the class elsewhere?)"
    if f.field_class or any(c.field_kind for c in f.classes):
        return None  # a dataclass-like class: ``x: T`` is a field its generated __init__ sets
    decl = next((c for c in f.classes if attr in c.annotated_only and not c.module.external), None)
    if decl is None:
        return None
    owner_sets = None
    if built_in_tree(an, ci):
        # built here, but code of the package stores it on the instances it is handed
        # (strawberry's ``extension.execution_context = ...`` on each extension it runs,
        # homeassistant's ``flow.issue_id = ...`` right after building the flow)
        owner_sets = owner_store(an, ci, attr)
        if owner_sets is None:
            return None
    # declared by a base: a class that inherits the declaration and leaves it out while other
    # subclasses of the declarer fulfil it is the incomplete subclass (pykeen's
    # CountScoreConsumer.flatten); where no class of the tree fulfils it (sympy's MatrixCommon under
    # MatrixRequired's `rows: int`), or ci's own subclasses do, it is a contract
    if decl is not ci and not an._descendant_provides(ci, attr) and an._descendant_provides(decl, attr):
        return None  # other subclasses of the declarer fulfil it: ci is the incomplete one
    if owner_sets:
        return f"{decl.qualname} declares `{attr}` without a value and {owner_sets} sets it on another object (its owner?)"
    return (f"{decl.qualname} declares `{attr}` without a value and no code in view builds {ci.qualname} "
            f"(a contract for subclasses or owners?)")


def owner_store(an, ci, attr: str) -> Optional[str]:
    """``path:line`` of a store of ``attr`` outside a test file on an object that is not the storing
    method's own instance, or None."""
    for rel, line, _recv, _fn, _cls in _index_for(an.project, ci).outside_stores(attr):
        if not is_test_path(rel):
            return f"{rel}:{line}"
    return None
