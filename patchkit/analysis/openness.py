"""Open and closed classes. A class is *open* when its attributes can come from code the
analyzer does not see: a metaclass other than ABCMeta, a class decorator that is not
dataclass-like, a base bound by a try/except or ``TYPE_CHECKING`` alternative, or a ``type()``
call that builds a subclass with extra attributes. Findings on an open class are info-level
("could not prove"), and ``--show-info`` says which rule opened it (pyflakes' stance on what it
cannot resolve)."""
from __future__ import annotations

import ast
from typing import Optional

from .astutil import bfs_walk, decorator_name, dotted, memo_on, own_nodes
from .classbody import with_metaclass_call
from .fastre import Bounded
from .model import FIELD_DECORATORS, ClassInfo, ModuleInfo
from .alternatives import alternatives

#: metaclasses that add no instance attributes
CLOSED_METACLASSES = {"ABCMeta", "type", "EnumMeta", "EnumType", "_ProtocolMeta"}
#: class decorators known to return the class unchanged (or only add methods)
CLOSED_DECORATORS = {"final", "total_ordering", "runtime_checkable", "unique", "dataclass_transform",
                     "singledispatch", "verify", "override", "cache"}


def _factories(mod: ModuleInfo) -> dict[str, int]:
    """Names used as a base in ``type(name, (Base, ...), {...})`` calls of the module -> line, and
    in the same call of a metaclass the module defines (cerberus's ``Validator =
    InspectedValidator('Validator', (BareValidator,), {})``, whose ``__init__`` sets class attributes)."""
    got = mod.__dict__.get("_type_factories")
    if got is None:
        got = mod.__dict__["_type_factories"] = {}
        metas = {n for n, c in mod.classes.items() if "." not in n and any(_standard_metaclass(mod, b) for b in c.bases)
                 and _sets_class_attributes(c)}
        if "type(" in mod.source and _TYPE_CALL.search(mod.source) or metas:
            for node in bfs_walk(mod.tree):
                if isinstance(node, ast.Call) and dotted(node.func) in ({"type"} | metas) and len(node.args) == 3 and \
                        isinstance(node.args[1], ast.Tuple):
                    for b in node.args[1].elts:
                        d = dotted(b)
                        if d:
                            got.setdefault(d.split(".")[-1], node.lineno)
    return got


def _sets_class_attributes(meta: ClassInfo) -> bool:
    """A method of the metaclass ``meta`` stores an attribute on its first parameter (the class it
    makes): ``cls.normalization_rules = {}``."""
    for fn in meta.methods.values():
        params = fn.args.posonlyargs + fn.args.args
        first = params[0].arg if params else None
        if any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
               and n.value.id == first for n in ast.walk(fn)):
            return True
    return False


_TYPE_CALL = Bounded(r"type\(\s*[^,()\n]{1,200},\s*\(")


def decorator_names(c: ClassInfo) -> set[str]:
    """Attribute names a class decorator call spells out: ``@delegate_to_executor("readline",
    "close")`` (aiofiles, vendored by gradio) adds those methods to the class. Registries
    (``@register("bert")``) name the class, not its attributes."""
    out: set[str] = set()
    for d in c.node.decorator_list:
        if isinstance(d, ast.Call) and d.args and "register" not in (dotted(d.func) or "").lower() and \
                all(isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.isidentifier() for a in d.args):
            out.update(a.value for a in d.args)
    return out


#: class attributes a decorator may rewrite without touching what instances have
_METADATA_DUNDERS = {"__doc__", "__module__", "__qualname__", "__name__", "__annotations__"}
#: a metaclass's ``for attr in cls.X: setattr(cls, attr, ...)`` sets the class attributes named by
#: the class-level list ``X`` of each class it makes (astropy's ``DataInfoMeta`` over ``attr_names``):
#: the verdict carries ``LISTED + "X"``, resolved per class along its MRO (``listed_class_names``)
LISTED = "*listed:"


def keeps_class(fn: ast.FunctionDef, depth: int = 0, skip: int = 0) -> tuple[Optional[bool], frozenset]:
    """What a class decorator in the tree does, as (verdict, names it sets on the class).
    Verdict True: it returns its argument, setting only literal attribute names on it (a
    registry, fairseq's ``cls.__dataclass = dataclass``, a docstring edit); False: it returns
    something else (a class rebuilt with a metaclass: accelerate's ``input.register``) or sets
    computed names; None: it cannot tell. A factory (``@deco(args)``) is judged by the function it
    returns. ``skip`` leading parameters are not the class (1: a decorator class's ``__call__``)."""
    params = fn.args.posonlyargs + fn.args.args
    if len(params) <= skip:
        return None, frozenset()
    p = params[skip].arg
    nested = {n.name: n for n in fn.body if isinstance(n, ast.FunctionDef)}
    returns = [n.value for n in own_nodes(fn) if isinstance(n, ast.Return)]
    if depth == 0 and returns and all(isinstance(r, ast.Name) and r.id in nested for r in returns):
        inner = {keeps_class(nested[r.id], 1) for r in returns}
        return inner.pop() if len(inner) == 1 else (None, frozenset())
    if returns and any(_super_call(r, p) for r in returns) and \
            all(_super_call(r, p) or isinstance(r, ast.Name) and r.id == p for r in returns):
        return None, frozenset()  # ``return super().__call__(symbol)``: what the base does decides
    if not returns or not all(isinstance(r, ast.Name) and r.id == p for r in returns):
        return False, frozenset()
    names: set[str] = set()
    for n in own_nodes(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and \
                n.func.value.id == p:
            return None, frozenset()  # `cls._add_delegate_accessors(...)`: the class's own code may set anything (pandas)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and \
                n.value.id == p and n.attr not in _METADATA_DUNDERS:
            if n.attr.startswith("__") and n.attr.endswith("__"):
                return False, frozenset()  # cls.__init__ = ...: construction itself is replaced
            names.add(n.attr)
        if isinstance(n, ast.Call) and dotted(n.func) == "setattr" and len(n.args) >= 2 and \
                isinstance(n.args[0], ast.Name) and n.args[0].id == p:
            key = n.args[1]
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return False, frozenset()
            names.add(key.value)
    return True, frozenset(names)


def _super_call(r: ast.expr, p: str) -> bool:
    """``super().__call__(p)``."""
    return isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and r.func.attr == "__call__" and \
        isinstance(r.func.value, ast.Call) and dotted(r.func.value.func) == "super" and \
        len(r.args) == 1 and isinstance(r.args[0], ast.Name) and r.args[0].id == p


def decorator_verdicts(c: ClassInfo, resolve, resolve_class=None) -> list[tuple[str, Optional[bool], frozenset]]:
    """(name, verdict, names set) of each class decorator of ``c`` (``keeps_class`` on the ones the
    tree defines: a function, or a decorator class whose instances are called on the class, as
    keras's ``@keras_export(path)``, judged by its ``__call__``; verdict None for the others),
    computed once per class."""
    def compute() -> list:
        got = []
        for d in c.node.decorator_list:
            name = decorator_name(d) or "?"
            found = resolve(c.module, name) if resolve is not None and name != "?" else None
            if found is not None:
                got.append((name, *keeps_class(found[1])))
                continue
            meth = _class_method(c, d, name, resolve_class)
            if meth is not None:
                got.append((name, *keeps_class(*meth)))
                continue
            call = _decorator_class_call(c, d, name, resolve_class)
            got.append((name, *(keeps_class(call, skip=1) if call is not None else (None, frozenset()))))
        return got
    return memo_on(c, "_pk_decorator_verdicts", compute)


def _class_method(c: ClassInfo, d: ast.expr, name: str, resolve_class) -> Optional[tuple]:
    """(function, leading parameters that are not the class) of a tree class's classmethod or
    staticmethod used as the decorator: pyvisa-py's ``@Session.register(kind, "INTFC")``, a factory
    classmethod whose inner ``_internal(python_class)`` sets ``python_class.session_type``."""
    if resolve_class is None or "." not in name:
        return None
    owner, _, meth = name.rpartition(".")
    target = resolve_class(c.module, owner)
    if not isinstance(target, ClassInfo) or target.module.external:
        return None
    fn, kind = target.methods.get(meth), target.method_kind.get(meth)
    if not isinstance(fn, ast.FunctionDef) or kind not in ("class", "static"):
        return None
    if isinstance(d, ast.Call):  # a factory: only a nested decorator it returns on every path can be read
        nested = {n.name for n in fn.body if isinstance(n, ast.FunctionDef)}
        returns = [n.value for n in own_nodes(fn) if isinstance(n, ast.Return)]
        if not returns or not all(isinstance(r, ast.Name) and r.id in nested for r in returns):
            return None
    return fn, 0, 1 if kind == "class" and not isinstance(d, ast.Call) else 0


def _decorator_class_call(c: ClassInfo, d: ast.expr, name: str, resolve_class) -> Optional[ast.FunctionDef]:
    """The ``__call__`` of the tree's class that ``@name(args)`` instantiates, if that is what it does."""
    if resolve_class is None or name == "?" or not isinstance(d, ast.Call):
        return None
    target = resolve_class(c.module, name)
    if not isinstance(target, ClassInfo) or target.module.external:
        return None
    return next((n for n in target.node.body if isinstance(n, ast.FunctionDef) and n.name == "__call__"), None)


#: class decorators that apply a metaclass (``@six.add_metaclass(Register)``)
METACLASS_DECORATORS = {"add_metaclass"}


def metaclass_name(c: ClassInfo) -> Optional[str]:
    """The metaclass ``c`` names itself: ``metaclass=M``, ``@six.add_metaclass(M)`` or a base
    ``six.with_metaclass(M, ...)``."""
    for kw in c.node.keywords:
        if kw.arg == "metaclass":
            return dotted(kw.value) or "?"
    for b in c.node.bases:
        if with_metaclass_call(b):
            return dotted(b.args[0]) or "?"
    for d in c.node.decorator_list:
        if isinstance(d, ast.Call) and (dotted(d.func) or "").split(".")[-1] in METACLASS_DECORATORS and len(d.args) == 1:
            return dotted(d.args[0]) or "?"
    return None


def metaclass_verdict(mod: ModuleInfo, name: str, resolve_class=None, depth: int = 0,
                      external_ok: bool = False) -> tuple[Optional[str], frozenset]:
    """(why the metaclass ``name`` may set instance attributes, or None; the class attributes it
    sets). A metaclass of the tree is read: its ``__new__``/``__init__`` may set class attributes
    (luigi's ``Register``: ``cls._namespace_at_class_time``), but a ``__call__`` that stores on
    the instances it builds, or that never calls ``super().__call__``, opens the class; so does a
    computed name or a base metaclass that is open. ``external_ok``: a library's metaclass is read
    too (for the class attributes it sets on a library class's subclasses: pygments'
    ``RegexLexerMeta.__call__`` sets ``cls._all_tokens`` before any lexer's ``__init__`` runs)."""
    last = name.split(".")[-1]
    if last in CLOSED_METACLASSES:
        return None, frozenset()
    target = resolve_class(mod, name) if resolve_class is not None and depth < 4 else None
    if not isinstance(target, ClassInfo) or target.module.external and not external_ok:
        return f"has metaclass {last}, which may set attributes", frozenset()
    names: set = set()
    for b in target.bases:
        why, more = metaclass_verdict(target.module, b, resolve_class, depth + 1, external_ok)
        if why:
            return why, frozenset()
        names |= more
    for mname, fn in target.methods.items():
        params = fn.args.posonlyargs + fn.args.args
        p = params[0].arg if params else None
        namespace = {params[3].arg} if mname == "__new__" and len(params) >= 4 else set()  # (mcs, name, bases, dct)
        copied: set = set()
        if namespace:
            namespace |= _passed_namespaces(fn)
            copied = _namespace_copy_keys(fn, namespace)
        builds = False
        for n in ast.walk(fn):
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name):
                if mname == "__call__" and n.value.id != p:
                    return f"has metaclass {last}, whose __call__ sets attributes on the instances it builds", frozenset()
                if n.attr.startswith("__") and n.attr.endswith("__") and n.attr not in _METADATA_DUNDERS:
                    return f"has metaclass {last}, which replaces {n.attr}", frozenset()
                names.add(n.attr)
            elif isinstance(n, ast.Call) and dotted(n.func) == "setattr" and len(n.args) >= 2:
                key = n.args[1]
                holder = _class_list_loop(fn, n, p) if mname != "__call__" and isinstance(n.args[0], ast.Name) \
                    and n.args[0].id == p else None
                if holder:
                    names.add(LISTED + holder)
                    continue
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)) or mname == "__call__":
                    return f"has metaclass {last}, which sets computed attributes", frozenset()
                names.add(key.value)
            elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and mname == "__new__" and \
                    isinstance(n.value, ast.Name) and n.value.id in namespace:
                # ``dct["_props_dict"] = f`` in __new__: a class attribute of the class being made
                if isinstance(n.slice, ast.Name) and n.slice.id in copied:
                    continue  # ``for key, value in dct.items(): new_dct[key] = value``: the class's own names
                if not (isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str)):
                    return f"has metaclass {last}, which sets computed class attributes", frozenset()
                names.add(n.slice.value)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__call__":
                builds = True
        if mname == "__call__" and not builds:
            return f"has metaclass {last}, whose __call__ may not build instances through __init__", frozenset()
    return None, frozenset(names)


def _class_list_loop(fn, call: ast.Call, cls: Optional[str]) -> Optional[str]:
    """``X`` where ``call`` (``setattr(cls, key, ...)``) sits in ``for key in cls.X:``."""
    key = call.args[1]
    if not isinstance(key, ast.Name) or not cls:
        return None
    for n in ast.walk(fn):
        if isinstance(n, ast.For) and isinstance(n.target, ast.Name) and n.target.id == key.id and \
                isinstance(n.iter, ast.Attribute) and isinstance(n.iter.value, ast.Name) and n.iter.value.id == cls \
                and any(x is call for st in n.body for x in ast.walk(st)):
            return n.iter.attr
    return None


def listed_class_names(names: frozenset, classes: list, upto: int = 0) -> tuple[frozenset, Optional[str]]:
    """(``names`` with each ``LISTED + X`` replaced by the strings of ``X``, the first ``X`` some
    class body does not spell as literal strings, or None). The metaclass runs once for each class
    it makes, each reading its own ``X``: the union over ``classes[i:]`` for every ``i <= upto``
    (``upto``: the index of the class that names the metaclass)."""
    from .listed import listed_names
    out, unread = set(), None
    for n in names:
        if not n.startswith(LISTED):
            out.add(n)
            continue
        holder = n[len(LISTED):]
        for i in range(min(upto, len(classes) - 1) + 1):
            got = listed_names(classes[i:], holder)
            if got is None:
                unread = unread or holder
                break
            out |= got
    return frozenset(out), unread


def _passed_namespaces(fn: ast.FunctionDef) -> set:
    """Local names a metaclass ``__new__`` hands on as the namespace of the class it makes
    (``return type.__new__(mcls, name, bases, new_dct)``: dbt's ``ContextMeta``)."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__new__" and \
                len(n.args) >= 4 and isinstance(n.args[3], ast.Name):
            out.add(n.args[3].id)
    return out


def _namespace_copy_keys(fn: ast.FunctionDef, namespace: set) -> set:
    """Loop variables that walk the keys of a namespace (``for key, value in dct.items():``)."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Attribute) and \
                n.iter.func.attr in ("items", "keys") and isinstance(n.iter.func.value, ast.Name) and \
                n.iter.func.value.id in namespace:
            t = n.target.elts[0] if isinstance(n.target, ast.Tuple) and n.target.elts else n.target
            if isinstance(t, ast.Name):
                out.add(t.id)
    return out


def metaclass_names(c: ClassInfo, resolve_class) -> frozenset:
    """The class attributes ``c``'s metaclass (of the tree) sets, computed once per class."""
    def compute() -> frozenset:
        name = metaclass_name(c)
        return metaclass_verdict(c.module, name, resolve_class, external_ok=c.module.external)[1] if name else frozenset()
    return memo_on(c, "_pk_metaclass_names", compute)


def _standard_metaclass(mod: ModuleInfo, base: str) -> bool:
    """``base``, as a class of ``mod`` writes it, is one of the standard library's
    ``CLOSED_METACLASSES`` (``type``, ``abc.ABCMeta``, ``enum.EnumMeta``), so a class on it is a
    metaclass, whose ``self``/``cls`` is a class being created; not a class of the tree that shares
    the name (``from .kinds import type``). A tree metaclass's subclasses reach it through their MRO."""
    head, last = base.split(".")[0], base.split(".")[-1]
    if last not in CLOSED_METACLASSES or head in mod.classes:
        return False
    origin = mod.imports.get(head)
    return origin is None and "." not in base or (origin or base).split(".")[0] in ("abc", "enum", "builtins")


def open_reason(classes: list[ClassInfo], resolve=None, resolve_class=None) -> Optional[str]:
    """Why the class whose MRO (tree classes) is ``classes`` is open, or None when closed.
    ``resolve(module, dotted_name)`` finds a decorator's function in the tree, which is then read
    (``keeps_class``); decorators it cannot find are judged by name. ``resolve_class`` finds a
    metaclass of the tree, which is then read (``metaclass_verdict``)."""
    for c in classes:
        if c.module.external:
            continue
        meta = metaclass_name(c)
        if meta:
            why, names = metaclass_verdict(c.module, meta, resolve_class)
            if why:
                return f"{c.qualname} {why}"
            unread = listed_class_names(names, classes, classes.index(c))[1]
            if unread:
                return f"{c.qualname} has metaclass {meta.split('.')[-1]}, which sets the attributes {unread} names"
        for name, keeps, _names in decorator_verdicts(c, resolve, resolve_class):
            last = name.split(".")[-1]
            if name in FIELD_DECORATORS or last in CLOSED_DECORATORS or last in METACLASS_DECORATORS:
                continue
            if keeps is True or keeps is None and "register" in last.lower():
                continue
            how = "returns another class or sets attributes" if keeps is False else "may set attributes"
            return f"{c.qualname} is decorated with @{name}, which {how}"
        alts = alternatives(c.module)
        for b in c.bases:
            head = b.split(".")[0]
            if head in alts:
                return f"base {b} of {c.qualname} {alts[head]}"
        line = _factories(c.module).get(c.qualname.split(".")[-1])
        if line is not None:
            return f"type() builds a subclass of {c.qualname} at line {line}"
        meta_base = next((b for b in c.bases if _standard_metaclass(c.module, b)), None)
        if meta_base:
            return f"{c.qualname} is a metaclass (base {meta_base}): its instances are the classes it creates, " \
                   "whose own bodies and bases give them their attributes"
    return None
