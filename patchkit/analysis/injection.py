"""Attributes injected from outside the class: code elsewhere in the tree assigns ``obj.x = ...``
(or ``setattr(obj, "x", ...)``) on an object that is, by evidence at the store, an instance of
the class or of one of its bases. The owner sets the attribute up after construction
(``HookRegistry.register_hook(hook: ModelHook)`` sets ``hook.fn_ref``; ``connect(worker=
global_worker)`` sets ``worker.core_worker``; ``self.decoder._lm_head_ref = ...`` where
``self.decoder = MBartDecoderNoPos(...)``; a decorator's wrapper sets ``instance.registry``
before the wrapped ``__init__`` runs; ``start(self)`` hands the instance to a function that
assigns it). A read of such an attribute is an ordering question (two-phase), not a hole.

Evidence for the receiver's class, at the store: a parameter annotation or default naming it, a
local or owner attribute constructed as it, a loop over ``.modules()`` for ``nn.Module``
subclasses, the first parameter of a wrapper made by a decorator of one of its methods. A bare
name with no evidence does not count (``.dtype = ...`` on some other object is not this
class's)."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Optional

from .astutil import dotted
from .receivers import derived_class, is_instance, module_ctors
from .fastre import Bounded

MAX_FILES = 30000
#: attributes of the class (besides the one asked about) that one function must store on a local
#: for the local to count as an instance
DUCK_MIN = 2
#: method names that build or copy an object of a known class
_NAMED_BUILDS = frozenset({"__class__", "copy", "deepcopy", "__copy__", "__deepcopy__", "clone", "__new__"})
GENERIC = {"object", "Module", "ABC", "Generic", "Protocol", "Any"}
#: a store ``<receiver>.attr = ...``; a bare ``self`` receiver is the class's own assignment, which
#: the ordinary rules see (a function outside a class whose parameter is annotated ``self: C`` is
#: the one case it could be evidence: kept by the annotation check below)
#: (the dot, the name and the ``=`` on one line: ``\s`` took ``loss.\n    decode_audio = True``, a comment's
#: full stop and the next class-body line, for a store)
_STORE = re.compile(r"\.[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=(?!=)")
#: a parameter named self with an annotation (``def helper(self: "Model")``), not ``if not self:``
_SELF_ANNOTATED = re.compile(r"[(,]\s*self\s*:")
_QUOTED = re.compile(r"[\"']([A-Za-z_]\w*)[\"']")
#: a class statement whose bases hold a comma (two or more bases; keywords too, the AST decides)
_MULTI_BASE = Bounded(r"class\s+\w+\s*\([^)]*,", line_start=True)
_WORD = re.compile(r"[A-Za-z_]\w*")
#: a three-argument type() call: ``type(name, (Base,), {...})``, ``type(name, bases, dct)``, ``type(base)(...)``
_TYPE_FACTORY = Bounded(r"type\s*\(\s*[^,()]+,\s*(?:\(|\w+\s*,)|type\s*\(\s*[\w.]+\s*\)\s*\(")


class InjectionIndex:
    """Per project: the tree's sources (read once) and where an attribute is stored from outside."""

    def __init__(self, root: Optional[Path]):
        self.root = root
        self._texts: Optional[dict[str, str]] = None
        self._store_index: dict[str, dict] = {}
        self._by_attr: Optional[dict[str, list[str]]] = None
        self._globals: dict[str, Optional[str]] = {}
        self._parsed: dict[str, Optional[ast.Module]] = {}
        self._class_files: dict[str, list[str]] = {}
        self._hosts: dict[str, list] = {}
        self._multi: Optional[dict[str, list[str]]] = None
        self._multi_by_file: dict[str, list] = {}
        self._type_built: Optional[dict[str, dict[str, str]]] = None
        self._memo: dict[tuple, Optional[str]] = {}
        self._factories: dict[str, frozenset] = {}
        self._duck_index: dict[str, dict] = {}
        #: rel -> an already parsed tree of that file, or None (set by the project that uses the index)
        self.trees = None

    def texts(self) -> dict[str, str]:
        if self._texts is None:
            self._texts = {}
            if self.root is not None and self.root.is_dir():
                for i, p in enumerate(sorted(self.root.rglob("*.py"))):
                    if i >= MAX_FILES:
                        break
                    try:
                        self._texts[p.relative_to(self.root).as_posix()] = p.read_text(encoding="utf-8", errors="replace")
                    except OSError:
                        continue
        return self._texts

    def injected(self, attr: str, names: set[str], torch_module: bool, decorators: set[str],
                 own: frozenset = frozenset()) -> Optional[str]:
        """``path:line`` of a store of ``attr`` on an object of one of the classes ``names``
        (short names of the class and its bases), or None. ``own``: the attributes the class's
        methods assign; a local that one function gives ``attr`` and DUCK_MIN of them is taken
        for an instance (Orange's ``Learner.__call__``: ``model = self._fit_model(data);
        model.domain = ...; model.original_domain = ...; model.used_vals = ...``)."""
        names = {n for n in names if n not in GENERIC}
        key = (attr, frozenset(names), torch_module, frozenset(decorators), own)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None
        for rel in self.files_storing(attr):
            for recv, fn, cls, outer, line, ctors in self._stores(rel).get(attr, ()):
                if is_instance(recv, fn, cls, outer, names, torch_module, decorators, _Ctors(ctors, self, rel)) or \
                        (own and self._duck(rel, recv, fn, cls, attr, own)):
                    self._memo[key] = f"{rel}:{line}"
                    return self._memo[key]
        return None

    def _duck(self, rel: str, recv, fn, cls, attr: str, own: frozenset) -> bool:
        """``recv`` (a local or parameter, not the method's own instance) gets ``attr`` and at
        least DUCK_MIN other attributes of ``own`` stored in ``fn``, and the class assigns ``attr``
        itself somewhere (fairseq's ``share_spchdecoder`` gives another decoder class the shared
        ``embed_positions``: look-alike attributes, not this class's instance)."""
        if attr not in own or not isinstance(recv, ast.Name) or \
                (cls is not None and fn.args.args and fn.args.args[0].arg == recv.id):
            return False  # a name the class never assigns (a typo?) is not excused by look-alikes
        got = self._duck_index.get(rel)
        if got is None:
            got = self._duck_index[rel] = {}
            for a, stores in self._stores(rel).items():
                for r, f, _c, _o, _ln, _ct in stores:
                    if isinstance(r, ast.Name):
                        got.setdefault((id(f), r.id), set()).add(a)
        stored = got.get((id(fn), recv.id), set())
        if len((stored - {attr}) & own) < DUCK_MIN:
            return False
        # only a local whose class nothing in view names: a parameter, or what a method hands back
        # (``model = self._fit_model(data)``). One built by a named class, ``self.__class__(...)``,
        # ``type(self)(...)`` or a copy is that class (statsmodels' ``results = MICEResults(...)``
        # and ``res = self.__class__(...)`` share `scale` with every results class)
        for n in ast.walk(fn):
            if isinstance(n, (ast.Assign, ast.AnnAssign)) and \
                    any(isinstance(t, ast.Name) and t.id == recv.id for t in (n.targets if isinstance(n, ast.Assign) else [n.target])):
                v = n.value
                if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and
                        not v.func.attr[:1].isupper() and v.func.attr not in _NAMED_BUILDS):
                    return False
        return True

    def derived_store(self, attr: str, names: set[str]) -> Optional[str]:
        """``path:line`` of a store of ``attr`` on a class made from one of ``names`` (short names
        of the class and its bases) by a factory, or None: it is a class attribute of the class
        whose instances are built (django's ``FormSet.fk = fk`` in ``inlineformset_factory``)."""
        names = {n for n in names if n not in GENERIC}
        for rel in self.files_storing(attr):
            for recv, fn, _cls, _outer, line, _ctors in self._stores(rel).get(attr, ()):
                if not isinstance(recv, ast.Name):
                    continue
                args = fn.args
                defaults = dict(zip([a.arg for a in (args.posonlyargs + args.args)][::-1], args.defaults[::-1]))
                defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
                for n in ast.walk(fn):
                    if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == recv.id for t in n.targets) \
                            and derived_class(recv.id, n.value, names, defaults, fn):
                        return f"{rel}:{line}"
        return None

    def parsed(self, rel: str) -> Optional[ast.Module]:
        """The tree of ``rel``: the project's own when it has parsed that module already (after
        name mangling, as the attribute names of the findings are), else parsed here once."""
        if rel not in self._parsed:
            known = self.trees(rel) if self.trees is not None else None
            if known is not None:
                self._parsed[rel] = known
                return known
            try:
                self._parsed[rel] = ast.parse(self.texts()[rel])
            except (SyntaxError, ValueError, RecursionError):
                self._parsed[rel] = None
        return self._parsed[rel]

    def hosts(self, short: str) -> list:
        """(file, line, attributes its body assigns on self, its other bases) for every class
        statement of the tree (nested ones too) that lists the class ``short`` (directly or under
        an import alias) among two or more bases."""
        got = self._hosts.get(short)
        if got is not None:
            return got
        got = self._hosts[short] = []
        for rel in self._multi_base_files().get(short, ()):  # the word appears: a superset, exact below
            for line, names, alias, assigned in self._multi_base_classes(rel):
                if not any(short == n or short in alias.get(n, ()) for n in names):
                    continue
                others = [n for n in names if n and n != short and short not in alias.get(n, ())]
                got.append((rel, line, assigned, others))
        got.sort()
        return got

    def _multi_base_files(self) -> dict[str, list[str]]:
        """word -> the files with a class statement of two or more bases whose text has the word.
        A class that lists ``C`` (or an alias imported as ``C as X``) among its bases has the word
        ``C`` in its file, so only those files are ever parsed for ``hosts(C)``: one regex pass
        instead of parsing and walking every multi-base file of the tree."""
        if self._multi is None:
            self._multi = {}
            for rel, text in sorted(self.texts().items()):
                if _MULTI_BASE.search(text):
                    for w in set(_WORD.findall(text)):
                        self._multi.setdefault(w, []).append(rel)
        return self._multi

    def _multi_base_classes(self, rel: str) -> list:
        """(line, base short names, the file's import aliases, attributes the body assigns on
        self) of every class statement of two or more bases in the file ``rel``."""
        got = self._multi_by_file.get(rel)
        if got is not None:
            return got
        got = self._multi_by_file[rel] = []
        tree = self.parsed(rel)
        if tree is None:
            return got
        alias: dict[str, set] = {}  # `from .jax.trainer import JAXTrainer as Trainer` (one per backend branch)
        classes = []
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    if a.asname:
                        alias.setdefault(a.asname, set()).add(a.name.split(".")[-1])
            elif isinstance(n, ast.ClassDef) and len(n.bases) >= 2:
                classes.append(n)
        for node in classes:
            names = [(dotted(b) or "").split(".")[-1] for b in node.bases]
            assigned = {t.attr for t in ast.walk(node) if isinstance(t, ast.Attribute)
                        and isinstance(t.ctx, ast.Store) and isinstance(t.value, ast.Name) and t.value.id == "self"}
            got.append((node.lineno, names, alias, assigned))
        return got

    def type_built(self, short: str) -> dict[str, str]:
        """attr -> ``path:line`` of a ``type(name, (..., <short>, ...), {attr: ...})`` call in the
        tree (also ``type(base)(...)``, bases or dict bound to a name first, ``dict(attr=...)``):
        a subclass built at run time with ``attr`` as a class attribute (numba's
        ``make_overload_template``). One pass over the few files whose text has such a call."""
        if self._type_built is None:
            self._type_built = {}
            for rel, text in sorted(self.texts().items()):
                if "type" not in text or not _TYPE_FACTORY.search(text):
                    continue
                tree = self.parsed(rel)
                if tree is None:
                    continue
                bound: dict[str, list] = {}  # every value a name is bound to in the file (several functions)
                for n in ast.walk(tree):
                    if isinstance(n, ast.Assign):
                        for t in n.targets:
                            if isinstance(t, ast.Name):
                                bound.setdefault(t.id, []).append(n.value)
                    elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        # a factory's base as a parameter default: ``formset=BaseFormSet`` (django),
                        # ``base=_OverloadAttributeTemplate`` (numba)
                        a = n.args
                        pos = a.posonlyargs + a.args
                        for arg, d in list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) + \
                                [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]:
                            bound.setdefault(arg.arg, []).append(d)

                def values(node):
                    return bound.get(node.id, [node]) if isinstance(node, ast.Name) else [node]
                for call in ast.walk(tree):
                    if not (isinstance(call, ast.Call) and len(call.args) == 3 and _is_type_call(call.func)):
                        continue
                    keys = set().union(*(_dict_keys(d) for d in values(call.args[2])))
                    for bases in values(call.args[1]):
                        if not isinstance(bases, ast.Tuple):
                            continue
                        for elt in bases.elts:
                            for b in values(elt):
                                name = (dotted(b) or "").split(".")[-1]
                                for key in keys:
                                    self._type_built.setdefault(name, {}).setdefault(key, f"{rel}:{call.lineno}")
        return self._type_built.get(short, {})

    def class_files(self, name: str) -> list[str]:
        """The files with a ``class <name>`` statement."""
        if name not in self._class_files:
            pat = re.compile(rf"^\s*class\s+{re.escape(name)}\b", re.M)
            self._class_files[name] = [r for r, t in self.texts().items() if name in t and pat.search(t)]
        return self._class_files[name]

    def factory_attrs(self, owned: str) -> frozenset:
        """``b`` of every ``self.<owned> = self.<b>(...)`` in the tree: the class attributes an
        owner builds its ``self.<owned>`` through (astropy's ``self.header = self.header_class()``)."""
        got = self._factories.get(owned)
        if got is None:
            pat = re.compile(rf"\bself\.{re.escape(owned)}\s*=\s*self\.(\w+)\(")
            needle = f"self.{owned}"
            got = self._factories[owned] = frozenset(m.group(1) for t in self.texts().values() if needle in t
                                                     for m in pat.finditer(t))
        return got

    def global_ctor(self, name: str) -> Optional[str]:
        """``Cls`` of a module-level ``name = Cls(...)`` anywhere in the tree (an imported global)."""
        if name not in self._globals:
            pat = re.compile(rf"^{re.escape(name)}\s*(?::[^=\n]+)?=\s*([A-Za-z_][\w.]*)\(", re.M)
            self._globals[name] = next((m.group(1).split(".")[-1] for t in self.texts().values()
                                        if name in t for m in [pat.search(t)] if m), None)
        return self._globals[name]

    def files_storing(self, attr: str) -> list[str]:
        """The files with a textual store of ``attr`` (``.attr =``, or a quoted name in a file
        that calls setattr), from one regex pass over the tree."""
        if self._by_attr is None:
            self._by_attr = {}
            for rel, text in self.texts().items():
                keep_self = bool(_SELF_ANNOTATED.search(text))
                found = {m.group(1) for m in _STORE.finditer(text) if keep_self or not _on_bare_self(text, m.start())}
                if "setattr(" in text:
                    found |= set(_QUOTED.findall(text))
                for a in found:
                    self._by_attr.setdefault(a, []).append(rel)
        return self._by_attr.get(attr, [])

    def _stores(self, rel: str) -> dict[str, list]:
        """attr -> [(receiver, function, class, outer function, line, module ctors)] of the
        attribute stores (``obj.x = ...``, ``setattr(obj, "x", ...)``) in the file ``rel``."""
        got = self._store_index.get(rel)
        if got is not None:
            return got
        got = self._store_index[rel] = {}
        tree = self.parsed(rel)
        if tree is None:
            return got
        ctors = module_ctors(tree)
        for cls, fn, outer in _functions(tree):
            for node in _own_nodes(fn):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                        if isinstance(t, ast.Attribute):
                            got.setdefault(t.attr, []).append((t.value, fn, cls, outer, node.lineno, ctors))
                elif isinstance(node, ast.Call) and dotted(node.func) == "setattr" and len(node.args) >= 2 and \
                        isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
                    got.setdefault(node.args[1].value, []).append((node.args[0], fn, cls, outer, node.lineno, ctors))
        return got


class _Ctors(dict):
    """The module's ``name = Cls(...)`` globals, falling back on the tree's (imported ones)."""

    def __init__(self, own: dict, index: "InjectionIndex", rel: str = ""):
        super().__init__(own)
        self.index, self.rel = index, rel

    def get(self, name, default=None):
        return super().get(name) or self.index.global_ctor(name) or default


def _on_bare_self(text: str, dot: int) -> bool:
    """Whether the ``.`` at ``dot`` follows a bare ``self`` (``self.x =``, not ``myself.x =``)."""
    i = dot
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return text[max(0, i - 4):i] == "self" and (i < 5 or not (text[i - 5].isalnum() or text[i - 5] in "_."))


def _own_nodes(fn):
    """The nodes of ``fn``'s body, not descending into nested functions or classes (they are
    visited as functions of their own)."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                todo.append(c)


def _module_body(tree: ast.Module) -> ast.FunctionDef:
    """The module's own top-level statements (also under top-level ``if``/``try``/``with``) as one
    function, so that ``info = CythonInfo(); info.cy = cy`` at module level is a store on a
    local built as the class, as in a function (Cython's debugger singleton)."""
    stmts: list = []

    def flat(body):
        for n in body:
            if isinstance(n, (ast.If, ast.Try, ast.With)):
                flat(getattr(n, "body", []) + getattr(n, "orelse", []))
            elif not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stmts.append(n)
    flat(tree.body)
    return ast.FunctionDef(name="<module>", args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                                               kw_defaults=[], kwarg=None, defaults=[]),
                           body=stmts, decorator_list=[], returns=None, type_comment=None, lineno=1, col_offset=0)


def _functions(tree: ast.Module):
    """(enclosing class or None, function, enclosing function or None) for every function, and the
    module's top-level statements as one more (see ``_module_body``)."""
    yield None, _module_body(tree), None

    def visit(body, cls, outer):
        for n in body:
            if isinstance(n, ast.ClassDef):
                yield from visit(n.body, n, None)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield cls, n, outer
                yield from visit(n.body, None, n)
            elif isinstance(n, (ast.If, ast.Try, ast.With)):
                yield from visit(getattr(n, "body", []) + getattr(n, "orelse", []), cls, outer)
    yield from visit(tree.body, None, None)


def _is_type_call(func: ast.expr) -> bool:
    """``type`` or ``type(base)`` (the metaclass of a base) as the callee."""
    if isinstance(func, ast.Name):
        return func.id == "type"
    return isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type" and len(func.args) == 1


def _dict_keys(node) -> set[str]:
    if isinstance(node, ast.Dict):
        return {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return {kw.arg for kw in node.keywords if kw.arg}
    return set()


#: one index per package folder for the chunk of files being analysed (``runner`` starts each chunk
#: with :func:`new_chunk`, so a long-lived process never reads a tree as it was in an earlier run)
_SHARED: dict[str, InjectionIndex] = {}


def new_chunk() -> None:
    _SHARED.clear()


def _index_for(project, ci) -> InjectionIndex:
    top = ci.module.name.split(".")[0]
    base = project.root / top if project.root is not None and (project.root / top).is_dir() else project.root
    idx = project.__dict__.setdefault("_injection", {}).get(str(base))
    if idx is None:
        idx = _SHARED.get(str(base))
        if idx is None:
            idx = _SHARED[str(base)] = InjectionIndex(base)
            if base is None:  # source handed in without a tree (analyse_source): what is in view
                idx._texts = dict(getattr(project, "overlay", {}) or {})
            prefix = f"{top}/" if base != project.root else ""

            def trees(rel: str, project=project, prefix=prefix, idx=idx):
                from .project import module_name_for
                m = project.__dict__.get("_added", {}).get(prefix + rel) or \
                    project._mods.get(module_name_for(prefix + rel))
                return m.tree if m is not None and m.rel == prefix + rel and m.source == idx.texts().get(rel) else None
            idx.trees = trees
        project.__dict__["_injection"][str(base)] = idx
    return idx
