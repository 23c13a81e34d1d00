"""A store on an object that calls a method only the class's own MRO defines (set BL,
smbprotocol 1.17.0, 2026).

``Structure.__init__`` runs ``for name, field in self.fields.items(): field.structure =
weakref.proxy(self); field.name = name; field.set_value(field.default)`` (structure.py:61-64).
``field`` has no static type, and no field class stores ``name`` or ``structure`` itself, so neither
the constructor evidence nor the look-alike stores of injection.py apply. But ``set_value`` is
defined in one place in the whole tree, ``Field`` (structure.py:199): whatever ``field`` is, it is
a ``Field``, so ``IntField``, ``ListField`` and ``FlagField`` (all ``Field`` subclasses) get
``name`` and ``structure`` from their owner.

The receiver must be a ``for`` target (an item of a collection: a parameter or a call's result
has callers or a constructor that say more, and session 43's heatmapper case hands in another
class's object), and the store and the method call must sit in the body of the same loop over it
(a name reused by a later loop over other objects links nothing). The method must be defined in the tree only by classes of the judged class's MRO
(every ``def m(`` of the tree's sources sits inside one of them), and must not be a name a builtin
container, string or ``object`` has (``update``, ``append``, ``items`` ... say nothing about the
receiver).
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import fast_walk, memo_on

_COMMON = frozenset(n for t in (object, dict, list, set, str, bytes, int, float, tuple, frozenset) for n in dir(t)) | \
    frozenset({"get", "set", "run", "call", "close", "open", "read", "write", "start", "stop", "reset", "init", "setup",
               "update", "load", "save", "step", "forward", "apply", "build", "parse", "send", "flush"})


def _defs_in_tree(idx, name: str) -> int:
    memo = idx.__dict__.setdefault("_pk_method_defs", {})
    got = memo.get(name)
    if got is None:
        pat = re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\(", re.M)
        got = memo[name] = sum(len(pat.findall(t)) for _r, t in idx.naming(name))
    return got


def _defs_in_classes(classes, name: str) -> int:
    key = (tuple(c.key for c in classes), name)
    got = _DEFS_MEMO.get(key)
    if got is None:
        got = _DEFS_MEMO[key] = _count_defs(classes, name)
    return got


_DEFS_MEMO: dict = {}


def _count_defs(classes, name: str) -> int:
    pat = re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\(")
    n = 0
    for c in classes:
        if c.module.external or name not in c.methods:
            continue
        end = getattr(c.node, "end_lineno", None) or c.node.lineno
        n += sum(1 for line in c.module.lines[c.node.lineno - 1:end] if pat.match(line))
    return n


def _loops_calling(fn, recv: str, line: int) -> frozenset:
    """Methods called on ``recv`` in the body of the innermost ``for`` that binds ``recv`` and holds
    line ``line`` (the store): the same item, the same iteration."""
    def compute() -> list:
        return [(f, frozenset(n.id for n in ast.walk(f.target) if isinstance(n, ast.Name)))
                for f in fast_walk(fn) if isinstance(f, (ast.For, ast.AsyncFor))]
    loops = [f for f, names in memo_on(fn, "_pk_for_loops", compute) if recv in names
             and f.body[0].lineno <= line <= (getattr(f, "end_lineno", None) or f.lineno)]
    if not loops:
        return frozenset()
    loop = max(loops, key=lambda f: f.lineno)
    return frozenset(n.func.attr for st in loop.body for n in ast.walk(st) if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                     and n.func.value.id == recv)


def method_duck_store(idx, attr: str, classes) -> Optional[str]:
    """``path:line`` of a store of ``attr`` on a local or parameter of a function that also calls,
    on that object, a method only ``classes`` (an MRO) define in the tree; or None."""
    mine = {m for c in classes if not c.module.external for m in c.methods if not m.startswith("_") or
            not m.endswith("__")}
    for rel, line, recv, fn, _cls in idx.outside_stores(attr):
        if not isinstance(recv, ast.Name):
            continue
        for m in sorted((_loops_calling(fn, recv.id, line) & mine) - _COMMON):
            if len(m) >= 4 and _defs_in_tree(idx, m) == _defs_in_classes(classes, m) > 0:
                return f"{rel}:{line}"
    return None
