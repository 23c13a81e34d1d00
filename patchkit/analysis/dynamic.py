"""Computed stores: when a class's attributes cannot be known statically (``setattr(self, name, v)``
with a computed name, writes through ``vars(self)`` or ``self.__dict__``), and the uses that only
look like it (a ``vars(self)`` that is only read, ``setattr`` under ``hasattr(self, name)``, a
``__setattr__`` passing its caller's store on). ``scan.py`` asks these while it reads a class."""
from __future__ import annotations

import ast

from .astutil import dotted, fast_walk
from .calltables import setattr_on
from .model import ClassInfo


def mark_dynamic(ci: ClassInfo, mname: str, why: str) -> None:
    """``ci`` stores computed names in ``mname``: its attributes cannot be known statically (the
    first reason is kept; every method is remembered, so a subclass that never runs them is not
    dynamic through them)."""
    ci.dynamic = ci.dynamic or why
    ci.dynamic_in.add(mname)


def rebinds_existing(fn, call: ast.Call, selfname: str, key: str) -> bool:
    """``setattr(self, key, v)`` sits under ``if hasattr(self, key):``: it only rebinds an
    attribute the instance already has (luigi's ``Task.no_unpicklable_properties``), adding none."""
    if fn is None:
        return False
    for n in fast_walk(fn):
        if isinstance(n, ast.If) and isinstance(n.test, ast.Call) and dotted(n.test.func) == "hasattr" and \
                len(n.test.args) == 2 and isinstance(n.test.args[0], ast.Name) and n.test.args[0].id == selfname and \
                isinstance(n.test.args[1], ast.Name) and n.test.args[1].id == key:
            if any(x is call for st in n.body for x in fast_walk(st)):
                return True
    return False


def is_param(fn, name: str, index: int) -> bool:
    """``name`` is ``fn``'s parameter at ``index`` (0: the instance)."""
    if fn is None:
        return False
    params = fn.args.posonlyargs + fn.args.args
    return len(params) > index and params[index].arg == name


def stores_others(fn, selfname: str) -> bool:
    """``fn`` (a ``__setattr__``) stores named attributes of its own besides passing the caller's on
    (scapy's ``ASN1_BIT_STRING``: setting ``val`` also sets ``val_readable`` and ``unused_bits``):
    which ones exist then depends on what callers store, so the class stays dynamic."""
    if fn is None:
        return True
    for n in fast_walk(fn):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and \
                n.value.id == selfname:
            return True
        if isinstance(n, ast.Call):
            named = setattr_on(n, selfname)
            if named is not None and isinstance(named[0], ast.Constant):
                return True
    return False


#: what may be done with ``vars(self)`` (or a name bound to it) without writing the instance
_VARS_READS = {"keys", "values", "items", "get", "copy", "__contains__", "__getitem__"}
_VARS_READERS = {"list", "dict", "sorted", "len", "iter", "set", "tuple", "repr", "str", "print", "copy.copy",
                 "copy.deepcopy", "json.dumps", "pprint.pformat", "any", "all"}


def vars_written(fn, selfname: str):
    """The line of a use of ``vars(self)`` in ``fn`` that may write the instance (``vars(self)[k] =
    v``, ``vars(self).update(...)``, handing it to unknown code), following a local name bound to
    it; None when every use only reads (flopy's ``Package.__setattr__``: ``var_dict = vars(self)``
    then ``var_dict[key]`` and ``.keys()``)."""
    if fn is None:
        return 1
    parent = {}
    for n in fast_walk(fn):
        for ch in ast.iter_child_nodes(n):
            parent[id(ch)] = n

    def is_vars(n):
        return isinstance(n, ast.Call) and dotted(n.func) == "vars" and len(n.args) == 1 and \
            isinstance(n.args[0], ast.Name) and n.args[0].id == selfname

    def harmful(use) -> bool:
        p = parent.get(id(use))
        if isinstance(p, ast.Subscript) and p.value is use:
            return isinstance(p.ctx, (ast.Store, ast.Del))
        if isinstance(p, ast.Attribute) and p.value is use:
            q = parent.get(id(p))
            return not (p.attr in _VARS_READS and isinstance(q, ast.Call) and q.func is p)
        if isinstance(p, ast.Compare):
            return False  # `key in vars(self)`
        if isinstance(p, (ast.For, ast.comprehension)) and p.iter is use:
            return False
        if isinstance(p, ast.Call) and use in p.args:
            return (dotted(p.func) or "") not in _VARS_READERS
        return True

    names = set()
    for n in fast_walk(fn):
        if isinstance(n, ast.Assign) and is_vars(n.value) and all(isinstance(t, ast.Name) for t in n.targets):
            names |= {t.id for t in n.targets}
    for n in fast_walk(fn):
        if is_vars(n):
            p = parent.get(id(n))
            if isinstance(p, ast.Assign) and p.value is n and all(isinstance(t, ast.Name) for t in p.targets):
                continue  # bound to a name: its uses are judged below
            if harmful(n):
                return n.lineno
        elif isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load) and harmful(n):
            return n.lineno
    return None
