"""Methods a ``__new__`` calls on the instance it makes, before ``__init__`` runs: boltons'
``OrderedMultiDict.__new__`` does ``ret = super().__new__(cls); ret._clear_ll()``, and
``_clear_ll`` (overridden by ``FastIterOrderedMultiDict``) stores ``_map`` and ``root``. What the
method the instance's own MRO resolves surely stores exists when ``__init__`` starts.

Only the ``__new__`` the instance runs (the first of its MRO) counts, only a name it binds to
``<something>.__new__(cls)`` with ``cls`` its own first parameter (not another class's object),
only calls that are top-level statements of ``__new__`` (not under a branch), and only what the
called method stores in a top-level statement, or in the ``except AttributeError`` handler of a
top-level ``try`` whose body reads an attribute nothing has stored yet (boltons' "not there yet"
test: on a fresh instance the read raises and the handler runs); methods it calls
the same way are followed. Anything less sure stays as judged (a read the walk of ``__init__``
finds unassigned is still reported)."""
from __future__ import annotations

import ast

from .astutil import first_param, own_nodes
from .initsubclass import stores_on

DEPTH = 3  # helpers calling helpers: far enough for a reset method that delegates


def _made(fn: ast.FunctionDef) -> set:
    cls = first_param(fn)
    return {t.id for st in fn.body if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call)
            and isinstance(st.value.func, ast.Attribute) and st.value.func.attr == "__new__" and st.value.args
            and isinstance(st.value.args[0], ast.Name) and st.value.args[0].id == cls
            for t in st.targets if isinstance(t, ast.Name)}


def _top_calls(fn, name: str) -> list:
    return [st.value.func.attr for st in fn.body if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
            and isinstance(st.value.func, ast.Attribute) and isinstance(st.value.func.value, ast.Name)
            and st.value.func.value.id == name]


def _catches_attribute_error(h: ast.ExceptHandler) -> bool:
    names = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
    return any(isinstance(n, ast.Name) and n.id == "AttributeError" for n in names)


def _sure_stores(fn, me: str, class_level: set) -> set:
    out = set()
    for st in fn.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            out |= stores_on(st, me)
        elif isinstance(st, ast.Try):
            read = {n.attr for b in st.body for n in ast.walk(b) if isinstance(n, ast.Attribute)
                    and isinstance(n.value, ast.Name) and n.value.id == me and isinstance(n.ctx, ast.Load)}
            if not read - out - class_level:
                continue  # the try body reads only what is there: its handler may never run
            for h in st.handlers:
                if h.type is not None and _catches_attribute_error(h):
                    out |= {a for s in h.body if isinstance(s, (ast.Assign, ast.AnnAssign))
                            for a in stores_on(s, me)}
    return out


def new_call_stores(new_fn: ast.FunctionDef, classes: list) -> set:
    """Attributes the methods ``new_fn`` (the first ``__new__`` of the MRO ``classes``) calls on
    the instance it makes surely store, each method the one the MRO resolves."""
    todo = [(m, 1) for v in _made(new_fn) for m in _top_calls(new_fn, v)]
    class_level = {n for c in classes for n in c.class_names}
    seen, out = set(), set()
    maker = _returned_maker(new_fn, classes)
    if maker is not None:  # ``return cls.from_bytes(data, v)``: what the classmethod does to what it makes
        for v in _made(maker):
            out |= _sure_stores(maker, v, class_level)
            todo += [(m, 1) for m in _top_calls(maker, v)]
    while todo:
        name, depth = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        fn = next((c.methods[name] for c in classes if name in c.methods), None)
        me = first_param(fn) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if me is None or any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in fn.decorator_list):
            continue
        out |= _sure_stores(fn, me, class_level)
        if depth < DEPTH:
            todo += [(m, depth + 1) for m in _top_calls(fn, me)]
    return out


def _returned_maker(new_fn: ast.FunctionDef, classes: list):
    """The classmethod of the MRO whose result is every value ``new_fn`` returns: its last statement
    is ``return cls.<m>(...)`` and it has no other ``return`` (python-bitcoinlib's
    ``CBase58Data.__new__`` ends in ``return cls.from_bytes(data, verbyte[0])``, and ``from_bytes``
    does ``self = bytes.__new__(cls, data); self.nVersion = nVersion``). None otherwise."""
    cls = first_param(new_fn)
    last = new_fn.body[-1] if new_fn.body else None
    if cls is None or not (isinstance(last, ast.Return) and isinstance(last.value, ast.Call)):
        return None
    f = last.value.func
    if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == cls):
        return None
    if sum(isinstance(n, ast.Return) for n in own_nodes(new_fn)) != 1:
        return None
    c = next((c for c in classes if f.attr in c.methods), None)
    if c is None or c.method_kind.get(f.attr) != "class":
        return None
    fn = c.methods[f.attr]
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.body:
        return None
    # the maker's one way out, its last statement, returns the object it made
    end = fn.body[-1]
    if not (isinstance(end, ast.Return) and isinstance(end.value, ast.Name) and end.value.id in _made(fn)) or \
            sum(isinstance(n, ast.Return) for n in own_nodes(fn)) != 1:
        return None
    return fn
