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
import builtins
import re
from pathlib import Path
from typing import Optional

from .astutil import MODULE_BLOCKS, SCOPE_NODES, block_statements, dotted, flat_targets, own_nodes
from .fastre import Bounded, tuple_target_names
from .handedto import HandedIndex
from .setterhelpers import bulk, has_literal_loop, helper_store, looped_stores, setter_helpers
from .receivers import derived_class, is_instance, module_ctors, set_up_by_own_class
from .treeclasses import TreeClasses

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


def _after_open_or_comma(text: str, i: int) -> bool:
    """Blanks, then ``(`` or ``,`` before position ``i`` (``[(,]\\s*`` as a look-behind)."""
    i -= 1
    while i >= 0 and text[i].isspace():
        i -= 1
    return i >= 0 and text[i] in "(,"


#: _SELF_ANNOTATED from its literal ``self`` (its leading class makes the regex engine try every
#: position: 0.4 s on SGLang)
_SELF_FROM_WORD = Bounded(r"self\s*:", before=_after_open_or_comma)


def self_annotated(text: str) -> bool:
    """``bool(_SELF_ANNOTATED.search(text))``."""
    return _SELF_FROM_WORD.search(text) is not None


_QUOTED = re.compile(r"[\"']([A-Za-z_]\w*)[\"']")


class InjectionIndex(TreeClasses):
    """Per project: the tree's sources (read once) and where an attribute is stored from outside."""

    def __init__(self, root: Optional[Path]):
        super().__init__(root)
        self._store_index: dict[str, dict] = {}
        self._by_attr: Optional[dict[str, list[str]]] = None
        self._memo: dict[tuple, Optional[str]] = {}
        self._duck_index: dict[str, dict] = {}
        self._handed_index: Optional[HandedIndex] = None
        #: (file, line, attribute) of the bulk stores setterhelpers.py spells out (helper calls, loops)
        self._via_helper: set[tuple[str, int, str]] = set()

    def injected(self, attr: str, names: set[str], torch_module: bool, decorators: set[str],
                 own: frozenset = frozenset(), exact: frozenset = frozenset(), home: str = "") -> Optional[str]:
        """``path:line`` of a store of ``attr`` on an object of one of the classes ``names``
        (short names of the class and its bases), or None. ``own``: the attributes the class's
        methods assign; a local that one function gives ``attr`` and DUCK_MIN of them is taken
        for an instance (Orange's ``Learner.__call__``: ``model = self._fit_model(data);
        model.domain = ...; model.original_domain = ...; model.used_vals = ...``)."""
        names = {n for n in names if n not in GENERIC}
        key = (attr, frozenset(names), torch_module, frozenset(decorators), own, exact, home)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None
        for rel in self.files_storing(attr):
            for recv, fn, cls, outer, line, ctors in self._stores(rel).get(attr, ()):
                if is_instance(recv, fn, cls, outer, names, torch_module, decorators, _Ctors(ctors, self, rel)) or \
                        (own and self._duck(rel, recv, fn, cls, attr, own)) or self._handed(recv, fn, cls, outer, exact) \
                        or (("/" + home).endswith("/" + rel) and set_up_by_own_class(recv, fn, cls, exact, self)):
                    self._memo[key] = f"{rel}:{line}"
                    return self._memo[key]
        return None

    def _handed(self, recv, fn, cls, outer, exact: frozenset) -> bool:
        if self._handed_index is None:
            self._handed_index = HandedIndex(self)
        return self._handed_index.handed_param(recv, fn, cls, outer, exact)

    def outside_store(self, attr: str) -> Optional[str]:
        """``path:line`` of a store of ``attr`` on an object that is not the storing method's own
        instance, made whenever the function runs: a statement of its body itself, with no return
        before it (``line.queue = self`` in another class's ``__init__``), or None. A store under a
        branch or a loop, or after an early return, may not happen (biopython's
        ``_ExtraIndices.initialize`` returns before filling ``chunks`` when there is no record)."""
        for rel, line, _recv, fn, _cls in self.outside_stores(attr):
            if any(isinstance(st, (ast.Assign, ast.AnnAssign)) and st.lineno == line for st in fn.body) and \
                    not any(isinstance(n, ast.Return) and n.lineno < line for n in ast.walk(fn)):
                return f"{rel}:{line}"
        return None

    def outside_stores(self, attr: str):
        """(file, line, receiver, function, class) of every store of ``attr`` on an object other than
        the storing method's own instance."""
        for rel in self.files_storing(attr):
            for recv, fn, cls, _outer, line, _ctors in self._stores(rel).get(attr, ()):
                if not _own_instance(recv, fn, cls):
                    yield rel, line, recv, fn, cls

    def foreign_store(self, attr: str, cls_name: str) -> Optional[str]:
        """``path:line`` of a store of ``attr``, under any branch, on an object other than the
        storing method's own instance whose name is a tail of the class's name (``state.data_size
        = ...`` for ``AutoMLState``, ``self.data.header = ...`` for ``BaseData``), or None."""
        tails = _name_tails(cls_name)
        for rel, line, recv, _fn, _cls in self.outside_stores(attr):
            name = recv.id if isinstance(recv, ast.Name) else recv.attr if isinstance(recv, ast.Attribute) else ""
            if name.strip("_").replace("_", "").lower() in tails:
                return f"{rel}:{line}"
        return None

    def unowned_store(self, attr: str) -> Optional[str]:
        """``path:line`` of a store of ``attr`` on an object other than the storing method's own
        instance, when no code of the tree stores it on ``self`` (or None). Nothing owns the
        attribute, so every store of it is an injection into an instance of a class that reads it:
        opencompass's task runner sets ``evaluator._out_dir`` on whatever evaluator the config
        names (``evaluator = evaluator_type(**cfg)``), and no evaluator assigns it itself. Only
        stores on a local the function binds to a call's result count: a class's own attribute
        (``KeyboardDevice._backend = ...``) or a tensor's (``p.data = ...``) is not an instance's.
        A bulk store that setterhelpers.py spells out (a setter helper's calls, a loop over listed
        names: three names or more on one receiver) counts on any receiver (weasyprint's
        ``resolve_one_percentage(box, 'margin_left', ...)``): code written to set named values on
        the objects it is given."""
        key = ("unowned", attr)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None
        outside = [(rel, line) for rel, line, recv, fn, _cls in self.outside_stores(attr)
                   if isinstance(recv, ast.Name) and (_built_here(fn, recv.id) or (rel, line, attr) in self._via_helper)]
        if outside and not self.self_stores(attr):
            self._memo[key] = f"{outside[0][0]}:{outside[0][1]}"
        return self._memo[key]

    def self_stores(self, attr: str) -> list[str]:
        """The files of the tree where some code stores ``attr`` on ``self`` (``self.attr = ...``,
        ``setattr(self, "attr", ...)``), one regex pass per attribute, memoised."""
        key = ("self", attr)
        got = self._memo.get(key)
        if got is None:
            own = re.compile(r"\bself\s*\.\s*%s\s*(?::[^=\n]+)?=(?!=)|setattr\(\s*self\s*,\s*[\"']%s[\"']"
                             % (re.escape(attr), re.escape(attr)))
            got = self._memo[key] = [rel for rel, text in self.naming(attr) if own.search(text)]
        return got

    def _duck(self, rel: str, recv, fn, cls, attr: str, own: frozenset) -> bool:
        """``recv`` (a local or parameter, not the method's own instance) gets ``attr`` and at
        least DUCK_MIN other attributes of ``own`` stored in ``fn``, and the class assigns ``attr``
        itself somewhere (fairseq's ``share_spchdecoder`` gives another decoder class the shared
        ``embed_positions``: look-alike attributes, not this class's instance)."""
        if attr not in own or not isinstance(recv, ast.Name) or \
                _own_instance(recv, fn, cls):
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

    def files_storing(self, attr: str) -> list[str]:
        """The files with a textual store of ``attr`` (``.attr =``, or a quoted name in a file
        that calls setattr, or a name a loop over string constants spells there: the one parse
        this needs), from one regex pass over the tree."""
        if self._by_attr is None:
            self._by_attr = {}
            for rel, text in self.texts().items():
                keep_self = self_annotated(text)
                found = {m.group(1) for m in _STORE.finditer(text) if keep_self or not _on_bare_self(text, m.start())}
                found |= tuple_target_names(text)  # `obj._p, obj._g = p, g` (pycryptodome's construct)
                if "setattr(" in text:
                    found |= set(_QUOTED.findall(text))
                    if has_literal_loop(text) and (tree := self.parsed(rel)) is not None:
                        found |= {a for _c, fn, _o in _functions(tree) for a, _r, _ln in looped_stores(fn)}
                for a in found:
                    self._by_attr.setdefault(a, []).append(rel)
        return self._by_attr.get(attr, [])

    def _stores(self, rel: str) -> dict[str, list]:
        """attr -> [(receiver, function, class, outer function, line, module ctors)] of the
        attribute stores (``obj.x = ...``, ``setattr(obj, "x", ...)``, and those setterhelpers.py
        spells out) in the file ``rel``."""
        got = self._store_index.get(rel)
        if got is not None:
            return got
        got = self._store_index[rel] = {}
        tree = self.parsed(rel)
        if tree is None:
            return got
        ctors = module_ctors(tree)
        text = self.texts().get(rel, "")
        helpers = setter_helpers(tree) if "setattr(" in text else {}
        loops = has_literal_loop(text)
        spelt: list = []  # (attr, receiver, function, class, outer, line): setterhelpers' stores
        for cls, fn, outer in _functions(tree):
            for node in _own_nodes(fn):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    for t in flat_targets(node.targets if isinstance(node, ast.Assign) else [node.target]):
                        if isinstance(t, ast.Attribute):
                            got.setdefault(t.attr, []).append((t.value, fn, cls, outer, node.lineno, ctors))
                elif isinstance(node, ast.Call) and dotted(node.func) == "setattr" and len(node.args) >= 2 and \
                        isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
                    got.setdefault(node.args[1].value, []).append((node.args[0], fn, cls, outer, node.lineno, ctors))
                elif helpers and (hit := helper_store(node, helpers, fn)):
                    spelt.append((hit[0], hit[1], fn, cls, outer, node.lineno))
            if loops:
                spelt += [(attr, recv, fn, cls, outer, line) for attr, recv, line in looped_stores(fn)]
        for (attr, recv, fn, cls, outer, line), many in zip(spelt, bulk(spelt)):
            got.setdefault(attr, []).append((recv, fn, cls, outer, line, ctors))
            if many:
                self._via_helper.add((rel, line, attr))
        return got


#: method names that build an object whose class a configuration chooses (``REGISTRY.build(cfg)``)
_FACTORY_VERBS = frozenset({"build", "create", "make", "instantiate", "from_config", "build_from_cfg"})


def _built_here(fn, name: str) -> bool:
    """``name`` is a local that ``fn`` binds to an object built from a class held in a variable
    (``evaluator = evaluator_type(**cfg)``) or by a registry (``ICL_INFERENCERS.build(cfg)``): not a
    copy of another object (``op = copy.deepcopy(op)``), a loop variable (``for p in params:
    p.data = ...``), a parameter or a class."""
    def builds(v) -> bool:
        if not isinstance(v, ast.Call) or any(isinstance(a, ast.Name) and a.id == name for a in v.args):
            return False
        f = v.func
        return (isinstance(f, ast.Name) and f.id[:1].islower() and not hasattr(builtins, f.id)) or \
            (isinstance(f, ast.Attribute) and f.attr in _FACTORY_VERBS)
    if name[:1].isupper():
        return False  # ``Solver = object(); Solver._optimize = ...``: a class-like name, not an instance
    return any(isinstance(n, ast.Assign) and builds(n.value) and
               any(isinstance(t, ast.Name) and t.id == name for t in n.targets) for n in ast.walk(fn)) and \
        not any(isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and
                any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(n.target)) for n in ast.walk(fn))


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
    """``fn``'s own code (:func:`astutil.own_nodes`), where a ``def`` or ``class`` written directly
    in its body is entered one level: a closure's store on a local of ``fn`` (``w = Widget(); def
    later(): w.label = x``) counts for ``fn``, where the local is built."""
    for st in fn.body:
        yield from own_nodes(st if st.__class__ in SCOPE_NODES else [st])


def _module_body(tree: ast.Module) -> ast.FunctionDef:
    """The module's own top-level statements (also under top-level ``if``/``try``/``with``) as one
    function, so that ``info = CythonInfo(); info.cy = cy`` at module level is a store on a
    local built as the class, as in a function (Cython's debugger singleton)."""
    stmts: list = []

    def flat(body):
        for n in body:
            if isinstance(n, MODULE_BLOCKS):
                flat(block_statements(n))
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
            elif isinstance(n, MODULE_BLOCKS):
                yield from visit(block_statements(n), cls, outer)
    yield from visit(tree.body, None, None)


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
            idx.prefix = prefix  # a file of the index is the project's module of prefix + rel

            def trees(rel: str, project=project, prefix=prefix, idx=idx):
                from .project import module_name_for
                m = project.__dict__.get("_added", {}).get(prefix + rel) or \
                    project._mods.get(module_name_for(prefix + rel))
                return m.tree if m is not None and m.rel == prefix + rel and m.source == idx.texts().get(rel) else None
            idx.trees = trees
        project.__dict__["_injection"][str(base)] = idx
    return idx


def _own_instance(recv, fn, cls) -> bool:
    """The store's receiver is the storing method's own instance (its first parameter)."""
    params = fn.args.posonlyargs + fn.args.args
    return cls is not None and bool(params) and isinstance(recv, ast.Name) and recv.id == params[0].arg


def _name_tails(cls_name: str) -> set[str]:
    """Lower-case word tails of a class name: ``AutoMLState`` -> {state, mlstate, automlstate}."""
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", cls_name)
    return {"".join(words[i:]).lower() for i in range(len(words))}
