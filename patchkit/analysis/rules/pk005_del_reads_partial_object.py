"""PK005 del-reads-partial-object (default: warning). `__del__` reads an attribute that is unassigned when `__init__` raises early.

Logic: ``check`` judges ``__del__`` against what ``__init__`` assigns before its first statement that
can raise (Python finalises objects whose ``__init__`` raised part-way)."""
from __future__ import annotations

import ast

from ...rules import Rule
from .base import finding as _finding
from .examples import pk005 as _examples

RULE = Rule(
    'PK005', 'del-reads-partial-object', 'warning',
    summary='`__del__` reads an attribute that is unassigned when `__init__` raises early.',
    text=(
        'Python calls `__del__` on objects whose `__init__` raised. A read of an attribute assigned '
        'after the raising statement then fails in the finaliser (an ignored exception printed to '
        'stderr, and the cleanup does not run).'),
    example="""
class Pool:
    def __init__(self, n):
        if n <= 0:
            raise ValueError(n)
        self.handles = [acquire() for _ in range(n)]

    def __del__(self):
        for h in self.handles:       # PK005
            h.release()
""",
    fix=(
        'Assign the attribute before anything can raise (`self.handles = []` first), or read it with '
        '`getattr(self, "handles", [])` in `__del__`.'),
    message='self.{attr} is read in {cls}.__del__ but is unassigned when __init__ raises early',
    valid=_examples.VALID,
    invalid=_examples.INVALID,
)


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK005 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)


def check(an, t) -> list:
    """PK005 findings of ``t`` (a Trace): reads in the MRO's ``__del__`` of attributes assigned only
    after the first statement of ``__init__`` that can raise."""
    from ..astutil import fast_walk, first_param, self_attr
    from ..reads import collect_reads
    dl = an.resolve_method(t.facts.linear, "__del__")
    init = t.init
    if dl is None or init is None or dl[0].module.external:
        return []
    ifn = init[1]
    sn = first_param(ifn)
    early: set[str] = set()
    first_risk = None
    for stmt in ifn.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and not any(
                isinstance(n, (ast.Call, ast.Subscript, ast.BinOp, ast.Await)) for n in fast_walk(stmt.value or ast.Pass())):
            for tg in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                a = self_attr(tg, sn)
                if a:
                    early.add(a)
            continue
        if isinstance(stmt, (ast.Expr,)) and isinstance(stmt.value, ast.Constant):
            continue  # docstring
        first_risk = stmt.lineno
        break
    if first_risk is None:
        return []
    out, reported = [], set()
    for cls, fn, via in _finaliser_methods(an, t, dl):
        for r in collect_reads(fn, first_param(fn) or "self"):
            if r.guarded or r.attr in r.known or r.attr in r.local or r.attr in early or t.known_static(r.attr):
                continue
            if via and r.attr in reported:
                continue  # a method __del__ calls: its first read of the attribute is the one that fails
            reported.add(r.attr)
            if not any(r.attr in c.assigned_in for c in t.facts.classes):
                continue  # never assigned at all: the ordinary checks report that
            out.append(finding(cls.module.rel, r.node, t.ci.qualname, r.attr,
                               f"__init__ can raise at line {first_risk} before assigning it"
                               + (f" (read through {via})" if via else "")
                               + f"; guard with getattr(self, {r.attr!r}, None)"))
    return out


#: how deep ``__del__``'s own ``self.<method>()`` calls are followed
DEPTH = 3
#: handlers that make a call in ``__del__`` harmless: whatever the callee reads, nothing escapes
_SWALLOW = {None, "Exception", "BaseException", "AttributeError"}


def _finaliser_methods(an, t, dl) -> list:
    """(class, function, "__del__ -> close -> ...") of ``__del__`` and of the methods of the MRO it
    calls as ``self.<name>()`` outside a ``try`` that swallows errors, up to DEPTH calls deep
    (paho's ``__del__`` -> ``_reset_sockets`` -> ``_sock_close`` reads ``self._sock``; gymnasium's
    ``VectorEnv.__del__`` -> ``close``, overridden by the wrapper that reads ``self.window``)."""
    from ..astutil import dotted, fast_walk, first_param
    out, seen = [], set()
    todo = [(dl[0], dl[1], "")]
    while todo:
        cls, fn, via = todo.pop(0)
        if id(fn) in seen or cls.module.external:
            continue
        seen.add(id(fn))
        out.append((cls, fn, via))
        if via.count("->") >= DEPTH:
            continue
        sn = first_param(fn) or "self"
        shielded = {id(n) for tr in fast_walk(fn) if isinstance(tr, ast.Try) and any(
            (dotted(h.type) if h.type is not None else None) in _SWALLOW or (
                isinstance(h.type, ast.Tuple) and any(dotted(e) in _SWALLOW for e in h.type.elts))
            for h in tr.handlers) for st in tr.body for n in fast_walk(st)}
        for n in fast_walk(fn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                    and n.func.value.id == sn and id(n) not in shielded:
                m = an.resolve_method(t.facts.linear, n.func.attr)
                if m is not None and m[2] == "method":
                    todo.append((m[0], m[1], f"{via or fn.name} -> {n.func.attr}"))
    return out
