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
    out = []
    cls, fn = dl[0], dl[1]
    for r in collect_reads(fn, first_param(fn) or "self"):
        if r.guarded or r.attr in r.known or r.attr in r.local or r.attr in early or t.known_static(r.attr):
            continue
        if not any(r.attr in c.assigned_in for c in t.facts.classes):
            continue  # never assigned at all: the ordinary checks report that
        out.append(finding(cls.module.rel, r.node, t.ci.qualname, r.attr,
                           f"__init__ can raise at line {first_risk} before assigning it; guard with "
                           f"getattr(self, {r.attr!r}, None)"))
    return out
