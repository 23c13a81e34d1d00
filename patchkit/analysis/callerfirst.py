"""A private method whose every caller assigns the attribute before calling it (set BL, configobj
5.0.9, 2026).

``ConfigObj.__init__`` runs ``self._initialise(options)`` (which stores ``self._errors = []``) and
then ``self._load(infile, configspec)``; ``_load`` reads ``self._errors`` after ``_parse`` and ends
with ``del self._errors``; ``reload()`` runs ``self._initialise(current_options)`` and then
``self._load(...)`` again (configobj/__init__.py:1221-1224, 2361-2362). The attribute is gone once
construction ends, but every read of it runs in a call that a fresh store precedes.

``callers_store_first`` holds when the method is private (one leading underscore, not a dunder),
has at least one caller among the MRO's methods, and each call is preceded by a fresh store: in the
caller's own body (top level), a statement that stores the attribute (``self.x = ...``, or
``self.h(...)`` whose method ``h`` of the MRO stores it at its top level) comes after the last
earlier call of the method and the last ``del self.x``, and the call is not repeated by a loop
when the method deletes the attribute itself (``for f in files: self._load(f)`` after one
``_initialise()`` fails the second time round). A private caller whose own callers all store
first passes the attribute on to each call it makes that no ``del`` or deleting call precedes
(three levels up at most). One index of the calls per MRO; results memoised.
"""
from __future__ import annotations

import ast

from .astutil import first_param
from .initsubclass import stores_on
from .severity import _private

DEPTH = 3
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class _Calls:
    """Per MRO: each method's first parameter and the ``self.<m>(...)`` names each of its top-level
    statements calls (one walk per method)."""

    def __init__(self, classes):
        self.classes = [c for c in classes if not c.module.external]
        self.methods: dict[str, tuple] = {}
        for c in self.classes:
            for name, fn in c.methods.items():
                if name in self.methods or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                me = first_param(fn)
                if me is None:
                    continue
                per = [frozenset(n.func.attr for n in ast.walk(st) if isinstance(n, ast.Call)
                                 and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                                 and n.func.value.id == me) for st in fn.body]
                self.methods[name] = (fn, me, per)
        self.memo: dict[tuple, bool] = {}

    def deletes(self, name: str, attr: str) -> bool:
        got = self.methods.get(name)
        return got is not None and _own_deletes(got[0], got[1], attr)

    def top_stores(self, name: str, attr: str) -> bool:
        got = self.methods.get(name)
        return got is not None and any(isinstance(st, (ast.Assign, ast.AnnAssign)) and
                                       attr in stores_on(st, got[1]) for st in got[0].body)


def _own_deletes(node: ast.AST, me: str, attr: str) -> bool:
    """``node`` (a statement or a whole method) runs ``del <me>.<attr>``."""
    return any(isinstance(n, ast.Delete) and any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                                                 and t.value.id == me for t in n.targets) for n in ast.walk(node))


def _each_call_fresh(idx: _Calls, caller: str, mname: str, attr: str, fresh: bool) -> bool:
    """Every top-level statement of ``caller`` that calls ``mname`` runs with the attribute stored
    since the last call or deletion; ``fresh``: stored when ``caller`` starts."""
    fn, me, per = idx.methods[caller]
    drops = idx.deletes(mname, attr)
    for st, called in zip(fn.body, per):
        if mname in called:
            if not fresh or (drops and isinstance(st, _LOOPS)):
                return False
            fresh = not drops and not _own_deletes(st, me, attr) and \
                not any(idx.deletes(m, attr) for m in called if m != mname)
            continue
        if _own_deletes(st, me, attr) or any(idx.deletes(m, attr) for m in called):
            fresh = False
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and attr in stores_on(st, me):
            fresh = True
        elif isinstance(st, ast.Expr) and len(called) == 1 and idx.top_stores(next(iter(called)), attr):
            fresh = True
    return True


def _first(idx: _Calls, mname: str, attr: str, depth: int) -> bool:
    key = (mname, attr, depth)
    if key in idx.memo:
        return idx.memo[key]
    idx.memo[key] = False  # a cycle of private callers proves nothing
    ok, seen = _private(mname) and depth > 0, False
    for caller, (_fn, _me, per) in idx.methods.items() if ok else ():
        if caller == mname or not any(mname in called for called in per):
            continue
        seen = True
        if not (_each_call_fresh(idx, caller, mname, attr, False) or
                (_first(idx, caller, attr, depth - 1) and _each_call_fresh(idx, caller, mname, attr, True))):
            ok = False
            break
    idx.memo[key] = got = ok and seen
    return got


def callers_store_first(classes, mname: str, attr: str) -> bool:
    """Every call of the private ``self.<mname>(...)`` in ``classes`` (an MRO) runs with ``attr``
    freshly stored (see the module's doc)."""
    from .astutil import memo_on
    idx = memo_on(classes[0], "_pk_caller_calls", lambda: _Calls(classes)) if classes else None
    return idx is not None and _first(idx, mname, attr, DEPTH)
