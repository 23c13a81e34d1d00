"""What ``__init_subclass__`` gives every subclass at class creation: the class attributes it
stores on ``cls``, itself or through a helper of its module it hands ``cls`` to."""
from __future__ import annotations

import ast

from .astutil import dotted
from .model import ClassInfo


def init_subclass_stores(c: ClassInfo) -> frozenset:
    """``cls.x = ...`` / ``setattr(cls, "x", ...)`` in ``c.__init_subclass__``: class attributes of
    every subclass of ``c`` from the moment it is created (numba's ``ThreadLocalStack``); also what a
    helper of the same module that it hands ``cls`` to stores on it (pyomo's ``AutoSlots.Mixin``:
    ``AutoSlots.collect_autoslots(cls)`` sets ``cls.__auto_slots__``)."""
    fn = c.methods.get("__init_subclass__")
    if fn is None or not fn.args.args and not fn.args.posonlyargs:
        return frozenset()
    cls = (fn.args.posonlyargs + fn.args.args)[0].arg
    out = set(stores_on(fn, cls))
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == cls for a in n.args):
            helper = _module_helper(c.module, dotted(n.func) or "")
            if helper is not None:
                params = [a.arg for a in helper.args.posonlyargs + helper.args.args]
                i = next(i for i, a in enumerate(n.args) if isinstance(a, ast.Name) and a.id == cls)
                if i < len(params):
                    out |= stores_on(helper, params[i])
    return frozenset(out)


def stores_on(fn, name: str) -> set:
    """Attribute names ``fn`` stores on its local ``name`` (``name.x = ...``, ``setattr(name, "x", ...)``)."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == name:
                    out.add(t.attr)
        elif isinstance(n, ast.Call) and dotted(n.func) == "setattr" and len(n.args) >= 2 and \
                isinstance(n.args[0], ast.Name) and n.args[0].id == name and \
                isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
            out.add(n.args[1].value)
    return out


def _module_helper(mod, name: str):
    """The function ``name`` names in ``mod``: a top-level ``def``, or ``Class.method`` of a class of
    the module (a staticmethod taking the class); else None."""
    if "." not in name:
        return next((s for s in mod.tree.body if isinstance(s, ast.FunctionDef) and s.name == name), None)
    owner, meth = name.rsplit(".", 1)
    k = mod.classes.get(owner)
    return k.methods.get(meth) if k is not None else None
