"""Decorators that store on the instance before the decorated method's body runs. MDAnalysis's
``@store_init_arguments`` wraps every reader's ``__init__``: its wrapper sets ``self._kwargs``
(under ``if not hasattr(self, "_kwargs"):``) and only then calls the initialiser, whose body reads
``self._kwargs``. diffusers' ``@register_to_config`` wraps ``__init__`` in a wrapper that first calls
``self.register_to_config(...)`` (which sets ``self._internal_dict``): such methods run at entry too.
Read, never imported: the decorator must be a function of the analysed tree."""
from __future__ import annotations

import ast

from .astutil import decorator_name, dotted, fast_walk, memo_on


def entry_stores(project, module, fn: ast.FunctionDef) -> frozenset:
    """Attributes every decorator of ``fn`` (a function of the tree) has stored on the instance
    when the body of ``fn`` starts; computed once per function."""
    return memo_on(fn, "_pk_entry_stores", lambda: frozenset().union(*(
        memo_on(d, "_pk_wrapper_stores", lambda d=d: _wrapper_stores(d)) for d in _decorators(project, module, fn))))


def entry_calls(project, module, fn: ast.FunctionDef) -> tuple:
    """Methods of the instance every decorator of ``fn`` calls before the body of ``fn`` starts
    (``getattr(self, "register_to_config")(...)`` or ``self.setup(...)`` in the wrapper)."""
    return memo_on(fn, "_pk_entry_calls", lambda: tuple(dict.fromkeys(
        m for d in _decorators(project, module, fn) for m in memo_on(d, "_pk_wrapper_calls", lambda d=d: _wrapper_calls(d)))))


def _decorators(project, module, fn: ast.FunctionDef) -> list:
    """The decorators of ``fn`` that are functions of the tree, as their definitions."""
    out = []
    for dec in fn.decorator_list:
        name = decorator_name(dec)
        found = project.resolve_function(module, name) if name and project is not None else None
        if found is not None:
            out.append(found[1])
    return out


def _wrapper_calls(deco: ast.FunctionDef) -> tuple:
    """The methods of its first parameter a wrapper inside ``deco`` calls, as statements of its own
    top level, before it calls the wrapped function."""
    params = [a.arg for a in deco.args.posonlyargs + deco.args.args]
    if len(params) != 1:
        return ()
    func = params[0]
    for inner in deco.body:
        if not isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) or not inner.args.args:
            continue
        me = inner.args.args[0].arg
        called: list = []
        for st in inner.body:
            if _calls(st, func):
                return tuple(called)
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                m = _method_of(st.value.func, me)
                if m is not None:
                    called.append(m)
    return ()


def _method_of(f, me: str):
    """``me.m`` or ``getattr(me, "m")`` -> "m", else None."""
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == me:
        return f.attr
    if isinstance(f, ast.Call) and dotted(f.func) == "getattr" and len(f.args) == 2 and \
            isinstance(f.args[0], ast.Name) and f.args[0].id == me and isinstance(f.args[1], ast.Constant) and \
            isinstance(f.args[1].value, str):
        return f.args[1].value
    return None


def _wrapper_stores(deco: ast.FunctionDef) -> frozenset:
    """``def deco(func): ... def wrapper(self, *a, **k): self.x = ...; return func(self, *a, **k)``:
    what the wrapper stores on its first parameter, at its top level or under ``if not
    hasattr(self, "x"):``, before its first call of ``func``."""
    params = [a.arg for a in deco.args.posonlyargs + deco.args.args]
    if len(params) != 1:
        return frozenset()
    func = params[0]
    found: set = set()
    for inner in deco.body:
        if not isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) or not inner.args.args:
            continue
        me = inner.args.args[0].arg
        stored: set = set()
        for st in inner.body:
            if _calls(st, func):
                found |= stored
                break
            if isinstance(st, ast.If) and _not_hasattr(st.test, me) is not None:
                key = _not_hasattr(st.test, me)
                if key in _stores(st.body, me):
                    stored.add(key)
            else:
                stored |= _stores([st], me) if isinstance(st, (ast.Assign, ast.AnnAssign)) else set()
    return frozenset(found)


def _calls(st: ast.stmt, func: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == func for n in fast_walk(st))


def _not_hasattr(test: ast.expr, me: str):
    """``not hasattr(me, "x")`` -> "x", else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Call):
        c = test.operand
        if dotted(c.func) == "hasattr" and len(c.args) == 2 and isinstance(c.args[0], ast.Name) and \
                c.args[0].id == me and isinstance(c.args[1], ast.Constant) and isinstance(c.args[1].value, str):
            return c.args[1].value
    return None


def _stores(body: list, me: str) -> set:
    """Attributes of ``me`` assigned by the top-level statements of ``body``."""
    out = set()
    for st in body:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                out.add(t.attr)
    return out
