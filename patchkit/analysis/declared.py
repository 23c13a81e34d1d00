"""A declaration without a value (``attr: T`` in a class body) that nothing in the hierarchy
fulfils: a contract for subclasses or for the code that owns the instances, not a hole, unless
the tree shows the class is the incomplete one."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .injection import _index_for, _name_tails
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
        # built here, but a base declares it and code of the package stores it on the instances it
        # is handed (strawberry's ``extension.execution_context = ...`` on each extension it runs,
        # homeassistant's ``flow.issue_id = ...`` right after building the flow)
        owner_sets = owner_store(an, ci, attr) if decl is not ci else None
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


#: path words of code that sets objects up for a demonstration or a test, not for the package
_NOT_PACKAGE = re.compile(r"(?:^|[/_])(?:examples?|demos?|mocks?|fakes?|testutils?|testing|fixtures?)(?:[/_.]|$)")


def owner_store(an, ci, attr: str) -> Optional[str]:
    """``path:line`` of a store of ``attr`` in package code (not a test, an example or a mock) on an
    object named as a class of ``ci``'s hierarchy (a word tail of its name) that is not the storing
    method's own instance, when no class of the tree assigns
    ``self.<attr>`` in ``ci``'s module (another class's own attribute of that name beside it is the
    field bug's shape, not an owner's contract); else None."""
    idx = _index_for(an.project, ci)
    mine = ci.module.rel  # the index names files from its own root: a suffix of the module's
    if any(mine == rel or mine.endswith("/" + rel) for rel in idx.self_stores(attr)):
        return None  # a class beside it assigns its own: the field bug's shape
    tails = set().union(*(_name_tails(c.qualname.split(".")[-1]) for c in an.facts(ci).classes))
    for rel, line, recv, _fn, _cls in idx.outside_stores(attr):
        # on an object named as one of the hierarchy's classes: ``extension`` for a SchemaExtension,
        # ``plot.facet`` for a facet (argparse's ``args.enabled`` is not a Plugin)
        name = recv.id if isinstance(recv, ast.Name) else recv.attr if isinstance(recv, ast.Attribute) else ""
        if name.strip("_").replace("_", "").lower() in tails and not is_test_path(rel) and not _NOT_PACKAGE.search(rel):
            return f"{rel}:{line}"
    return None
