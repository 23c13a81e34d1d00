"""Methods that store an attribute named by one of their parameters: torchmetrics'
``Metric.add_state(self, name, default)`` (``setattr(self, name, default)``), gpytorch's
``Module.register_prior(self, name, prior, ...)`` (``self.add_module(name, prior)``). They do not
open the class for every name: each call ``self.add_state("tp", ...)`` in the hierarchy assigns
``tp`` where it is made; a call with a computed name, or one made on an instance from outside the
hierarchy (``metric.add_state(k, v)``), makes the class dynamic as any computed store does."""
from __future__ import annotations

import ast
import re

from .astutil import fast_walk, first_param
from .dynamic import mark_dynamic
from .model import ClassInfo


#: ``setattr(self, key, v)`` in these is reached by ``obj[key] = v`` from anywhere (trove's
#: ``ModelBase.__setitem__``, which ``merge_attributes`` feeds every keyword of the constructor):
#: a computed store, not a store keyed by the caller's literal
ITEM_STORES = frozenset({"__setitem__"})


def keyed_by_param(ci: ClassInfo, mname: str, key) -> bool:
    """``key`` (the name a store in ``ci.mname`` uses) is one of the method's own parameters after
    the instance: record the method as keyed by it (the scan then leaves the class closed)."""
    fn = ci.methods.get(mname)
    if fn is None or not isinstance(key, ast.Name) or ci.method_kind.get(mname) != "method" or mname in ITEM_STORES:
        return False
    params = _params(fn)
    if key.id not in params[1:] or _rebound(fn, key.id):
        return False
    ci.keyed_stores[mname] = params.index(key.id)
    return True


def _params(fn) -> list:
    return [a.arg for a in fn.args.posonlyargs + fn.args.args]


def _rebound(fn, name: str) -> bool:
    """The parameter is assigned or looped over in the body: the stored name is no longer the caller's."""
    for n in fast_walk(fn):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
            return True
    return False


def resolve_keyed(classes: list, naming) -> None:
    """Turn the calls of keyed store methods in ``classes`` (an MRO) into assignments of the names
    they pass (``assigned_in`` of the calling class), computed ones into dynamic stores; a call on
    an instance from elsewhere in the tree (``naming(word)``: [(rel, source)] of the files of the
    tree with that word, ``TreeClasses.naming``) makes the method dynamic."""
    keyed: dict[str, tuple[ClassInfo, int]] = {}
    for c in classes:
        for m, idx in c.keyed_stores.items():
            keyed.setdefault(m, (c, idx))
    if not keyed:
        return
    for m, (definer, idx) in keyed.items():
        done = definer.__dict__.setdefault("_pk_keyed_outside", {})
        if m not in done:
            call = re.compile(rf"(\w+)\s*\.\s*{re.escape(m)}\s*\(")
            done[m] = any(x.group(1) not in ("self", "cls") for _r, t in naming(m) for x in call.finditer(t))
        if done[m]:
            mark_dynamic(definer, m, f"{m}(<name from outside>) called on instances elsewhere in the tree")
        param = _params(definer.methods[m])[idx]
        for c in classes:
            if c.module.external:
                continue
            seen = c.__dict__.setdefault("_pk_keyed_calls", set())
            if m in seen:
                continue
            seen.add(m)
            for mname, fn in c.methods.items():
                sn = first_param(fn)
                if not sn or c.method_kind.get(mname) not in ("method", "property"):
                    continue
                for n in fast_walk(fn):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == m and \
                            isinstance(n.func.value, ast.Name) and n.func.value.id == sn:
                        _note_call(c, mname, n, idx, param, m)


def _note_call(c: ClassInfo, mname: str, call: ast.Call, idx: int, param: str, m: str) -> None:
    key = call.args[idx - 1] if len(call.args) >= idx else \
        next((k.value for k in call.keywords if k.arg == param), None)
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        c.assigned_in.setdefault(key.value, []).append((mname, call.lineno))
    elif isinstance(key, ast.Name) and c.keyed_stores.get(mname) is not None and \
            _params(c.methods[mname])[c.keyed_stores[mname]] == key.id:
        pass  # passed on from a keyed method of its own (register_prior -> add_state): that one's callers name it
    else:
        mark_dynamic(c, mname, f"{m}(<non-literal>) in {mname} at line {call.lineno}")


def name_pattern(fn, key):
    """A regex of the names a computed store key can take when it is ``p + "_suffix"`` or
    ``"prefix_" + p`` (directly or through a local assigned once: gpytorch's ``constraint_name =
    param_name + "_constraint"``), else None."""
    if isinstance(key, ast.Name) and fn is not None:
        binds = [n for n in fast_walk(fn) if isinstance(n, ast.Name) and n.id == key.id and isinstance(n.ctx, ast.Store)]
        stores = [n for n in fast_walk(fn) if isinstance(n, ast.Assign) and n.targets == [binds[0]]] if len(binds) == 1 else []
        if len(stores) != 1:
            return None
        key = stores[0].value
    if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add):
        left, right = key.left, key.right
        if isinstance(right, ast.Constant) and isinstance(right.value, str) and right.value:
            return re.compile("^.*" + re.escape(right.value) + "$")
        if isinstance(left, ast.Constant) and isinstance(left.value, str) and left.value:
            return re.compile("^" + re.escape(left.value) + ".*$")
    return None
