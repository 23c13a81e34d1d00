"""Computed stores: when a class's attributes cannot be known statically (``setattr(self, name, v)``
with a computed name, writes through ``vars(self)`` or ``self.__dict__``), and the uses that only
look like it (a ``vars(self)`` that is only read, ``setattr`` under ``hasattr(self, name)``, a
``__setattr__`` passing its caller's store on). ``scan.py`` asks these while it reads a class."""
from __future__ import annotations

import ast

from .astutil import dotted, fast_walk
from .calltables import setattr_on
from .model import ClassInfo


#: methods whose computed stores restore a pickled instance's own attributes
RESTORING = frozenset({"__setstate__"})


def mark_dynamic(ci: ClassInfo, mname: str, why: str) -> None:
    """``ci`` stores computed names in ``mname``: its attributes cannot be known statically (the
    first reason is kept; every method is remembered, so a subclass that never runs them is not
    dynamic through them). Not ``__setstate__``: unpickling restores the names a built instance had
    (requests' ``HTTPAdapter``: ``for attr, value in state.items(): setattr(self, attr, value)``),
    and it runs instead of construction, never after it."""
    if mname in RESTORING:
        return
    ci.dynamic = ci.dynamic or why
    ci.dynamic_in.add(mname)


def rebinds_existing(fn, call: ast.Call, selfname: str, key: str) -> bool:
    """``setattr(self, key, v)`` sits under ``if hasattr(self, key):``: it only rebinds an
    attribute the instance already has (luigi's ``Task.no_unpicklable_properties``), adding none."""
    if fn is None:
        return False
    if _under_hasattr(fn, call, selfname, key):
        return True
    return _restores_saved(fn, call, selfname, key)


def _is_hasattr_key(test, selfname: str, key: str) -> bool:
    return isinstance(test, ast.Call) and dotted(test.func) == "hasattr" and len(test.args) == 2 and \
        isinstance(test.args[0], ast.Name) and test.args[0].id == selfname and \
        isinstance(test.args[1], ast.Name) and test.args[1].id == key


_LEAVES = (ast.Raise, ast.Return, ast.Continue, ast.Break)


def _under_hasattr(fn, node, selfname: str, key: str) -> bool:
    """Under ``if hasattr(self, key):``, or after (or in the ``else`` of) ``if not hasattr(self,
    key): raise`` (gpytorch's ``Module.initialize``)."""
    def negated(test):
        return isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and \
            _is_hasattr_key(test.operand, selfname, key)
    return _under_test(fn, node, lambda t: _is_hasattr_key(t, selfname, key), negated) is not None


def listing_guard(fn, node, selfname: str, key: str):
    """``X`` when ``node`` (a ``setattr(self, key, v)``) runs only for a ``key`` in ``self.X``:
    under ``if key in self.X:``, or after ``if key not in self.X: raise`` (vispy's
    ``BaseCamera.set_state`` and its ``_state_props``), else None."""
    if fn is None:
        return None

    def listed(test, op) -> bool:
        return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], op) and \
            isinstance(test.left, ast.Name) and test.left.id == key and \
            isinstance(test.comparators[0], ast.Attribute) and isinstance(test.comparators[0].value, ast.Name) and \
            test.comparators[0].value.id == selfname
    test = _under_test(fn, node, lambda t: listed(t, ast.In), lambda t: listed(t, ast.NotIn))
    return test.comparators[0].attr if test is not None else None


def _under_test(fn, node, positive, negative):
    """The test of the ``if`` that ``node`` runs only under: ``if <positive>:``, or after (or in the
    ``else`` of) ``if <negative>: raise`` (a body that leaves); None when there is none."""
    def inside(stmts) -> bool:
        return any(x is node for st in stmts for x in fast_walk(st))
    for n in fast_walk(fn):
        if isinstance(n, ast.If) and positive(n.test) and inside(n.body):
            return n.test
        if isinstance(n, ast.If) and negative(n.test) and n.body and isinstance(n.body[-1], _LEAVES):
            if inside(n.orelse):
                return n.test
            for parent in fast_walk(fn):
                for name in ("body", "orelse", "finalbody"):
                    block = getattr(parent, name, None)
                    if isinstance(block, list) and any(b is n for b in block):
                        after = block[[i for i, b in enumerate(block) if b is n][0] + 1:]
                        if inside(after):
                            return n.test
    return None


_ITEMS = {"items", "iteritems", "six.iteritems", "iteritems", "viewitems"}


def _saved_dict(it, key: str):
    """The local dict name a loop ``for key, value in <it>`` walks (``d.items()``,
    ``six.iteritems(d)``), else None."""
    if not isinstance(it, ast.Call):
        return None
    f = it.func
    if isinstance(f, ast.Attribute) and f.attr in _ITEMS and not it.args and isinstance(f.value, ast.Name):
        return f.value.id
    if (dotted(f) or "").split(".")[-1] == "iteritems" and len(it.args) == 1 and isinstance(it.args[0], ast.Name):
        return it.args[0].id
    return None


def _is_getattr_self(v, selfname: str, key: str) -> bool:
    """``getattr(self, key)`` without a default: the attribute exists when it returns."""
    return isinstance(v, ast.Call) and dotted(v.func) == "getattr" and len(v.args) == 2 and not v.keywords and \
        isinstance(v.args[0], ast.Name) and v.args[0].id == selfname and \
        isinstance(v.args[1], ast.Name) and v.args[1].id == key


def _restores_saved(fn, call: ast.Call, selfname: str, key: str) -> bool:
    """``setattr(self, key, value)`` in ``for key, value in saved.items():`` where every entry of
    the local dict ``saved`` was read off the instance (``saved[k] = getattr(self, k)``, or under
    ``if hasattr(self, k):``, or ``{k: getattr(self, k) for k in ...}``): a context manager putting
    back the attributes it swapped out (luigi's ``Task.no_unpicklable_properties``) adds none."""
    loop = next((n for n in fast_walk(fn) if isinstance(n, ast.For) and
                 any(x is call for st in n.body for x in fast_walk(st))), None)
    if loop is None or not (isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2 and
                            isinstance(loop.target.elts[0], ast.Name) and loop.target.elts[0].id == key):
        return False
    saved = _saved_dict(loop.iter, key)
    if saved is None:
        return False
    seen_init = False
    for n in fast_walk(fn):
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id == saved:
                    v = n.value
                    empty = isinstance(v, ast.Dict) and not v.keys or \
                        isinstance(v, ast.Call) and dotted(v.func) == "dict" and not v.args and not v.keywords
                    comp = isinstance(v, ast.DictComp) and len(v.generators) == 1 and \
                        isinstance(v.key, ast.Name) and _is_getattr_self(v.value, selfname, v.key.id)
                    if isinstance(n, ast.AugAssign) or not (empty or comp):
                        return False
                    seen_init = True
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == saved:
                    k = t.slice
                    if not isinstance(k, ast.Name) or not (
                            _is_getattr_self(n.value, selfname, k.id) or _under_hasattr(fn, n, selfname, k.id)):
                        return False
                elif not isinstance(t, (ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.Starred)):
                    return False
                elif isinstance(t, (ast.Tuple, ast.List)) and any(
                        isinstance(e, ast.Name) and e.id == saved for e in t.elts):
                    return False
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == saved and \
                n.attr in ("update", "setdefault", "__setitem__"):
            return False
        elif isinstance(n, ast.arg) and n.arg == saved:
            return False
    return seen_init


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


def _computed_stores(f) -> list:
    """(class, methods) of every class of the MRO that stores computed names: the dynamic classes
    and the stores over a class-level list this MRO cannot read (``f.listed_dynamic``)."""
    return [(c, c.dynamic_in) for c in f.classes if c.dynamic] + [(c, {m}) for c, m in f.listed_dynamic]


def dynamic_only_in_skipped_init(an, f) -> bool:
    """Every computed store of the MRO sits in the ``__init__`` of a base that construction never
    runs: the class's own ``__init__`` chains to no base initialiser at all (luigi's
    ``BeamDataflowJobTask`` skips ``Task.__init__``, whose ``setattr(self, key, value)`` loop
    sets the parameters): it is closed after all."""
    init = an.resolve_method(f.linear, "__init__")
    if init is None or init[2] != "method" or init[0].module.external:
        return False
    dyn = _computed_stores(f)
    if not dyn or any(c is init[0] or ms != {"__init__"} or c.module.external for c, ms in dyn):
        return False
    for n in fast_walk(init[1]):
        if isinstance(n, ast.Call):
            name = dotted(n.func) or ""
            if name == "super" or name.endswith(".__init__") or name.startswith("super("):
                return False  # some base initialiser may run
            if isinstance(n.func, ast.Attribute) and n.func.attr == "__init__":
                return False
    return True


def dynamic_methods(f) -> frozenset:
    """``Class.method`` of every method of the MRO that stores computed names; empty when a
    computed store is not tied to a method of the tree (a class-body ``__getattr__``, a library
    class): the class is open everywhere then. A ``__getattr__`` that may answer any name opens it
    everywhere even when a class of the MRO also stores computed names in a method (qtile's
    ``CommandObject.__new__`` beside ``Configurable.__getattr__``, which serves the ``defaults``
    a widget registers): a read during construction reaches the hook as well."""
    dyn = _computed_stores(f)
    if not dyn or any(not ms or c.module.external or c.lookup_hook for c, ms in dyn):
        return frozenset()
    return frozenset(f"{c.qualname}.{m}" for c, ms in dyn for m in ms)
