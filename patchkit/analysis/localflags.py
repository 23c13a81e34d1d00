"""Locals that hold a test of the instance: ``in_init = self._cmap is None`` then, further down,
``if not in_init: ... self.norm ...``. Where the path's conditions decide the test when the local is
bound (``self._cmap = None`` just ran: ``_cmap is None`` is a stored value), the local's truth is a
fact of that path, so the later branch on the local correlates. The test is judged when it is bound,
never again at the branch: ``first = self._a is None; self._a = x; if first:`` means the old value.
matplotlib 3.11's ``Colorizer._set_cmap`` is this shape: its ``self.norm`` read runs only when
``in_init`` is false, which construction never makes it."""
from __future__ import annotations

import ast
import re
from typing import Callable, Optional

from .astutil import dotted, fast_walk
from .conditions import VALUE, Cond, conjuncts, norm_test
from .localconsts import tracked_locals
from .presence import implied_attrs
from .state import State


_HEAD = re.compile(r"[A-Za-z_]\w*")


def _keys(key: str, getter: Callable[[str], tuple]) -> list[str]:
    """``key`` and, when it starts with a property whose getter returns ``self._x``, the same test
    of ``_x`` (``norm is None`` is ``_norm is None``)."""
    m = _HEAD.match(key)
    return [key] + ([a + key[m.end():] for a in getter(m.group(0))] if m else [])


def decided(test: ast.expr, x: State, selfname: str, getter: Callable[[str], tuple] = lambda name: ()) -> Optional[bool]:
    """The truth of ``test`` on the path ``x`` when its conditions decide it, else None."""
    for pol in (True, False):
        facts = [(_keys(norm_test(n, selfname), getter), p) for n, p in conjuncts(test, pol)]
        if not facts:
            continue
        if any(x.contradicts(k, p) for ks, p in facts for k in ks):
            return not pol  # one fact the truth `pol` needs is false on this path
        if all(any(c.key in ks and c.holds == p for c in x.conds) for ks, p in facts):
            return pol
    return None


def _mentions_self(node: ast.expr, selfname: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == selfname for n in fast_walk(node))


def bind(s: ast.Assign, st: list[State], fr, getter: Callable[[str], tuple] = lambda name: ()) -> list[State]:
    """After ``local = <test or lookup of self>`` (a local only top-level statements assign): the
    local stands for that expression in later branches (``fr.flag_tests``), and its truth is a fact
    of each path whose conditions decide it; an older fact about it is dropped."""
    if len(s.targets) != 1 or not isinstance(s.targets[0], ast.Name):
        return st
    name, selfname = s.targets[0].id, fr.selfname
    if name == selfname or name not in tracked_locals(fr.fn):
        return st
    v = s.value
    is_test = isinstance(v, (ast.Compare, ast.BoolOp, ast.UnaryOp)) and _mentions_self(v, selfname)
    was = fr.flag_tests.pop(name, None) is not None
    if is_test or (isinstance(v, ast.Call) and _mentions_self(v, selfname) and
                   (implied_attrs(v, True, selfname) or _lookup(v, selfname))):
        fr.flag_tests[name] = v
    if not is_test and not was:
        return st  # no fact of ours about this local to replace (the common case: no scan of the states)
    out = []
    for x in st:
        # only the facts this module recorded (written as the bare local); an attribute's stored
        # value under the same key (``self.mode = "x"`` beside a local ``mode``) stays
        conds = frozenset(c for c in x.conds if not (c.key == name and c.origin == VALUE and c.text == name))
        truth = decided(v, x, selfname, getter) if is_test else None
        if truth is not None and not any(c.key == name for c in conds):
            # keys drop ``self.``: a fact about ``self.<name>`` on this path keeps the key
            conds |= {Cond(name, truth, s.lineno, name, VALUE)}
        out.append(State(x.assigned, conds))
    return out


def _lookup(v: ast.Call, selfname: str) -> bool:
    """``getattr(self, "x", None)``: ``v is not None`` then says ``x`` is there."""
    return dotted(v.func) == "getattr" and len(v.args) == 3 and isinstance(v.args[0], ast.Name) and \
        v.args[0].id == selfname


def implied_by_locals(test: ast.expr, pol: bool, fr) -> set:
    """Attributes a branch on such locals implies: ``if has:`` with ``has = hasattr(self, "x")``,
    ``if v is not None:`` with ``v = getattr(self, "x", None)``."""
    if not fr.flag_tests:
        return set()
    out: set = set()
    for node, p in conjuncts(test, pol):
        if isinstance(node, ast.Name) and node.id in fr.flag_tests:
            out |= implied_attrs(fr.flag_tests[node.id], p, fr.selfname)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.left, ast.Name) and node.left.id in fr.flag_tests:
            same = ast.Compare(left=fr.flag_tests[node.left.id], ops=node.ops, comparators=node.comparators)
            out |= implied_attrs(same, p, fr.selfname)
    return out
