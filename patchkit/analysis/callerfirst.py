"""A private method whose every caller assigns the attribute before calling it (set BL, configobj
5.0.9, 2026).

``ConfigObj.__init__`` runs ``self._initialise(options)`` (which stores ``self._errors = []``) and
then ``self._load(infile, configspec)``; ``_load`` reads ``self._errors`` after ``_parse`` and ends
with ``del self._errors``; ``reload()`` runs ``self._initialise(current_options)`` and then
``self._load(...)`` again (configobj/__init__.py:1221-1224, 2361-2362). The attribute is gone once
construction ends, but every read of it runs in a call that a fresh store precedes.

``callers_store_first`` holds when the method is private (one leading underscore, not a dunder),
has at least one caller among the MRO's methods, and each caller either stores the attribute in a
statement of its own body (top level) before the statement holding the call (``self.x = ...``, or
``self.h(...)`` whose method ``h`` of the MRO stores it at its top level), or is itself a private
method whose callers all do (three levels up at most).
"""
from __future__ import annotations

import ast

from .astutil import first_param
from .initsubclass import stores_on

DEPTH = 3


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def _calls(node: ast.AST, me: str, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
               and isinstance(n.func.value, ast.Name) and n.func.value.id == me for n in ast.walk(node))


def _top_stores(fn, me: str) -> set:
    """What the top-level statements of ``fn`` store on ``me`` (not under a branch)."""
    out = set()
    for st in fn.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            out |= stores_on(ast.Module(body=[st], type_ignores=[]), me)
    return out


def _stores_before(classes, fn, me: str, stmt: ast.stmt, attr: str) -> bool:
    for st in fn.body:
        if st is stmt:
            return False
        if attr in stores_on(ast.Module(body=[st], type_ignores=[]), me) and isinstance(st, (ast.Assign, ast.AnnAssign)):
            return True
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute) \
                and isinstance(st.value.func.value, ast.Name) and st.value.func.value.id == me:
            helper = next((c.methods[st.value.func.attr] for c in classes if st.value.func.attr in c.methods), None)
            hme = first_param(helper) if isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if hme and attr in _top_stores(helper, hme):
                return True
    return False


def callers_store_first(classes, mname: str, attr: str, depth: int = DEPTH) -> bool:
    """Every caller of the private ``self.<mname>(...)`` in ``classes`` (an MRO) stores ``attr`` first."""
    if not _private(mname) or depth == 0:
        return False
    seen = False
    for c in classes:
        if c.module.external:
            continue
        for caller, fn in c.methods.items():
            me = first_param(fn) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if me is None or caller == mname or not _calls(fn, me, mname):
                continue
            seen = True
            holders = [st for st in fn.body if _calls(st, me, mname)]
            if not all(_stores_before(classes, fn, me, st, attr) for st in holders) and \
                    not callers_store_first(classes, caller, attr, depth - 1):
                return False
    return seen
