"""What a function's parameters and locals are known to hold on the way through its body.

A call site fixes some parameters to literals (``self.reset(options=dict(reconfigure=True))``);
the body then derives locals from them (``reconfigure = options.get("reconfigure", False)``,
``reconfigure = reconfigure or (...)``) and branches on those (``if reconfigure:``). ManiSkill's
``BaseEnv.__init__`` builds its agent and sensors exactly that way. This module gives the values:
which literals a call binds (dicts included), which locals are safe to track (every store of the
name is a statement of the function's top level, so the walk meets them in order on every path),
and the value of an expression over the known names.
"""
from __future__ import annotations

import ast
from typing import Optional
from .astutil import fast_walk

#: the value types a frame tracks as constants
SCALARS = (bool, int, float, str, type(None))

#: an expression's value is unknown
UNKNOWN = object()

#: the key prefix (and value) of a ``*name`` (one prefix) or ``**name`` (two) that a call leaves
#: empty, among a frame's bound constants: never a parameter name
EMPTY = "*"


def empty_iterable(it: ast.expr, consts: dict, fn: ast.AST) -> bool:
    """``it`` is a ``*args`` or ``**kwargs`` (``kwargs.items()`` / ``.keys()`` / ``.values()``) the
    call left empty and the function never adds to: ``for k, v in kwargs.items():`` never runs
    (cassandra's ``OrderedMap.__init__`` built through ``super().__init__()``)."""
    if not consts:
        return False
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "keys", "values") \
            and not it.args and isinstance(it.func.value, ast.Name):
        name = it.func.value.id
        return consts.get(EMPTY + EMPTY + name) == EMPTY and not _adds_to(fn, name)
    if isinstance(it, ast.Name):
        return consts.get(EMPTY + it.id) == EMPTY or \
            (consts.get(EMPTY + EMPTY + it.id) == EMPTY and not _adds_to(fn, it.id))
    return False


#: methods of a dict that never add to it
_READING = frozenset({"get", "pop", "popitem", "items", "keys", "values", "copy", "__contains__"})


def _adds_to(fn: ast.AST, name: str) -> bool:
    """``fn`` may add to the dict ``name``: an item store or ``|=``, a method other than a reading
    one, or the dict itself handed to a call or bound to another name (``apply_defaults(opts)``,
    ``merged = opts``); ``f(**name)`` copies it."""
    for n in fast_walk(fn):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                   for t in targets) or (isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
                                         and n.target.id == name):
                return True
            if isinstance(n.value, ast.Name) and n.value.id == name:
                return True  # an alias of the dict
        elif isinstance(n, ast.Call):
            if isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and \
                    n.func.value.id == name and n.func.attr not in _READING:
                return True
            if any(isinstance(a, ast.Name) and a.id == name for a in n.args) or \
                    any(k.arg is not None and isinstance(k.value, ast.Name) and k.value.id == name for k in n.keywords):
                return True
    return False


class DictConst(tuple):
    """A dict literal with string keys and scalar values, as sorted (key, value) pairs: hashable,
    so a frame's constants can key the call memo."""

    def get(self, key, default=None):
        for k, v in self:
            if k == key:
                return v
        return default

    def __contains__(self, key) -> bool:  # type: ignore[override]
        return any(k == key for k, _v in self)


def literal(node: Optional[ast.expr]):
    """The constant a call argument or default spells (a scalar, or a :class:`DictConst` for
    ``dict(k=1)`` / ``{"k": 1}``), else UNKNOWN."""
    if isinstance(node, ast.Constant) and isinstance(node.value, SCALARS):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) in (int, float):
        return -node.operand.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        items = [(k.arg, k.value.value) for k in node.keywords
                 if k.arg is not None and isinstance(k.value, ast.Constant) and isinstance(k.value.value, SCALARS)]
        return DictConst(sorted(items)) if len(items) == len(node.keywords) else UNKNOWN
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        items = [(k.value, v.value) for k, v in zip(node.keys, node.values)
                 if isinstance(v, ast.Constant) and isinstance(v.value, SCALARS)]
        if len(items) == len(node.keys) and len({k for k, _v in items}) == len(items):
            return DictConst(sorted(items))
    return UNKNOWN


#: str methods without arguments whose result depends only on the string (no locale, no state)
PURE_STR_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "title", "swapcase"})


def _container(node: ast.expr):
    """The frozenset a tuple / list / set display of scalar constants spells, else UNKNOWN."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and \
            all(isinstance(e, ast.Constant) and isinstance(e.value, SCALARS) for e in node.elts):
        return frozenset(e.value for e in node.elts)
    return UNKNOWN


_ORDER = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
          ast.GtE: lambda a, b: a >= b}


def value(node: ast.expr, consts: dict):
    """The value of ``node`` given the known names (``consts``), else UNKNOWN: literals, known
    names, ``d.get("k"[, default])`` and ``d["k"]`` on a known dict, ``a or b`` / ``a and b`` and
    ``not a`` with Python's short-circuit, ``s.lower()`` (and the other PURE_STR_METHODS) of a known
    string, and ``==`` / ``!=`` / ``in`` / ``not in`` between a known scalar and a constant or a
    display of constants."""
    if isinstance(node, ast.Name):
        v = consts.get(node.id, UNKNOWN)
        return () if v is UNKNOWN and consts.get(EMPTY + node.id) == EMPTY else v  # a ``*args`` left empty
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and \
            len(node.args) == 1 and not node.keywords:
        v = value(node.args[0], consts)
        return len(v) if isinstance(v, (tuple, str)) and not isinstance(v, DictConst) else UNKNOWN
    if isinstance(node, ast.BoolOp):
        last = UNKNOWN
        for operand in node.values:
            last = value(operand, consts)
            if last is UNKNOWN:
                return UNKNOWN
            if bool(last) == isinstance(node.op, ast.Or):
                return last  # `or` stops at the first truthy operand, `and` at the first falsy one
        return last
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = value(node.operand, consts)
        return UNKNOWN if v is UNKNOWN else not v
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and isinstance(node.func.value, ast.Name) and not node.keywords and 1 <= len(node.args) <= 2:
        d = consts.get(node.func.value.id, UNKNOWN)
        key = node.args[0]
        if isinstance(d, DictConst) and isinstance(key, ast.Constant):
            if key.value in d:
                return d.get(key.value)
            return value(node.args[1], consts) if len(node.args) == 2 else None
        return UNKNOWN
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PURE_STR_METHODS \
            and not node.args and not node.keywords:
        s = value(node.func.value, consts)  # `mode.lower()` with mode="only" bound by the call site
        return getattr(s, node.func.attr)() if isinstance(s, str) else UNKNOWN
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        v = value(node.left, consts)
        w = _container(node.comparators[0]) if isinstance(node.ops[0], (ast.In, ast.NotIn)) else \
            value(node.comparators[0], consts)
        if v is UNKNOWN or w is UNKNOWN or not isinstance(v, SCALARS):
            return UNKNOWN
        op = node.ops[0]
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(w, SCALARS):
            return (v == w) == isinstance(op, ast.Eq)
        if isinstance(op, (ast.In, ast.NotIn)):
            return (v in w) == isinstance(op, ast.In)
        if type(op) in _ORDER and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (v, w)):
            return _ORDER[type(op)](v, w)  # len(args) > 1
        return UNKNOWN
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Constant):
        d = consts.get(node.value.id, UNKNOWN)
        if isinstance(d, DictConst) and node.slice.value in d:
            return d.get(node.slice.value)
        return UNKNOWN
    return literal(node)


def name_stores(fn: ast.AST) -> tuple[dict, frozenset]:
    """(name -> ids of the ``Name`` nodes that store it in ``fn``, names bound some other way: a
    parameter, an import, ``global``/``nonlocal``, a nested ``def``/``class``, ``except ... as``, a
    ``match`` capture). Shared by the rules that track a local's value. Cached on the node."""
    cached = getattr(fn, "_pk_name_stores", None)
    if cached is not None:
        return cached
    stores: dict = {}
    bad: set = set()
    for n in fast_walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores.setdefault(n.id, set()).add(id(n))
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            bad.update(n.names)
        elif isinstance(n, ast.arg):
            bad.add(n.arg)  # a parameter (of fn or of a nested function): bound by the call
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bad.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, (ast.ExceptHandler, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not fn:
            if n.name:
                bad.add(n.name)
        elif type(n).__name__ in ("MatchAs", "MatchStar") and getattr(n, "name", None):
            bad.add(n.name)
        elif type(n).__name__ == "MatchMapping" and getattr(n, "rest", None):
            bad.add(n.rest)
    cached = (stores, frozenset(bad))
    fn._pk_name_stores = cached  # type: ignore[attr-defined]
    return cached


def tracked_locals(fn: ast.AST) -> frozenset:
    """Names whose every store in ``fn`` is the single target of an ``Assign`` among the function's
    own top-level statements (no branch, loop, ``with`` or ``try`` around it, no other kind of
    store, no ``global``/``nonlocal``): the walk reaches those assignments in order on every path,
    so the value after each one is the value on every path. Cached on the node."""
    cached = getattr(fn, "_pk_tracked", None)
    if cached is not None:
        return cached
    top = {id(s.targets[0]) for s in getattr(fn, "body", ())
           if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)}
    stores, bad = name_stores(fn)
    cached = frozenset(n for n, ids in stores.items() if n not in bad and ids <= top)
    fn._pk_tracked = cached  # type: ignore[attr-defined]
    return cached


def none_default_rebinds(fn: ast.AST) -> frozenset:
    """Parameters whose only rebinding is ``p = ...`` directly under ``if p is None:`` (the
    ``options = options or {}`` idiom spelled out): a non-None value bound at the call stays."""
    cached = getattr(fn, "_pk_none_rebinds", None)
    if cached is not None:
        return cached
    guarded: dict = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and len(n.test.ops) == 1 \
                and isinstance(n.test.ops[0], ast.Is) and isinstance(n.test.left, ast.Name) \
                and isinstance(n.test.comparators[0], ast.Constant) and n.test.comparators[0].value is None:
            p = n.test.left.id
            for s in n.body:
                if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                        and s.targets[0].id == p:
                    guarded.setdefault(p, set()).add(id(s.targets[0]))
    stores: dict = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores.setdefault(n.id, set()).add(id(n))
    cached = frozenset(p for p, ids in guarded.items() if stores.get(p) == ids)
    fn._pk_none_rebinds = cached  # type: ignore[attr-defined]
    return cached


#: dict methods that only read
_READ_METHODS = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__"})


def stable_dict_params(fn: ast.AST) -> frozenset:
    """Parameters whose dict value a call binds can stand for the body's reads of them: the body never
    mutates them itself (item store or delete, ``update``/``pop``/``setdefault``... or ``|=``), uses
    them only to read (``p.get``, ``p[k]``, ``k in p``), to test ``p is None`` or as a call's
    argument, and never reads them in a loop that also hands them to a call. A call that takes one
    may change it: the walk forgets the value there (:func:`forget_passed`). Cached on the node."""
    cached = getattr(fn, "_pk_stable_dicts", None)
    if cached is not None:
        return cached
    a = fn.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | ({a.kwarg.arg} if a.kwarg else set())
    reads: dict = {}
    passed: dict = {}
    bad: set = set()
    parents: dict = {}
    for n in ast.walk(fn):
        for ch in ast.iter_child_nodes(n):
            parents[id(ch)] = n
    for n in ast.walk(fn):
        if not (isinstance(n, ast.Name) and n.id in params and isinstance(n.ctx, ast.Load)):
            continue
        up = parents.get(id(n))
        if isinstance(up, ast.keyword):
            up, n_in = parents.get(id(up)), up
        else:
            n_in = n
        if isinstance(up, ast.Attribute) and up.value is n:
            call = parents.get(id(up))
            if up.attr in _READ_METHODS and isinstance(call, ast.Call) and call.func is up:
                reads.setdefault(n.id, []).append(n)
            else:
                bad.add(n.id)  # a mutating method, or the method object escapes
        elif isinstance(up, ast.Subscript) and up.value is n:
            (reads.setdefault(n.id, []).append(n) if isinstance(up.ctx, ast.Load) else bad.add(n.id))
        elif isinstance(up, ast.Compare) and n in up.comparators and \
                any(isinstance(op, (ast.In, ast.NotIn)) for op in up.ops):
            reads.setdefault(n.id, []).append(n)
        elif isinstance(up, ast.Compare) and up.left is n and all(isinstance(op, (ast.Is, ast.IsNot)) for op in up.ops):
            pass  # ``p is None``
        elif a.kwarg is not None and n.id == a.kwarg.arg and (isinstance(up, (ast.If, ast.IfExp)) and up.test is n or
                                                              isinstance(up, ast.UnaryOp) and isinstance(up.op, ast.Not)):
            # ``if kwargs:`` reads (a loop that also hands it to a call keeps it unstable, below); only
            # for ``**kwargs``, fresh per call: a shared mutable default ``cache={}`` may have been filled
            reads.setdefault(n.id, []).append(n)
        elif isinstance(up, ast.Call) and (n_in in up.args or n_in in up.keywords):
            passed.setdefault(n.id, []).append(n)
        else:
            bad.add(n.id)  # stored, returned, aliased, combined: out of sight

    def loops_of(node) -> set:
        out, p = set(), parents.get(id(node))
        while p is not None and p is not fn:
            if isinstance(p, (ast.For, ast.AsyncFor, ast.While)):
                out.add(id(p))
            p = parents.get(id(p))
        return out

    out = set()
    for p in params - bad:
        in_loops = set().union(*(loops_of(x) for x in reads.get(p, []))) if reads.get(p) else set()
        if any(loops_of(x) & in_loops for x in passed.get(p, [])):
            continue
        out.add(p)
    cached = frozenset(out)
    fn._pk_stable_dicts = cached  # type: ignore[attr-defined]
    return cached


def forget_passed(call: ast.Call, consts: dict) -> None:
    """A dict the frame knows, handed to a call: the callee may change it, so its value is
    forgotten from here on (the walk meets calls in execution order)."""
    for arg in list(call.args) + [k.value for k in call.keywords]:
        if isinstance(arg, ast.Name) and isinstance(consts.get(arg.id), DictConst):
            del consts[arg.id]
