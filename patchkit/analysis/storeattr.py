"""fastcore's ``store_attr``: ``store_attr()`` in ``__init__`` assigns every parameter of the calling
function to ``self`` (fastai builds most of its classes this way); ``store_attr('a,b')`` only those
names; ``but='c'`` leaves names out; ``self=obj`` stores on another object. Modelled from its
documented behaviour, as a library table: the name is matched on its last dotted part."""
from __future__ import annotations

import ast
from typing import Optional

from .astutil import dotted


def _names(node: Optional[ast.expr]) -> Optional[list[str]]:
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    raise ValueError("not a literal")


def stored_names(call: ast.Call, fn: ast.AST, selfname: str) -> Optional[list[str]]:
    """The attributes ``call`` assigns on ``selfname`` when it is a ``store_attr`` call made in ``fn``;
    None when it is not one (or stores on another object); ValueError when its names are computed."""
    if not isinstance(call, ast.Call) or (dotted(call.func) or "").split(".")[-1] != "store_attr":
        return None
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    target = kw.get("self")
    if target is not None and not (isinstance(target, ast.Name) and target.id == selfname):
        return None
    names = _names(call.args[0] if call.args else kw.get("names"))
    if names is None:
        args = getattr(fn, "args", None)
        if args is None:
            return []
        params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        names = [p for p in params if p != selfname]
    but = set(_names(kw.get("but")) or [])
    return [n for n in names if n not in but]
