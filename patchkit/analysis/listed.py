"""Computed stores bounded by a class-level list. ``setattr(self, key, value)`` that runs only for a
``key`` in ``self.<list>`` (vispy's ``BaseCamera.set_state``: ``if key not in self._state_props:
raise KeyError(...)``) stores the strings of that list and nothing else. The list is looked up as the
instance sees it: the first class of its MRO whose body assigns it, with ``Base._state_props +
('rect',)`` followed to the named class. A class is then closed for every other name (vispy 0.4.0's
``FlyCamera`` reading the ``_distance`` only its sibling sets); a list it cannot read keeps it
dynamic, as any other computed store."""
from __future__ import annotations

import ast
from typing import Optional

from .model import ClassInfo


def listed_names(classes: list[ClassInfo], holder: str) -> Optional[frozenset]:
    """The strings of the class attribute ``holder`` along ``classes`` (an MRO's tree classes), or
    None when no class body assigns it or its value is not built from string literals."""
    return _value_of(classes, holder, 0)


def _value_of(classes: list[ClassInfo], holder: str, depth: int, start: int = 0) -> Optional[frozenset]:
    if depth > 8:
        return None
    for i, c in enumerate(classes[start:], start):
        value = _body_value(c, holder)
        if value is not None:
            return _strings(value, classes, i, depth)
    return None


def _body_value(c: ClassInfo, holder: str) -> Optional[ast.expr]:
    """The value the class body gives ``holder`` last, if it does."""
    got = None
    for st in c.node.body:
        if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == holder for t in st.targets):
            got = st.value
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == holder and st.value:
            got = st.value
    return got


def _strings(v: ast.expr, classes: list[ClassInfo], at: int, depth: int) -> Optional[frozenset]:
    if isinstance(v, (ast.Tuple, ast.List, ast.Set)):
        if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in v.elts):
            return frozenset(e.value for e in v.elts)
        return None
    if isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Add, ast.BitOr)):
        a, b = _strings(v.left, classes, at, depth + 1), _strings(v.right, classes, at, depth + 1)
        return a | b if a is not None and b is not None else None
    if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name):
        # ``Base._state_props``: that class's value, a class of the MRO after this one
        for j, c in enumerate(classes[at + 1:], at + 1):
            if c.qualname.split(".")[-1] == v.value.id:
                return _value_of(classes, v.attr, depth + 1, j)
    return None
