"""Instances a class's methods build, or are handed, outside ``__init__``: class and static methods
that store on an instance parameter (``cls._initialize_instance(obj, ...)``), ``__new__``-built
alternative constructors and what they set, factories that store on ``cls(...)`` results, and the
methods that re-run an ``__init__`` (``X.__init__(self, ...)`` outside ``__init__``). ``scan.py``
records them while it reads a class; the class model and the rules ask them directly."""
from __future__ import annotations

import ast
from typing import Optional

from .astutil import dotted, fast_walk, first_param, is_super, is_super_call, memo_on, own_nodes
from .model import ClassInfo


def instance_params(ci: ClassInfo, mname: str, fn: ast.FunctionDef, kind: str) -> list[str]:
    """Parameters of class/static method ``mname`` that receive the instance: some method of the
    class passes ``self`` there (``self.m(self, ...)``, ``Cls.m(self, ...)``; see
    :func:`alias_param`) and the method stores attributes on it."""
    def compute() -> list[str]:
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if kind == "class":
            params = params[1:]
        stored = {n.value.id for n in fast_walk(fn) if isinstance(n, ast.Attribute) and
                  isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)} & set(params)
        if not stored:
            return []
        callers = []
        for other, ofn in ci.methods.items():
            okind = ci.method_kind.get(other, "method")
            names = {first_param(ofn)} if okind in ("method", "property") else new_vars(ofn)
            names.discard(None)
            callers.append((ofn, names))
        return sorted(set(_instance_slots(fn, kind, mname, callers)) & stored)
    return memo_on(fn, "_pk_instance_params", compute)


def _instance_slots(fn: ast.FunctionDef, kind: str, mname: str, callers):
    """The parameters of ``fn`` (class/static method ``mname``) that a call ``x.mname(...)`` in one of
    ``callers`` ((function, the names bound to its instance there)) binds to that instance."""
    for ofn, names in callers:
        if not names:
            continue
        for n in fast_walk(ofn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == mname:
                for sn in names:
                    p = alias_param(fn, kind, n, sn)
                    if p is not None:
                        yield p


def named_instance_param(ci: ClassInfo, mname: str, fn: ast.FunctionDef, kind: str) -> str | None:
    """``self`` when a static or class method has a parameter of that name after its first one and
    some method in the class's module passes its own instance there (ryu's
    ``_Value.do_init(cls_type, self, kwargs)``, which subclasses call as ``self.do_init(Cls, self,
    kwargs)`` from their own ``__init__``, outside the class that :func:`instance_params` searches
    for callers)."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args][1:]
    if "self" not in params:
        return None

    def compute() -> str | None:
        callers = ((n, {first_param(n)} - {None}) for n in fast_walk(ci.module.tree)
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not fn)
        return "self" if "self" in _instance_slots(fn, kind, mname, callers) else None
    return memo_on(fn, "_pk_named_instance_param", compute)


def computed_store_line(fn: ast.FunctionDef, name: str) -> int | None:
    """Line of the first store of computed names on ``name`` in ``fn``'s own code (not in the functions
    and classes nested in it, which have their own ``self``): ``name.__dict__.update(...)``,
    ``vars(name).update(...)``, ``setattr(name, <not a string literal>, v)``; else None."""
    from .calltables import setattr_on
    for n in own_nodes(fn.body):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        if isinstance(f, ast.Attribute) and f.attr == "update":
            v = f.value
            if dotted(v) == f"{name}.__dict__" or (isinstance(v, ast.Call) and dotted(v.func) == "vars" and
                                                    len(v.args) == 1 and dotted(v.args[0]) == name):
                return n.lineno
        got = setattr_on(n, name)
        if got is not None and not (isinstance(got[0], ast.Constant) and isinstance(got[0].value, str)):
            return n.lineno
    return None


def new_vars(fn: ast.FunctionDef) -> set:
    """Names a function binds to an instance it makes with ``__new__`` (``res = super().__new__(cls)``)."""
    return {t.id for n in fast_walk(fn) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "__new__"
            for t in n.targets if isinstance(t, ast.Name)}


def handoffs(ci: ClassInfo, fn: ast.FunctionDef, var: str) -> tuple:
    """(method, parameter) of each class/static method of ``ci`` that ``fn`` hands the instance
    bound to ``var`` (``cls._initialize_instance(obj, ...)`` after ``obj = cls.__new__(cls)``)."""
    out = []
    for n in fast_walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ci.methods:
            m = n.func.attr
            kind = ci.method_kind.get(m, "method")
            if kind in ("class", "static"):
                p = alias_param(ci.methods[m], kind, n, var)
                if p is not None:
                    out.append((m, p))
    return tuple(out)


def alias_param(fn: ast.FunctionDef, kind: str, call: ast.Call, selfname: str) -> str | None:
    """The parameter of class/static method ``fn`` that ``call`` binds to the instance
    ``selfname`` (positionally or by keyword), or None."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if kind == "class":
        params = params[1:]
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return None
        if isinstance(a, ast.Name) and a.id == selfname:
            return params[i] if i < len(params) else None
    for k in call.keywords:
        if k.arg and isinstance(k.value, ast.Name) and k.value.id == selfname and \
                k.arg in params + [a.arg for a in fn.args.kwonlyargs]:
            return k.arg
    return None


def self_targets(t: ast.expr, selfname: str) -> list[str]:
    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == selfname:
        return [t.attr]
    if isinstance(t, (ast.Tuple, ast.List)):
        out = []
        for e in t.elts:
            out += self_targets(e.value if isinstance(e, ast.Starred) else e, selfname)
        return out
    if isinstance(t, ast.Starred):
        return self_targets(t.value, selfname)
    return []


def new_instances(fn: ast.FunctionDef) -> list[tuple[int, frozenset, bool]]:
    """Objects a function makes with ``__new__`` (``obj = cls.__new__(cls)``,
    ``super().__new__(cls)``): (line, attributes it sets on them, whether it calls their __init__)."""
    out = []
    for node in fast_walk(fn):
        # `obj = cls.__new__(cls)`, or annotated: `t: Template = object.__new__(cls)` (jinja2)
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
            node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "__new__":
            var = target.id
            attrs: set[str] = set()
            calls_init = False
            for sub in fast_walk(fn):
                if isinstance(sub, (ast.Assign, ast.AnnAssign)):
                    ts = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                    for t in ts:
                        attrs.update(self_targets(t, var))
                elif isinstance(sub, ast.Call):
                    f = dotted(sub.func) or ""
                    if f == f"{var}.__init__":
                        calls_init = True
                    if f in ("setattr", "object.__setattr__") and len(sub.args) >= 2 and \
                            isinstance(sub.args[0], ast.Name) and sub.args[0].id == var and \
                            isinstance(sub.args[1], ast.Constant):
                        attrs.add(str(sub.args[1].value))
            out.append((node.lineno, frozenset(attrs), calls_init))
    return out


def new_copies_dict(fn: ast.FunctionDef):
    """The line where a ``__new__`` fills the instance it made from another object's attributes
    (``res = super().__new__(cls); vars(res).update(vars(orig))``, ``res.__dict__.update(...)``,
    ``res.__dict__ = ...``; importlib_metadata's ``Message``), else None: that instance has
    attributes no statement names."""
    made = new_vars(fn)
    if not made:
        return None
    def held(e) -> bool:  # vars(res) or res.__dict__
        if isinstance(e, ast.Call) and dotted(e.func) == "vars" and len(e.args) == 1:
            e = e.args[0]
        elif isinstance(e, ast.Attribute) and e.attr == "__dict__":
            e = e.value
        else:
            return False
        return isinstance(e, ast.Name) and e.id in made
    for n in fast_walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "update" and held(n.func.value):
            return n.lineno
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "__dict__" and held(t)
                                             for t in n.targets):
            return n.lineno
    return None


def new_runtime_base(fn: ast.FunctionDef):
    """(line, other bases) where a ``__new__`` builds the class of the instance it returns with
    ``type(name, (cls, base, ...), ns)``, bases beside its own class chosen at run time (pywikibot's
    ``BoundedPoolExecutor`` mixes in the executor it is given: ``new = type(..., (cls, base), {});
    return super().__new__(new)``), else None. The caller decides whether the other bases are
    known classes."""
    params = fn.args.posonlyargs + fn.args.args
    if not params:
        return None
    own = params[0].arg
    built: dict[str, ast.Call] = {}  # local name -> the type() call bound to it

    def made(e):
        if isinstance(e, ast.Name):
            e = built.get(e.id)
        if isinstance(e, ast.Call) and dotted(e.func) == "type" and len(e.args) == 3 and \
                isinstance(e.args[1], ast.Tuple) and len(e.args[1].elts) > 1 and \
                any(isinstance(b, ast.Name) and b.id == own for b in e.args[1].elts):
            return e
        return None

    def instance_of(e):  # ``super().__new__(new)``, ``object.__new__(new)``: the type() call
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "__new__" and e.args:
            return made(e.args[0])
        return None
    held: dict[str, ast.Call] = {}  # local name -> the type() call of the instance it holds
    for n in ast.walk(fn):  # in source order: a name is bound before the statement that uses it
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            if made(n.value):
                built[n.targets[0].id] = n.value
            elif (t := instance_of(n.value)) is not None:
                held[n.targets[0].id] = t
    for n in fast_walk(fn):
        # the instance returned is made from it, directly or through a local
        if isinstance(n, ast.Return) and n.value is not None:
            t = held.get(n.value.id) if isinstance(n.value, ast.Name) else instance_of(n.value)
            if t is not None:
                return t.lineno, [b for b in t.args[1].elts if not (isinstance(b, ast.Name) and b.id == own)]
    return None


def runtime_base(classes: list, resolve_class) -> Optional[str]:
    """Why the instance's MRO holds a base no class statement names: a ``__new__`` that runs (the
    MRO's first, and those it passes construction on to) returns an instance of ``type(name, (cls,
    base), ns)`` with a ``base`` that is no class of the tree; else None."""
    for c in classes:
        fn = c.methods.get("__new__") if isinstance(c, ClassInfo) else None
        if fn is None:
            continue
        got = new_runtime_base(fn)
        if got is not None and any(not isinstance(resolve_class(c.module, dotted(b) or ""), ClassInfo) and
                                   dotted(b) not in ("object", "builtins.object") for b in got[1]):
            return f"a base {c.qualname}.__new__ adds at run time (line {got[0]})"
        if not passes_new_on(fn):
            return None
    return None


def passes_new_on(fn: ast.FunctionDef) -> bool:
    """A ``__new__`` that hands construction to the next class's (``return super().__new__(cls,
    ...)``): that one still runs."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__new__" and
               isinstance(n.func.value, ast.Call) and isinstance(n.func.value.func, ast.Name) and
               n.func.value.func.id == "super" for n in fast_walk(fn))


def _delegates_to_base_factory(func: ast.expr, name: str) -> bool:
    """``super().<name>`` called from the classmethod ``<name>`` itself: an overriding factory that
    lets its base's factory build the instance (fairseq's ``model = super().build_model(args, task)``)."""
    return isinstance(func, ast.Attribute) and func.attr == name and is_super_call(func.value)


def _factory_made(fn: ast.FunctionDef, clsname: str, own: str = "") -> set:
    """Locals a classmethod binds to an instance it builds with ``cls(...)`` (or ``Own(...)``, its
    class by name; or with its base's same-named factory)."""
    names = {clsname, own} - {""}
    return {n.targets[0].id for n in fast_walk(fn)
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
            and isinstance(n.value, ast.Call) and (isinstance(n.value.func, ast.Name) and n.value.func.id in names
                                                   or _delegates_to_base_factory(n.value.func, fn.name))}


def factory_stores(fn: ast.FunctionDef, clsname: str) -> list[tuple[str, int]]:
    """(attribute, line) of the stores a classmethod makes on instances it builds with
    ``cls(...)`` (or has its base's same-named factory build): ``o = cls(settings); o.crawler =
    crawler`` sets ``crawler`` after construction."""
    made = _factory_made(fn, clsname)
    out = []
    if made:
        for n in fast_walk(fn):
            if isinstance(n, (ast.Assign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in made:
                        out.append((t.attr, n.lineno))
    return out


def factory_computed(fn: ast.FunctionDef, clsname: str, own: str = ""):
    """The line of a ``setattr(o, k, v)`` on an instance the classmethod builds, with ``k, v`` the
    pairs of a mapping the caller hands in (``for k, v in json.items():``), or None. tweepy's
    models (``result = cls(api)``; ``lst = List(api)`` in ``List.parse``) copy an API response onto
    the instance: names no code of the tree spells. Names a factory restores from the object's own
    saved state (ase's ``read_from_trajectory``) or from a class-level field list (mlrun's
    ``ModelObj.from_dict``) are the class's own, so those keep it closed, as does a setattr under
    ``if hasattr(obj, key):`` (transformers' ``PreTrainedConfig.from_dict``)."""
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    if fn.args.kwarg is not None:
        params.add(fn.args.kwarg.arg)
    loops = [n for n in fast_walk(fn)
             if isinstance(n, ast.For) and isinstance(n.target, ast.Tuple) and len(n.target.elts) == 2
             and all(isinstance(e, ast.Name) for e in n.target.elts)
             and isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Attribute) and n.iter.func.attr == "items"
             and isinstance(n.iter.func.value, ast.Name) and n.iter.func.value.id in params]
    made = _factory_made(fn, clsname, own) if loops else None  # most classmethods have no such loop
    if not made:
        return None
    from .dynamic import rebinds_existing
    for loop in loops:
        k = loop.target.elts[0].id
        for n in fast_walk(loop):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr" and \
                    len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and n.args[0].id in made and \
                    isinstance(n.args[1], ast.Name) and n.args[1].id == k and \
                    not rebinds_existing(fn, n, n.args[0].id, k):
                return n.lineno
    return None


def scan_alt_ctor(ci: ClassInfo, mname: str, fn: ast.FunctionDef) -> None:
    """A class/static method that builds with ``__new__`` and skips ``__init__``."""
    made = new_instances(fn)
    names = sorted(new_vars(fn)) if made else []
    for line, attrs, calls_init in made:
        handed = tuple(h for v in names for h in handoffs(ci, fn, v))
        ci.alt_ctors.append((mname, line, attrs, calls_init, handed))


def init_callers(c: ClassInfo) -> list:
    """(method, the receivers' short names of its ``X.__init__(...)`` calls, "super" for
    ``super().__init__``) for each method of ``c`` other than ``__init__`` and static/class
    methods that makes such a call; once per class."""
    def compute() -> list:
        got = []
        for mname, fn in c.methods.items():
            if mname == "__init__" or c.method_kind.get(mname) in ("static", "class"):
                continue
            callees = set()
            for node in fast_walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__":
                    v = node.func.value
                    callees.add("super" if is_super(v, fn)
                                else (dotted(v) or "").split(".")[-1])
            if callees:
                got.append((mname, callees))
        return got
    return memo_on(c, "_pk_init_callers", compute)


def new_assigns(fn: ast.FunctionDef) -> set:
    """Attributes ``__new__`` sets on the instance it creates: they exist before ``__init__`` runs.
    The instance is what ``__new__`` makes with ``__new__``, or what it returns (a name or
    ``cls._instance``, a singleton's) after binding it to a call that makes it: one that is
    handed ``cls`` first (torch's ``r = torch.Tensor._make_wrapper_subclass(cls, ...)``) or a
    ``__new__`` call."""
    got = set().union(*(attrs for _line, attrs, _init in new_instances(fn)))
    params = fn.args.posonlyargs + fn.args.args
    if not params:
        return got
    cls = params[0].arg
    returned = {dotted(n.value) for n in fast_walk(fn) if isinstance(n, ast.Return) and n.value is not None} - {None}
    made = set()
    for n in fast_walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and dotted(n.targets[0]) in returned and \
                isinstance(n.value, ast.Call) and ((n.value.args and isinstance(n.value.args[0], ast.Name) and
                                                    n.value.args[0].id == cls) or
                                                   (dotted(n.value.func) or "").endswith("__new__")):
            made.add(dotted(n.targets[0]))
    for n in fast_walk(fn) if made else ():
        if isinstance(n, ast.Assign):
            got.update(t.attr for t in n.targets if isinstance(t, ast.Attribute) and dotted(t.value) in made)
    return got
