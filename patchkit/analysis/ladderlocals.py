"""Locals an ``if``/``elif``/``else`` ladder sets: ``if method.lower() in ("add on", "add_on"):
flag = True`` / ``else: flag = False``, then ``if flag:``. Where the walk decides the ladder's test (a
parameter the call site fixed, a class constant), one arm runs on every path, so what that arm
assigns is the local's value on every path after it. autots' ``AutoTS.import_template`` is this
shape: construction calls it with ``method='only'``, which makes ``addon_flag`` false, and the merge
that reads ``self.initial_template`` never runs there."""
from __future__ import annotations

import ast

from .localconsts import SCALARS, UNKNOWN, name_stores, value


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


def ladder_locals(fn: ast.AST) -> dict[int, tuple[frozenset, bool]]:
    """id of each ``If`` node of a ladder among ``fn``'s own top-level statements -> (the locals whose
    every store in ``fn`` is a single-target assignment directly in one of that ladder's arms (no
    other binding of the name: localconsts.name_stores), whether the node is the ladder's top).
    Cached on the node."""
    cached = getattr(fn, "_pk_ladders", None)
    if cached is not None:
        return cached
    stores, bad = name_stores(fn)
    out: dict[int, tuple[frozenset, bool]] = {}
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
                out[id(node)] = (names, node is top)
    fn._pk_ladders = out  # type: ignore[attr-defined]
    return out


def _on_every_path(s: ast.If, fr):
    """(names, True) when ``s`` is a ladder's top or an ``elif`` whose tests above were all decided
    false: whatever it decides holds on every path; else (None, False)."""
    fn = getattr(fr, "fn", None)
    got = ladder_locals(fn).get(id(s)) if fn is not None else None
    if not got:
        return None, False
    names, is_top = got
    return names, is_top or id(s) in fr.ladder_live  # else: other paths took an earlier arm


def before_else(s: ast.If, fr) -> None:
    """``s``'s test was decided false, before its ``else`` runs: an ``elif`` there is still on every
    path (``fr.ladder_live``)."""
    names, every = _on_every_path(s, fr)
    if every and len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If):
        fr.ladder_live.add(id(s.orelse[0]))


def decided_arm(s: ast.If, truth: bool, fr) -> None:
    """After the walk ran only the arm of ``s`` its decided test picks: when that arm ran on every
    path, its assignments give the ladder's locals their values (``fr.consts``)."""
    names, every = _on_every_path(s, fr)
    if not every or (truth is False and len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If)):
        return  # not on every path, or the elif below decides (or not) for itself
    for st in (s.body if truth else s.orelse):
        t = _single_name(st)
        if t is not None and t.id in names:
            v = value(st.value, fr.consts)
            if v is UNKNOWN or not isinstance(v, SCALARS):  # a dict a later call in the arm may have changed
                fr.consts.pop(t.id, None)
            else:
                fr.consts[t.id] = v
