"""Locals an ``if``/``elif``/``else`` ladder sets: ``if method.lower() in ("add on", "add_on"):
flag = True`` / ``else: flag = False``, then ``if flag:``. Where the walk decides the ladder's test (a
parameter the call site fixed, a class constant), one arm runs on every path, so what that arm
assigns is the local's value on every path after it. autots' ``AutoTS.import_template`` is this
shape: construction calls it with ``method='only'``, which makes ``addon_flag`` false, and the merge
that reads ``self.initial_template`` never runs there."""
from __future__ import annotations

import ast

from .astutil import fast_walk
from .localconsts import UNKNOWN, value


def _arms(top: ast.If) -> tuple[list, list]:
    """(the If nodes of the ladder, the statement lists of its arms)."""
    chain, arms, node = [top], [], top
    while True:
        arms.append(node.body)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            chain.append(node)
            continue
        arms.append(node.orelse)
        return chain, arms


def _single_name(s: ast.stmt):
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
        return s.targets[0]
    return None


def ladder_locals(fn: ast.AST) -> dict[int, frozenset]:
    """id of each ``If`` node of a ladder among ``fn``'s own top-level statements -> the locals whose
    every store in ``fn`` is a single-target assignment directly in one of that ladder's arms (no
    other store, no ``global``/``nonlocal``, not a parameter). Cached on the node."""
    cached = getattr(fn, "_pk_ladders", None)
    if cached is not None:
        return cached
    stores: dict[str, set] = {}
    bad: set = set()
    for n in fast_walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores.setdefault(n.id, set()).add(id(n))
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            bad.update(n.names)
        elif isinstance(n, ast.arg):
            bad.add(n.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bad.update((a.asname or a.name).split(".")[0] for a in n.names)
    out: dict[int, frozenset] = {}
    for top in getattr(fn, "body", ()):
        if not isinstance(top, ast.If):
            continue
        chain, arms = _arms(top)
        own: dict[str, set] = {}
        for arm in arms:
            for s in arm:
                t = _single_name(s)
                if t is not None:
                    own.setdefault(t.id, set()).add(id(t))
        names = frozenset(n for n, ids in own.items() if n not in bad and stores.get(n) == ids)
        if names:
            for node in chain:
                out[id(node)] = names
    fn._pk_ladders = out  # type: ignore[attr-defined]
    return out


def record_arm(s: ast.If, truth: bool, fr) -> None:
    """After the walk ran only the arm of ``s`` that ``truth`` picks: the values that arm's own
    assignments give the ladder's locals, from the known names (``fr.consts``)."""
    names = ladder_locals(fr.fn).get(id(s)) if getattr(fr, "fn", None) is not None else None
    if not names:
        return
    for st in (s.body if truth else s.orelse):
        t = _single_name(st)
        if t is not None and t.id in names:
            v = value(st.value, fr.consts)
            if v is UNKNOWN:
                fr.consts.pop(t.id, None)
            else:
                fr.consts[t.id] = v
