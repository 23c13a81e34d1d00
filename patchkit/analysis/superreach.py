"""Overridden methods a class still runs: ``super().m(...)``, ``super(Cls, self).m(...)`` and
``Base.m(self, ...)`` in a method the class runs reach the next definition of ``m`` in its MRO.

The reads after construction are judged in every *effective* method of a class's MRO (the one the
MRO picks for each name). An override that extends its base (``def __exit__(self, *exc): ...;
return super().__exit__(*exc)``) also runs the base's body, on this class's instance: a read there
of an attribute only the base's own (overridden) ``__enter__`` stores fails on this class as surely
as a read in an inherited method. :func:`super_reached` adds those base methods, transitively, to
what afterconstruction.py judges.

A ``super()`` call is resolved along the class's MRO from the class that defines the calling
method; a library class met on the way may define the method itself, so the call is left alone
then, as it is when the method is found nowhere in view."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from .astutil import fast_walk, first_param, memo_on
from .classbody import NOT_CHECKED_METHODS
from .model import ClassInfo


def super_reached(f, judged: Iterable[tuple[ClassInfo, str, ast.AST]], skip=frozenset()) -> list[tuple[ClassInfo, str, ast.AST]]:
    """(class, method name, function) of the overridden definitions of the MRO ``f.linear`` (a
    ClassFacts) that the methods ``judged`` reach through ``super()`` or an explicit
    ``Base.m(self, ...)``, transitively, none of them already in ``judged``. ``skip``: qualified
    method names (``Cls.m``) whose calls are not followed (construction helpers, judged on the
    construction paths)."""
    todo = list(judged)
    done = {(c.key, name) for c, name, _fn in todo}
    out: list = []
    while todo:
        c, name, fn = todo.pop()
        if name in NOT_CHECKED_METHODS or c.method_kind.get(name) in ("static", "class") or \
                f"{c.qualname}.{name}" in skip or c.module.external:
            continue
        selfname = first_param(fn)
        if not selfname:
            continue
        for callee, start in _super_calls(fn, selfname, c, f.linear):
            got = _next_definition(f.linear, start, callee)
            if got is None or (got[0].key, callee) in done:
                continue
            done.add((got[0].key, callee))
            out.append(got)
            todo.append(got)
    return out


def _super_calls(fn: ast.AST, selfname: str, c: ClassInfo, linear: list) -> list[tuple[str, int]]:
    """(method name, MRO index to search from) of each ``super().m(...)``, ``super(C, self).m(...)``
    and ``C.m(self, ...)`` call in ``fn`` (defined in ``c``)."""
    at = next((i for i, k in enumerate(linear) if isinstance(k, ClassInfo) and k.key == c.key), None)
    if at is None:
        return []
    out = []
    for kind, owner, name in memo_on(fn, "_pk_super_calls", lambda: _calls(fn, selfname)):
        if kind == "super":
            out.append((name, at + 1))
        elif (i := _index_of(linear, owner, at if kind == "super-of" else at + 1)) is not None:
            out.append((name, i + 1 if kind == "super-of" else i))
    return out


def _calls(fn: ast.AST, selfname: str) -> list[tuple[str, str, str]]:
    """(kind, class named, method) of the calls in ``fn`` that may reach an overridden definition:
    ``super().m()`` ("super"), ``super(C, self).m()`` ("super-of", C), ``C.m(self)`` ("explicit", C)."""
    out = []
    for n in fast_walk(fn):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            continue
        recv, name = n.func.value, n.func.attr
        if isinstance(recv, ast.Call) and isinstance(recv.func, ast.Name) and recv.func.id == "super":
            if not recv.args and not recv.keywords:
                out.append(("super", "", name))
            elif len(recv.args) == 2 and isinstance(recv.args[1], ast.Name) and recv.args[1].id == selfname and \
                    isinstance(recv.args[0], ast.Name):
                out.append(("super-of", recv.args[0].id, name))
        elif isinstance(recv, ast.Name) and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == selfname:
            out.append(("explicit", recv.id, name))
    return out


def _index_of(linear: list, short: str, start: int) -> Optional[int]:
    """The MRO index (from ``start``) of the one in-tree class of that short name, else None."""
    hits = [i for i, k in enumerate(linear) if i >= start and isinstance(k, ClassInfo) and
            k.qualname.split(".")[-1] == short]
    return hits[0] if len(hits) == 1 else None


def _next_definition(linear: list, start: int, name: str) -> Optional[tuple[ClassInfo, str, ast.AST]]:
    """The first class of ``linear[start:]`` defining ``name``; None when a library class (which
    may define it) comes first, or none does."""
    for k in linear[start:]:
        if not isinstance(k, ClassInfo):
            if getattr(k, "name", "") == "object":
                continue
            return None
        fn = k.methods.get(name)
        if fn is not None:
            return k, name, fn
    return None
