"""What a class statement says about its class, in one pass over its body: bases, decorators,
methods and their kinds, class-level names, dataclass-like fields, slots (``model.build_module``
calls ``collect_class`` for each class statement of a module)."""
from __future__ import annotations

import ast

from .astutil import (MODULE_BLOCKS, _is_noreturn_annotation, _only_raises_not_implemented, block_statements,
                      dotted, fast_walk, first_param, terminates)
from .mangle import mangled
from .partlyopen import serves_config
from .model import FIELD_DECORATORS, ClassInfo, ModuleInfo


def _decorator_names(node) -> list[str]:
    return [dotted(d) or "" for d in node.decorator_list]


#: base-list helpers that build a temporary class with a metaclass (``six.with_metaclass(M, Base)``,
#: ``future.utils.with_metaclass``, pyglet's ``pyglet.util.with_metaclass``)
WITH_METACLASS = {"with_metaclass"}


def with_metaclass_call(b: ast.expr) -> bool:
    """``b`` is ``with_metaclass(Meta, *bases)`` in a class's base list."""
    return isinstance(b, ast.Call) and len(b.args) >= 1 and not b.keywords and \
        (dotted(b.func) or "").split(".")[-1] in WITH_METACLASS


def base_exprs(node: ast.ClassDef) -> list[ast.expr]:
    """The bases a class statement really gives its class: those of a ``with_metaclass(M, A, B)``
    call are A and B (six's helper class removes itself from the MRO), none of them ``object``."""
    out: list[ast.expr] = []
    for b in node.bases:
        out.extend(b.args[1:] if with_metaclass_call(b) else [b])
    return out


#: functional named-tuple factories used as a base (``class P(namedtuple("_P", "x y")):``)
NAMEDTUPLE_FACTORIES = {"namedtuple", "NamedTuple"}
#: what every named tuple class has besides its fields
NAMEDTUPLE_API = ("_fields", "_field_defaults", "_asdict", "_replace", "_make")


def namedtuple_fields(b: ast.expr):
    """The field names of a ``namedtuple("N", "a b")`` / ``namedtuple("N", ["a", "b"])`` /
    ``NamedTuple("N", [("a", int), ...])`` / ``NamedTuple("N", a=int)`` base, else None (not such a
    call, or fields the source does not spell out)."""
    if not (isinstance(b, ast.Call) and (dotted(b.func) or "").split(".")[-1] in NAMEDTUPLE_FACTORIES):
        return None
    spec = b.args[1] if len(b.args) >= 2 else next((k.value for k in b.keywords if k.arg in ("field_names", "fields")), None)
    if spec is None:
        names = [k.arg for k in b.keywords if k.arg and k.arg not in ("rename", "defaults", "module")]
        return names or None
    if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        return spec.value.replace(",", " ").split()
    if isinstance(spec, (ast.List, ast.Tuple)):
        out = []
        for e in spec.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                out.append(e.value)
            elif isinstance(e, (ast.Tuple, ast.List)) and e.elts and isinstance(e.elts[0], ast.Constant) \
                    and isinstance(e.elts[0].value, str):
                out.append(e.elts[0].value)
            else:
                return None
        return out
    return None


def collect_class(mod: ModuleInfo, node: ast.ClassDef, prefix: str) -> None:
    qual = f"{prefix}{node.name}"
    ci = ClassInfo(mod, qual, node)
    mod.classes[qual] = ci
    for b in base_exprs(node):
        fields = namedtuple_fields(b)
        if fields is not None:
            # the generated base: a tuple whose fields (and API) are class-level descriptors
            ci.bases.append("tuple")
            ci.class_names.update(fields, NAMEDTUPLE_API)
            continue
        if isinstance(b, ast.Starred) and isinstance(b.value, ast.Name):
            ci.bases.extend(_starred_bases(mod, b.value.id) or ["?"])
            continue
        d = dotted(b)
        ci.bases.append(d or "?")
    metas = [kw.value for kw in node.keywords if kw.arg == "metaclass"] + \
        [b.args[0] for b in node.bases if with_metaclass_call(b)]
    if any((dotted(m) or "").endswith("ABCMeta") for m in metas):
        ci.abstract = ci.abc_meta = True
    decos = _decorator_names(node)
    for d, dn in zip(decos, node.decorator_list):
        if d in FIELD_DECORATORS:
            ci.field_kind = "dataclass" if "dataclass" in d else "attrs"
            ci.generated = frozenset({"__repr__", "__eq__"})  # what the decorator writes unless told not to
            if ci.field_kind == "attrs":
                # attrs keeps a class's own __init__ (or init=False) and writes its initialiser as
                # __attrs_init__, a method of the class
                ci.class_names.add("__attrs_init__")
            if isinstance(dn, ast.Call):
                for kw in dn.keywords:
                    if kw.arg == "init" and isinstance(kw.value, ast.Constant) and kw.value.value is False:
                        ci.field_init = False
                    if kw.arg in ("repr", "eq") and isinstance(kw.value, ast.Constant) and kw.value.value is False:
                        ci.generated = ci.generated - {f"__{kw.arg}__"}
    _collect_body(ci, node.body, qual)


def _call_form_setter(ci: ClassInfo, value: ast.expr):
    """The method ``prop = property(fget, fset)`` (or ``fset=``) names as its setter: ``self.prop
    = v`` runs it (boto's ``Provider.access_key``), as a ``@prop.setter`` does."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "property"):
        return None
    fset = value.args[1] if len(value.args) > 1 else next((k.value for k in value.keywords if k.arg == "fset"), None)
    if isinstance(fset, ast.Name) and ci.method_kind.get(fset.id) == "method":
        return ci.methods[fset.id]
    return None


def _collect_body(ci: ClassInfo, body: list[ast.stmt], qual: str, under_if: frozenset = frozenset()) -> None:
    """``under_if``: plain methods an ``if`` block (no ``else``) keeps under an alias and redefines
    as a wrapper (matplotlib's ``Bbox``: ``if DEBUG: ___init__ = __init__; def __init__(...):
    self.___init__(...)``): the wrapper runs only when the test holds, the plain one by default."""
    # a function the class body uses as a decorator runs at class creation: not a method
    used_as_decorator = {n for st in body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
                         for n in _decorator_names(st) if "." not in n}
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decos = _decorator_names(stmt)
            if any(d.split(".")[-1] == "overload" for d in decos):
                continue  # a typing.overload signature: the implementation below it is what runs
            if stmt.name in under_if:
                continue  # the plain definition before the ``if`` is what runs by default
            ci.class_names.add(stmt.name)
            kind = "static" if stmt.name in used_as_decorator and not decos else "method"
            for d in decos:
                last = d.split(".")[-1]
                if last == "staticmethod":
                    kind = "static"
                elif last == "classmethod":
                    kind = "class"
                elif last in ("property", "cached_property", "cache", "lru_cache") or last.endswith("property"):
                    # ``@staticmethod @lru_cache(...)``: a cached static function, not a property
                    kind = kind if kind in ("static", "class") else "property"
                elif last in ("abstractmethod", "abstractproperty"):
                    ci.abstract = True
                    ci.abstract_methods.add(stmt.name)
                elif last in ("setter", "deleter", "getter"):
                    kind = "property"
                elif last == "default" and d.count(".") == 1 and d.split(".")[0] in ci.annotated_only:
                    # attrs' ``x = field(init=False)`` then ``@x.default def _x(self)``: the generated
                    # __init__ stores it, in the order of the fields
                    del ci.annotated_only[d.split(".")[0]]
                    ci.fields.add(d.split(".")[0])
            if kind == "method" and not _takes_instance(stmt):
                kind = "static"  # a JIT kernel, a code template, a missing @staticmethod
            elif kind == "property" and first_param(stmt) in CLASS_NAMES:
                kind = "class"  # ``@classproperty def name(cls)``: reads the class, never an instance
            if any(d.endswith(".setter") for d in decos):
                ci.setters[stmt.name] = stmt  # type: ignore[assignment]
            if stmt.name in ci.methods and kind == "property" and ci.method_kind.get(stmt.name) == "property":
                continue  # keep the getter
            ci.methods[stmt.name] = stmt  # type: ignore[assignment]
            ci.method_kind[stmt.name] = kind
            if _is_noreturn_annotation(stmt.returns):
                ci.noreturn_methods.add(stmt.name)
            if _only_raises_not_implemented(stmt):
                ci.raising_methods.add(stmt.name)
            else:
                ci.raising_methods.discard(stmt.name)
            if stmt.name == "__getattr__" and serves_config(stmt):
                ci.config_getattr = stmt.lineno  # open for its configuration keys only (partlyopen.py)
            elif stmt.name in ("__getattr__", "__getattribute__") and not _passes_through(stmt):
                ci.dynamic = f"defines {stmt.name}"
                ci.lookup_hook = stmt.lineno
        elif isinstance(stmt, ast.ClassDef):
            # a nested ``class __Heading1`` binds ``_Owner__Heading1``, as a private method does
            # (xlwings' ``MarkdownStyle``); mangle.py renames functions and attributes, not classes
            ci.class_names |= {stmt.name, mangled(ci.qualname.split(".")[-1], stmt.name)}
            collect_class(ci.module, stmt, f"{qual}.")
        elif isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                for n in _target_names(t):
                    if _base_method_wrapped(ci, n, stmt.value):
                        continue  # ``__init__ = deprecated(...)(Base.__init__)``: the base's method runs
                    ci.class_names.add(n)
                    if n in _LOOKUPS and not ci.dynamic and not isinstance(stmt.value, ast.Constant):
                        # ``__getattr__ = dict.__getitem__`` (an AttrDict); ``= None`` removes it
                        ci.dynamic, ci.lookup_hook = f"binds {n}", stmt.lineno
                    if n == "__slots__":
                        ci.slots |= _slot_names(stmt.value)
                    elif (fset := _call_form_setter(ci, stmt.value)) is not None:
                        ci.setters[n] = fset
                    else:  # a later plain binding replaces an earlier property's setter
                        ci.setters.pop(n, None)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            n = stmt.target.id
            ci.class_names.add("__annotations__")  # an annotated class body has its own __annotations__
            if stmt.value is not None:
                ci.class_names.add(n)
                _note_field_value(ci, n, stmt)
            else:
                ci.annotated_only[n] = stmt.lineno
                if _is_classvar(stmt.annotation):
                    ci.classvar_decls.add(n)
                if _is_classvar(stmt.annotation) or (dotted(stmt.annotation) or "").split(".")[-1] == "InitVar":
                    continue  # ClassVar: not per instance; InitVar: passed to __post_init__, never stored
                ci.fields.add(n)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for a in stmt.names:
                ci.class_names.add((a.asname or a.name).split(".")[0])
        elif isinstance(stmt, ast.If) and (dotted(stmt.test) or "").split(".")[-1] == "TYPE_CHECKING":
            _collect_body(ci, list(stmt.orelse), qual)  # the body is a stub for the type checker: never defined
        elif isinstance(stmt, ast.If) and not stmt.orelse and (aliased := _aliased_plain(body, stmt)):
            _collect_body(ci, stmt.body, qual, under_if | aliased)
        elif isinstance(stmt, MODULE_BLOCKS):
            _collect_body(ci, block_statements(stmt), qual)
        elif isinstance(stmt, (ast.For,)):
            ci.class_names.update(_target_names(stmt.target))
            _collect_body(ci, stmt.body, qual)
    ci.scanned = False  # the method scan runs on first use (ensure_scanned): dependency modules
    #                     only pay for the classes some analysed class inherits from


def _base_method_wrapped(ci: ClassInfo, name: str, value: ast.expr) -> bool:
    """``name = Base.name`` or ``name = wrap(...)(Base.name)`` / ``wrap(Base.name)`` in the body of
    a class that has ``Base`` among its bases: the MRO's lookup of ``name`` finds ``Base.name`` as
    it would without the line (ase's ``NPT.__init__ = deprecated(...)(MelchionnaNPT.__init__)``,
    modelscope's ``__init__ = partialmethod(TriangleMultiplication.__init__, outgoing=True)``)."""
    while isinstance(value, ast.Call) and value.args and (
            len(value.args) == 1 and not value.keywords or
            (dotted(value.func) or "").split(".")[-1] in ("partialmethod", "partial")):
        value = value.args[0]  # ``partialmethod(Base.__init__, flag=True)``: Base's, with arguments bound
    if not (isinstance(value, ast.Attribute) and value.attr == name):
        return False
    base = dotted(value.value) or ""
    return bool(base) and any(b == base or b.split(".")[-1] == base.split(".")[-1] for b in ci.bases)


#: names the instance parameter goes by
#: methods whose reads are not judged: they run before or instead of construction, or are the
#: attribute protocol itself. Pickling and copying (``__getstate__``, ``__reduce__``, ``__copy__``)
#: run on a built instance, so their reads are judged (astropy 7.2.0's ``DataInfo.__getstate__``)
NOT_CHECKED_METHODS = {"__init__", "__new__", "__init_subclass__", "__post_init__", "__attrs_post_init__", "__del__", "__setstate__",
                       "__class_getitem__", "__set_name__",
                       "__getattr__", "__getattribute__", "__setattr__", "__delattr__"}

INSTANCE_NAMES = {"self", "_self", "self_", "this"}
#: names the class parameter goes by (a class-level property's receiver)
CLASS_NAMES = {"cls", "klass", "mcs", "mcls", "metacls"}


def _aliased_plain(body: list, stmt: ast.If) -> frozenset:
    """Methods defined plainly before ``stmt`` that its body aliases (``_x = name``) and redefines."""
    plain = {st.name for st in body[:body.index(stmt)] if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))}
    aliased = {st.value.id for st in stmt.body if isinstance(st, ast.Assign) and isinstance(st.value, ast.Name)}
    redefined = {st.name for st in stmt.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return frozenset(plain & aliased & redefined)


def _takes_instance(fn) -> bool:
    """A function in a class body is an instance method when its first parameter is the instance:
    named ``self`` (whatever decorates it), or any name on an undecorated dunder. A kernel under
    ``@triton.jit``, a template under its own decorator, or a plain ``def helper(x)`` (a missing
    @staticmethod) reads attributes of its argument, not of an instance."""
    first = first_param(fn)
    if first is None:
        return False
    if first in INSTANCE_NAMES:
        return True
    return fn.name.startswith("__") and fn.name.endswith("__") and not fn.decorator_list


def _is_classvar(ann: ast.expr) -> bool:
    """``ClassVar``, ``ClassVar[T]``, ``typing.ClassVar[T]`` or the same as a string."""
    if isinstance(ann, ast.Subscript):
        ann = ann.value
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return ann.value.split("[")[0].split(".")[-1].strip() == "ClassVar"
    return (dotted(ann) or "").split(".")[-1] == "ClassVar"


def _note_field_value(ci: ClassInfo, n: str, stmt: ast.AnnAssign) -> None:
    """``x: int = field(init=False)`` with no default is not assigned by the generated __init__."""
    v = stmt.value
    if isinstance(v, ast.Call) and (dotted(v.func) or "").split(".")[-1] in ("field", "ib", "attrib"):
        kws = {k.arg for k in v.keywords}
        init_false = any(k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                         for k in v.keywords)
        if not ({"default", "default_factory", "factory"} & kws) and not v.args:
            ci.class_names.discard(n)
            if not init_false:
                ci.fields.add(n)
            else:
                ci.annotated_only[n] = stmt.lineno


def _target_names(t: ast.expr) -> list[str]:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        out = []
        for e in t.elts:
            out += _target_names(e.value if isinstance(e, ast.Starred) else e)
        return out
    return []


def _slot_names(v: ast.expr) -> set[str]:
    if isinstance(v, ast.Constant) and isinstance(v.value, str):
        return {v.value}
    if isinstance(v, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in v.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()



def exported_methods(ci: ClassInfo) -> frozenset:
    """Methods the class body hands to other code as plain functions, in a statement that binds
    no name of the class (MDAnalysis's topology attributes: ``transplants[Atom].append(("bfactor",
    property(bfactor, ...)))`` makes ``bfactor`` a property of ``Atom``, where ``self`` is an
    atom): they run bound to other objects, so their reads are not this class's. A ``x =
    property(fn)`` or a decorator keeps the method the class's own."""
    got = getattr(ci, "_pk_exported", None)
    if got is None:
        names = set()
        for st in ci.node.body:
            if isinstance(st, (ast.Expr, ast.For, ast.If, ast.With)):
                for n in ast.walk(st):
                    if isinstance(n, ast.Call):
                        for a in list(n.args) + [k.value for k in n.keywords]:
                            for x in ast.walk(a):
                                if isinstance(x, ast.Name) and x.id in ci.methods:
                                    names.add(x.id)
        got = ci._pk_exported = frozenset(names)
    return got


def construction_hooks(classes) -> tuple:
    """Methods that run on an instance right after its ``__init__``, before any other method: a
    descriptor's ``__set_name__`` (the owner class's creation calls it, before any ``__get__`` or
    ``__set__`` can run)."""
    own = [c for c in classes if not c.module.external]
    return ("__set_name__",) if any(n in c.methods for c in own for n in ("__get__", "__set__", "__delete__")) else ()


_LOOKUPS = ("__getattr__", "__getattribute__")


def _passes_through(fn) -> bool:
    """Every ``return`` of the ``__getattr__`` hands the lookup on to a base's (``super().__getattr__
    (name)``, ``object.__getattribute__(self, name)``) and every other way out raises: it gives the
    instance nothing the bases do not (gpytorch's ``Module.__getattr__`` over torch's)."""
    returns = [n for n in fast_walk(fn) if isinstance(n, ast.Return)]
    if not returns or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in fast_walk(fn)):
        return False
    for r in returns:
        v = r.value
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in _LOOKUPS):
            return False
        owner = v.func.value
        if not ((isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super")
                or isinstance(owner, (ast.Name, ast.Attribute)) and v.args and isinstance(v.args[0], ast.Name)
                and v.args[0].id == first_param(fn)):
            return False
    return terminates(fn.body, through_try=True)


def _starred_bases(mod: ModuleInfo, name: str) -> list:
    """``class E(*bases)``: the classes of the first module-level ``bases = (A, B)`` (in an ``if``
    or ``try`` too, the first alternative as for any base: aiohttp's ``cert_errors_bases``), else []."""
    todo = list(mod.tree.body)
    while todo:
        st = todo.pop(0)
        if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in st.targets) and \
                isinstance(st.value, (ast.Tuple, ast.List)):
            names = [dotted(e) for e in st.value.elts]
            return names if names and all(names) else []
        if isinstance(st, MODULE_BLOCKS):
            todo[:0] = block_statements(st)
    return []
