"""A class whose call returns a class, not an instance (set BM, spyne 2.14.0, 2026).

spyne's ``SimpleModel.__new__(cls, **kwargs)`` returns ``cls.customize(**kwargs)``, and
``customize`` returns ``type(cls_name, cls_bases, cls_dict)``: ``File(...)`` is a new class, so
``File.__repr__``, which reads ``self.name``, ``self.path``, ``self.type``, ``self.data``, never
runs on an instance ``File(...)`` made. The errors of such a class become warnings that say so.

The ``__new__`` the class runs (the first of its MRO) must return, on every ``return``, a call
``cls.<m>(...)`` of a classmethod of the MRO whose every ``return`` is a three-argument
``type(...)`` call or a name bound to one; anything else (an instance, ``super().__new__(cls)``,
a branch that returns something else) leaves the class as judged."""
from __future__ import annotations

import ast
from typing import Optional

from .astutil import dotted, first_param, memo_on
from .demote import demote_named, open_errors


class _Every:
    def __contains__(self, name) -> bool:
        return True


def _type_call(e) -> bool:
    return isinstance(e, ast.Call) and dotted(e.func) == "type" and len(e.args) == 3


def _returns_a_type(fn) -> bool:
    made = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) and _type_call(n.value)
            for t in n.targets if isinstance(t, ast.Name)}
    rets = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return)]
    return bool(rets) and all(_type_call(v) or (isinstance(v, ast.Name) and v.id in made) for v in rets)


def returns_a_class(classes) -> Optional[str]:
    """Why calling the first class of the MRO ``classes`` makes a class, or None."""
    new = next(((c, c.methods["__new__"]) for c in classes if "__new__" in c.methods), None)
    if new is None or not isinstance(new[1], ast.FunctionDef):
        return None
    owner, fn = new
    cls = first_param(fn)
    rets = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return)]
    names = set()
    for v in rets:
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and isinstance(v.func.value, ast.Name)
                and v.func.value.id == cls):
            return None
        names.add(v.func.attr)
    if not names:
        return None
    for m in names:
        holder = next((c for c in classes if m in c.methods), None)
        if holder is None or holder.method_kind.get(m) != "class" or not _returns_a_type(holder.methods[m]):
            return None
    return (f"calling it returns a class, not an instance ({owner.qualname}.__new__ returns "
            f"cls.{sorted(names)[0]}(...), a type() call)")


def demote_class_returning(an, ci, findings: list) -> list:
    todo = open_errors(findings)
    if not todo:
        return findings
    why = memo_on(ci, "_pk_returns_a_class", lambda: returns_a_class(an.facts(ci).classes))
    return demote_named(findings, todo, [(_Every(), why)]) if why else findings
