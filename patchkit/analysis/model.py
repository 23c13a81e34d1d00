"""What one module says about its classes, gathered in one pass over its ``ast``."""
from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from typing import Optional

from .astutil import MODULE_BLOCKS, WORD, module_level, _always_raises, _is_noreturn_annotation, bfs_walk, block_statements, dotted
from .fastre import Bounded, word_boundary
from .mangle import mangle_tree

FIELD_DECORATORS = {"dataclass", "dataclasses.dataclass", "pydantic.dataclasses.dataclass",
                    "attr.s", "attr.attrs", "attrs.define", "attr.define", "define", "frozen",
                    "attrs.frozen", "attr.frozen", "mutable", "attrs.mutable", "attr.dataclass",
                    "attrs", "s"}
#: the class attributes each kind of field decorator sets
FIELD_DUNDERS = {"dataclass": frozenset({"__dataclass_fields__", "__dataclass_params__", "__match_args__"}),
                 "attrs": frozenset({"__attrs_attrs__", "__match_args__"})}


#: per node class, the fields that can hold child nodes worth visiting: contexts (Load/Store),
#: operators and comparison operators are AST instances too, but never interesting, and skipping
#: them halves the nodes a walk visits
@dataclass(repr=False, eq=False)  # identity: comparing two classes field by field walked their ASTs
class ClassInfo:
    module: "ModuleInfo"
    qualname: str
    node: ast.ClassDef
    bases: list[str] = field(default_factory=list)
    methods: dict[str, ast.FunctionDef] = field(default_factory=dict)
    method_kind: dict[str, str] = field(default_factory=dict)
    #: names bound in the class body with a value (attributes, methods, properties, nested classes)
    class_names: set[str] = field(default_factory=set)
    #: ``x: T`` with no value in the class body -> line
    annotated_only: dict[str, int] = field(default_factory=dict)
    #: ``x: ClassVar[T]`` with no value: a class attribute the author says is set on the class elsewhere
    classvar_decls: set[str] = field(default_factory=set)
    #: field names assigned by a generated ``__init__`` (dataclass/attrs/NamedTuple/pydantic ...)
    fields: set[str] = field(default_factory=set)
    field_kind: Optional[str] = None
    field_init: bool = True
    slots: set[str] = field(default_factory=set)
    #: why the class's attributes cannot be known statically (``__getattr__``, ``__dict__`` writes ...)
    dynamic: Optional[str] = None
    #: the methods whose computed stores made it dynamic (empty: the class body itself, ``__getattr__``)
    dynamic_in: set[str] = field(default_factory=set)
    #: line of a ``__getattr__`` that serves a configuration store (partlyopen.py), else 0
    config_getattr: int = 0
    #: line of a ``__getattr__``/``__getattribute__`` that may answer any name (neither a pass-through
    #: nor a configuration store), else 0: every read of a missing name goes through it, so the
    #: class is open everywhere whatever other computed stores it has (dynamic.dynamic_methods)
    lookup_hook: int = 0
    #: (method, line, holder) of computed stores whose name an attribute of the instance holds
    #: (mmcv's ``self.add_module(self.norm_name, norm)``): they add an attribute no literal store
    #: names, never one the class assigns by name, so the class stays closed for those
    attr_named: list[tuple[str, int, str]] = field(default_factory=list)
    #: (method, line, list) of ``setattr(self, key, v)`` guarded by ``key in self.<list>`` (or after
    #: ``if key not in self.<list>: raise``, vispy's ``BaseCamera.set_state``): the names it stores
    #: are the strings of that class-level list, resolved along each instance's MRO (listed.py)
    attr_listed: list[tuple[str, int, str]] = field(default_factory=list)
    #: method -> position of the parameter that names what it stores on the instance
    #: (``def add_state(self, name, default): setattr(self, name, default)``: 1); keyed.py
    keyed_stores: dict[str, int] = field(default_factory=dict)
    #: regexes of attribute names assigned through ``setattr(self, f"...")``
    dyn_patterns: list[re.Pattern] = field(default_factory=list)
    #: every ``self.x = ...`` in any method: x -> [(method, line)]
    assigned_in: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    abstract: bool = False
    #: the class's metaclass is ABCMeta (abstract methods are enforced at instantiation)
    abc_meta: bool = False
    #: methods declared with @abstractmethod in this class
    abstract_methods: set[str] = field(default_factory=set)
    #: alternative constructors that build with __new__ and skip __init__: (method, line, attrs, calls_init)
    alt_ctors: list[tuple[str, int, frozenset, bool, tuple]] = field(default_factory=list)
    noreturn_methods: set[str] = field(default_factory=set)
    #: methods whose body only raises NotImplementedError (a template's hooks, when subclasses override them)
    raising_methods: set[str] = field(default_factory=set)
    #: method -> names it reads or writes as self.<name>
    self_refs: dict[str, set] = field(default_factory=dict)
    #: dunders a dataclass-like decorator generates for the class (its ``__repr__`` hides a base's)
    generated: frozenset = frozenset()
    #: property name -> its setter (``self.x = v`` in __init__ runs it)
    setters: dict[str, ast.FunctionDef] = field(default_factory=dict)
    scanned: bool = False

    def __repr__(self) -> str:
        return f"<ClassInfo {self.module.name}.{self.qualname}>"

    @property
    def name(self) -> str:
        return self.qualname

    @property
    def key(self) -> tuple[str, str]:
        return (self.module.name, self.qualname)


@dataclass(repr=False, eq=False)
class ModuleInfo:
    name: str
    rel: str
    tree: ast.Module
    source: str
    is_package: bool = False
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    #: local name -> fully qualified imported name
    imports: dict[str, str] = field(default_factory=dict)
    noreturn: set[str] = field(default_factory=set)
    lines: list[str] = field(default_factory=list)
    #: modules named by ``from x import *`` (fully qualified)
    star_imports: list[str] = field(default_factory=list)
    #: read from the installed environment, outside the analysed tree: its classes count as
    #: bases, its methods are never judged
    external: bool = False
    #: classes defined under a module-level if/try whose name the module also binds otherwise (an
    #: import, ``nn = _safe_import("torch.nn")``): a stand-in for when the real one is missing
    fallbacks: set[str] = field(default_factory=set)
    #: ``Alias = Name`` / ``Alias = mod.Name`` bound once at the module's top level (a
    #: backward-compatible name): what the alias stands for, as written
    aliases: dict[str, str] = field(default_factory=dict)
    #: name -> fully qualified name an ``except`` handler of a module-level ``try:`` imports it as
    #: when the ``try:`` import (``imports[name]``) fails: ``from .engine import Engine``
    except_imports: dict[str, str] = field(default_factory=dict)


def _bound_names(stmt: ast.stmt) -> list[str]:
    """Names a statement binds: assignment targets (tuple and list elements too), def and class names."""
    if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return [stmt.name]
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
        if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
    out = []
    for t in targets:
        for n in ([t] if isinstance(t, ast.Name) else t.elts if isinstance(t, (ast.Tuple, ast.List)) else []):
            if isinstance(n, ast.Name):
                out.append(n.id)
    return out


def _aliases(body: list) -> dict[str, str]:
    """Top-level ``A = B`` / ``A = m.B`` (B a dotted name), for names bound exactly once at the top level."""
    bound: dict[str, int] = {}
    out: dict[str, str] = {}
    for stmt in body:
        for name in _bound_names(stmt):
            bound[name] = bound.get(name, 0) + 1
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = dotted(stmt.value) if isinstance(stmt.value, (ast.Name, ast.Attribute)) else None
            if value:
                out[stmt.targets[0].id] = value
    return {k: v for k, v in out.items() if bound.get(k) == 1 and v.split(".")[0] != k}


def _resolve_relative(modname: str, is_package: bool, level: int, target: Optional[str]) -> str:
    parts = modname.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    base = ".".join(parts)
    if target:
        return f"{base}.{target}" if base else target
    return base


def build_module(name: str, rel: str, tree: ast.Module, source: str, is_package: bool = False) -> ModuleInfo:
    mangle_tree(tree, source)
    mod = ModuleInfo(name, rel, tree, source, is_package, lines=source.splitlines())
    for node in _module_level(tree.body):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    mod.imports[a.asname] = a.name
                else:
                    mod.imports[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            src = _resolve_relative(name, is_package, node.level, node.module) if node.level else (node.module or "")
            for a in node.names:
                if a.name != "*":
                    mod.imports.setdefault(a.asname or a.name, f"{src}.{a.name}" if src else a.name)
                elif src:
                    mod.star_imports.append(src)
    for stmt in tree.body:
        _collect_toplevel(mod, stmt, "")
    for st in tree.body:
        if isinstance(st, ast.Try):
            for node in (n for h in st.handlers for n in h.body):
                if isinstance(node, ast.ImportFrom) and node.module is not None or \
                        isinstance(node, ast.ImportFrom) and node.level:
                    src = _resolve_relative(name, is_package, node.level, node.module) if node.level else node.module
                    for a in node.names:
                        if a.name != "*" and src:
                            mod.except_imports.setdefault(a.asname or a.name, f"{src}.{a.name}")
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        if a.asname:
                            mod.except_imports.setdefault(a.asname, a.name)
    if "global " in source:
        from .globalimports import global_imports  # (it builds on this module's helpers: imported late)
        global_imports(mod, tree.body, name, is_package)
    mod.fallbacks = _fallback_classes(tree.body, mod)
    mod.aliases = {k: v for k, v in _aliases(tree.body).items() if k not in mod.classes and k not in mod.imports}
    _class_stores_in_functions(mod, tree.body)
    for stmt in _module_level(tree.body):  # Cls.attr = value / setattr(Cls, "attr", value) after the class
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and (stmt.value is not None):
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                _class_store(mod, t)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) == "setattr":
            args = stmt.value.args
            if len(args) >= 2 and isinstance(args[0], ast.Name) and args[0].id in mod.classes and \
                    isinstance(args[1], ast.Constant) and isinstance(args[1].value, str):
                mod.classes[args[0].id].class_names.add(args[1].value)
        elif isinstance(stmt, ast.For):
            _class_stores_in_loop(mod, stmt)
    _computed_class_setattrs(mod, tree)
    from .clssetattr import computed_cls_setattrs  # beside the class index, its own module
    computed_cls_setattrs(mod)
    return mod


def _computed_class_setattrs(mod: ModuleInfo, tree: ast.Module) -> None:
    """``setattr(Cls, f"_{name}", impl)`` anywhere in the class's module (a module-level loop, a
    function it runs): the class gets attributes whose names the analyzer cannot list. An f-string
    key gives a pattern of names (torch's ``SymNode._gt``, ``_mul`` ... made by
    ``_make_node_magic``), any other computed key every name."""
    if "setattr(" not in mod.source or not mod.classes:
        return
    names = [n for n in mod.classes if "." not in n]
    if not names or not re.search(r"setattr\(\s*(?:%s)\s*," % "|".join(map(re.escape, names)), mod.source):
        return
    listed = set()  # setattr keyed by a loop over literal names: those names (_class_stores_in_loop)
    for loop in bfs_walk(tree):
        if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and \
                isinstance(loop.iter, (ast.List, ast.Tuple, ast.Set)) and \
                all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in loop.iter.elts):
            listed |= {id(n) for n in ast.walk(loop) if isinstance(n, ast.Call) and len(n.args) >= 2 and
                       isinstance(n.args[1], ast.Name) and n.args[1].id == loop.target.id}
    for node in bfs_walk(tree):
        if not (isinstance(node, ast.Call) and dotted(node.func) == "setattr" and len(node.args) >= 2 and
                isinstance(node.args[0], ast.Name) and node.args[0].id in mod.classes):
            continue
        key = node.args[1]
        if isinstance(key, ast.Constant) or id(node) in listed:
            continue  # a literal name, or a loop over literal names: the module-level forms above record them
        mod.classes[node.args[0].id].dyn_patterns.append(names_of(key))


def names_of(key: ast.expr) -> re.Pattern:
    """The names a computed ``setattr`` key can give: an f-string's pattern (``f"_{name}"``), else any."""
    parts = [re.escape(str(v.value)) if isinstance(v, ast.Constant) else ".*"
             for v in key.values] if isinstance(key, ast.JoinedStr) else [".*"]
    return re.compile("^" + "".join(parts) + "$")


def _class_stores_in_loop(mod: ModuleInfo, loop: ast.For) -> None:
    """``for name in ["model", "optimizer"]: setattr(Cls, name, property(...))`` at module level:
    each name of the literal list is a class attribute of ``Cls`` (detectron2's ``DefaultTrainer``)."""
    if not (isinstance(loop.target, ast.Name) and isinstance(loop.iter, (ast.List, ast.Tuple, ast.Set)) and
            all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in loop.iter.elts)):
        return
    for st in loop.body:
        call = st.value if isinstance(st, ast.Expr) else None
        if isinstance(call, ast.Call) and dotted(call.func) == "setattr" and len(call.args) >= 2 and \
                isinstance(call.args[0], ast.Name) and call.args[0].id in mod.classes and \
                isinstance(call.args[1], ast.Name) and call.args[1].id == loop.target.id:
            mod.classes[call.args[0].id].class_names.update(e.value for e in loop.iter.elts)


def _fallback_classes(body: list[ast.stmt], mod: ModuleInfo) -> set[str]:
    """Names of module-level classes defined inside an if/try block while the module binds the same
    name by an import or an assignment: ``try: from torch import nn / except ImportError: class nn``,
    ``nn = _safe_import("torch.nn"); if nn is None: class nn: ...`` (sktime)."""
    nested: set[str] = set()
    for st in body:
        if isinstance(st, (ast.If, ast.Try)) or st.__class__.__name__ == "TryStar":
            nested |= {n.name for n in _module_level([st]) if isinstance(n, ast.ClassDef)}
    top = {st.name for st in body if isinstance(st, ast.ClassDef)}
    assigned = {n for st in _module_level(body) if isinstance(st, (ast.Assign, ast.AnnAssign))
                for n in _bound_names(st)}
    # a top-level class the module later rebinds (``_MainWindowUI, _MainWindow = uic.loadUiType(...)``
    # after empty stand-ins, pyomo's viewer): the stand-in is only what is left when that fails
    return (nested & (set(mod.imports) | assigned)) | (top & assigned)


#: the line breaks of str.splitlines other than "\n"
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def matching_lines(pattern: re.Pattern, source: str, lines: list[str], near: Optional[re.Pattern] = None) -> list[int]:
    """The indexes of ``lines`` (``source.splitlines()``) where ``pattern`` matches within the line,
    from one search of the whole text: a line with a match of its own lies inside some match of the
    whole text (the scan reaches its start, or an earlier match covers it), so only those lines are
    searched one by one. ``near``, a pattern that matches wherever ``pattern`` does (the same without
    a leading ``\\b``, which stops the regex engine from skipping ahead), may do the whole-text search."""
    candidates: set | range = set()
    if _OTHER_BREAKS.search(source):  # ``lines`` also breaks there: every line is searched
        candidates = range(len(lines))
    pos = line = 0
    for m in (near or pattern).finditer(source) if isinstance(candidates, set) else ():
        a, b = m.span()
        line += source.count("\n", pos, a)
        pos = a
        candidates.update(range(line, line + source.count("\n", a, b) + 1))
    return sorted(i for i in candidates if i < len(lines) and pattern.search(lines[i]))


def _stored_on(name: str, source: str) -> bool:
    """``\\bname\\s*\\.\\s*\\w+\\s*=(?!=)`` in ``source``, searched literal-first."""
    return Bounded(r"%s\s*\.\s*\w+\s*=(?!=)" % re.escape(name), before=word_boundary).search(source) is not None


def _class_stores_in_functions(mod: ModuleInfo, body: list) -> None:
    """``Cls.attr = value`` inside a module-level function or a method of the class's own module,
    where ``Cls`` is not a local of that function: a class attribute the module sets when the
    function runs (pyomo's ``_finalize_xpress_import`` binds the solver methods once the import
    resolves; reportlab's ``KeepTogether.__init__`` stores ``KeepTogether.NullActionFlowable``
    on first use). Only functions whose text has such a store are walked."""
    if not mod.classes:
        return
    # the names of the module's classes that a store of this shape names at all
    source = mod.source
    names = [n for n in mod.classes if "." not in n and (not WORD.fullmatch(n) or n in source and _stored_on(n, source))]
    if not names:
        return
    store = r"(?:%s)\s*\.\s*\w+\s*=(?!=)" % "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    lines = mod.lines
    hits = matching_lines(re.compile(r"\b" + store), mod.source, lines, near=re.compile(store))
    if not hits:
        return
    fns = [n for n in _module_level(body) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    fns += [m for n in _module_level(body) if isinstance(n, ast.ClassDef)
            for m in n.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for fn in fns:
        lo, hi = fn.lineno - 1, min(len(lines), fn.end_lineno or fn.lineno)
        k = bisect.bisect_left(hits, lo)
        if k == len(hits) or hits[k] >= hi:
            continue
        local = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
        stores = []
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                local.add(n.id)
            elif isinstance(n, ast.Assign):
                stores += [t for t in n.targets if isinstance(t, ast.Attribute)]
        for t in stores:
            if isinstance(t.value, ast.Name) and t.value.id not in local:
                _class_store(mod, t)


def _class_store(mod: ModuleInfo, target: ast.expr) -> None:
    """``Cls.attr = ...`` on a class of ``mod``: ``attr`` is a class attribute of ``Cls``."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in mod.classes:
        mod.classes[target.value.id].class_names.add(target.attr)


_module_level = module_level  # globalimports.py imports it by this name


def _collect_toplevel(mod: ModuleInfo, stmt: ast.stmt, prefix: str) -> None:
    if isinstance(stmt, ast.ClassDef):
        from .classbody import collect_class  # (classbody builds ClassInfo: imported late)
        collect_class(mod, stmt, prefix)
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not prefix:
        mod.functions[stmt.name] = stmt  # type: ignore[assignment]
        if _is_noreturn_annotation(stmt.returns) or _always_raises(stmt):
            mod.noreturn.add(stmt.name)
    elif isinstance(stmt, MODULE_BLOCKS) and not prefix:
        for sub in block_statements(stmt):
            _collect_toplevel(mod, sub, prefix)
