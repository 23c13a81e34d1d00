"""Methods a ``__new__`` calls on the instance it makes, before ``__init__`` runs: boltons'
``OrderedMultiDict.__new__`` does ``ret = super().__new__(cls); ret._clear_ll()``, and
``_clear_ll`` (overridden by ``FastIterOrderedMultiDict``) stores ``_map`` and ``root``. What the
method the instance's own MRO resolves stores, and what the methods it calls on ``self`` store, in
turn, exist when ``__init__`` starts."""
from __future__ import annotations

import ast

from .astutil import dotted, fast_walk, first_param
from .initsubclass import stores_on
from .instances import new_vars

DEPTH = 3  # helpers calling helpers: far enough for a reset method that delegates


def _calls_on(fn, name: str) -> set:
    return {n.func.attr for n in fast_walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == name}


def new_call_stores(new_fn: ast.FunctionDef, classes: list) -> set:
    """Attributes the methods ``new_fn`` calls on the instance it makes store, each method the one
    ``classes`` (the judged class's MRO, analysed classes only) resolves."""
    todo = [(m, 1) for v in new_vars(new_fn) for m in _calls_on(new_fn, v)]
    seen, out = set(), set()
    while todo:
        name, depth = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        fn = next((c.methods[name] for c in classes if name in c.methods), None)
        me = first_param(fn) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if me is None or any(dotted(d) in ("staticmethod", "classmethod") for d in fn.decorator_list):
            continue
        out |= stores_on(fn, me)
        if depth < DEPTH:
            todo += [(m, depth + 1) for m in _calls_on(fn, me)]
    return out
