"""Decorators that swallow what the decorated method raises: a read inside such a method cannot
surface as an AttributeError to its caller (nncf's ``@skip_if_raised`` telemetry methods: the
wrapper calls the method inside ``try: ... except Exception: log``). Read, never imported: the
decorator must be a module-level function of the analysed tree."""
from __future__ import annotations

import ast
from typing import Optional

from .astutil import decorator_name, dotted, memo_on

#: handlers that catch an AttributeError
_CATCHES = {"Exception", "BaseException", "AttributeError"}


def swallowing_decorator(project, module, fn: ast.FunctionDef) -> Optional[str]:
    """The name of a decorator of ``fn`` whose wrapper calls the wrapped function inside a ``try``
    whose handler catches AttributeError and does not re-raise, else None."""
    for dec in fn.decorator_list:
        name = decorator_name(dec)
        if not name or project is None:
            continue
        found = project.resolve_function(module, name)
        if found is not None and memo_on(found[1], "_pk_swallows", lambda d=found[1]: _swallows(d)):
            return name
    return None


def _swallows(deco: ast.FunctionDef) -> bool:
    """``def deco(func): def wrapped(*a, **k): try: func(*a, **k) except Exception: ...``"""
    params = [a.arg for a in deco.args.posonlyargs + deco.args.args]
    if len(params) != 1:
        return False
    wrapped = params[0]
    for inner in deco.body:
        if not isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(inner):
            if isinstance(node, ast.Try) and _calls(node.body, wrapped) and \
                    any(_catches(h) and not _reraises(h) for h in node.handlers):
                return True
    return False


def _calls(body: list, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
               for s in body for n in ast.walk(s))


def _catches(h: ast.ExceptHandler) -> bool:
    if h.type is None:
        return True
    types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
    return any((dotted(t) or "").split(".")[-1] in _CATCHES for t in types)


def _reraises(h: ast.ExceptHandler) -> bool:
    return any(isinstance(n, ast.Raise) for s in h.body for n in ast.walk(s))
