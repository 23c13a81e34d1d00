"""What an owner object builds its ``self.<owned>`` as when it builds it through a class attribute
(``self.header = self.header_class()`` with ``header_class = LatexHeader``): the evidence that a
store ``self.header.latex = ...`` in the owner is a store on a ``LatexHeader``. astropy's ascii
readers build every header, data, splitter and inputter object this way."""
from __future__ import annotations

import ast
from typing import Optional

from .astutil import bfs_walk, dotted


def named_in_body(cls: ast.ClassDef, keys) -> set[str]:
    """Short names of the classes ``cls``'s body binds to any of ``keys`` (``data_class = BaseData``)."""
    out = set()
    for st in cls.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None:
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if any(isinstance(t, ast.Name) and t.id in keys for t in targets):
                name = dotted(st.value)
                if name:
                    out.add(name.split(".")[-1])
    return out


def class_attr_built(cls: ast.ClassDef, value: ast.expr, selfname: Optional[str]) -> set[str]:
    """``self.data_class()`` where the owner's class body says ``data_class = BaseData``: {"BaseData"}
    (astropy's readers build their header and data objects through such class attributes)."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and
            isinstance(value.func.value, ast.Name) and value.func.value.id == selfname):
        return set()
    return named_in_body(cls, {value.func.attr})


def factory_built(cls: ast.ClassDef, owned: str, ctors) -> set[str]:
    """The classes an owner's ``self.<owned>`` is built as when a base elsewhere in the tree builds
    it through a class attribute (``self.header = self.header_class()`` in astropy's BaseReader) and
    the owner's body, or the body of a direct subclass in its module, names the class there
    (``header_class = LatexHeader`` in ``Latex``, ``header_class = AASTexHeader`` in
    ``AASTex(Latex)``)."""
    index = getattr(ctors, "index", None)
    if index is None:
        return set()
    keys = index.factory_attrs(owned)
    if not keys:
        return set()
    owners = [cls]
    tree = index.parsed(ctors.rel) if ctors.rel else None
    if tree is not None:
        owners += [c for c in bfs_walk(tree) if isinstance(c, ast.ClassDef) and c is not cls and
                   any((dotted(b) or "").split(".")[-1] == cls.name for b in c.bases)]
    return set().union(*(named_in_body(owner, keys) for owner in owners))
