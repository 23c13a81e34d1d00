"""Correlated guards: a read of ``x`` under ``if self.g:`` (or ``self.g is not None``) where every
assignment that can make ``g`` pass the test sits in a block that also assigns ``x``. The other
values ``g`` ever gets (its class-level default, the ``__init__`` reset) are ``None``/``False``/``0``.
So the guard holding means a block that set ``x`` has run (twisted's ``Canvas``: ``contents = None``
at class level, ``resize`` sets ``contents`` with ``_width``/``_height``; matplotlib's colormaps:
``_isinit = False`` in ``__init__``, ``_init`` sets ``_lut`` and ``_isinit = True``).

Judged on the class's whole MRO; one pass over its methods per guard attribute."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import FUNCTION_NODES, dotted, memo_on, own_nodes, self_attr
from .calltables import REGISTER_METHODS, register_args
from .conditions import VALUE, _is_self
from .model import ClassInfo

_NAME = re.compile(r"[A-Za-z_]\w*$")
_HASATTR = re.compile(r"""hasattr\(\s*self\s*,\s*['"]([A-Za-z_]\w*)['"]\s*\)$""")
#: ``getattr(self, "g", <falsy constant>)`` true: ``g`` exists and is truthy
_GETATTR_FALSY = re.compile(r"""getattr\(\s*self\s*,\s*['"]([A-Za-z_]\w*)['"]\s*,\s*(?:False|None|0|''|""|\(\)|\[\])\s*\)$""")
_FALSY = (None, False, 0, "")


TRUTHY, NOT_NONE, EXISTS = "truthy", "not-none", "exists"


def guard_attrs(conds) -> list[tuple[str, str]]:
    """(g, mode) for each branch fact that says ``self.g`` is truthy, is not None, or exists
    (``hasattr(self, "g")``); facts are (normalised test, polarity) with ``self.`` stripped."""
    out = []
    for text, pol in conds:
        if not isinstance(text, str):
            continue
        if pol and _NAME.match(text):
            out.append((text, TRUTHY))
        elif not pol and text.endswith(" is None") and _NAME.match(text[:-8]):
            out.append((text[:-8], NOT_NONE))
        elif pol and _HASATTR.match(text):
            out.append((_HASATTR.match(text).group(1), EXISTS))
        elif pol and _GETATTR_FALSY.match(text):
            # vllm-omni's layer-wise offloader: `if getattr(self, "_omni_layerwise_enabled", False):`
            # then `self._omni_layerwise_hooks`, both set from outside by one function
            g = _GETATTR_FALSY.match(text).group(1)
            out += [(g, TRUTHY), (g, EXISTS)]
    return out


def absent_by_guard(conds) -> set[str]:
    """Attributes a read's facts say are missing: the read sits where ``hasattr(self, "x")`` is
    false (an ``else:`` of it, or under ``if not hasattr(self, "x"):``)."""
    return {m.group(1) for text, pol in conds
            if not pol and isinstance(text, str) and (m := _HASATTR.match(text))}


_ISSUBCLASS = re.compile(r"issubclass\(\s*([A-Za-z_][\w.]*)\s*,\s*([A-Za-z_]\w*)\s*\)$")
#: builtin types whose subclass test on a class of a closed MRO that lacks them is always false
_BUILTIN_TYPES = frozenset({"dict", "list", "tuple", "set", "frozenset", "str", "bytes", "int", "float",
                            "Exception", "BaseException"})


def dead_subclass_test(conds, facts) -> bool:
    """The read sits under ``issubclass(C, dict)`` being true, where ``C`` is a class of the judged
    MRO (fully known: no unreadable base, not open) and no class of it is that builtin:
    swagger-codegen's ``to_dict`` reads ``self.items()`` under ``if issubclass(KnativeStatus,
    dict):`` in every generated model (kserve, kubernetes)."""
    hits = [m for text, pol in conds if pol and isinstance(text, str) and text.startswith("issubclass(")
            and (m := _ISSUBCLASS.match(text))]
    if not hits or facts.unknown_base is not None or facts.open:
        return False
    names = {c.qualname.split(".")[-1] for c in facts.classes} | {e.name.split(".")[-1] for e in facts.externals}
    return any(m.group(1).split(".")[-1] in names and m.group(2) in _BUILTIN_TYPES and m.group(2) not in names
               for m in hits)


def _falsy(value: Optional[ast.expr], mode: str) -> bool:
    """A stored value that cannot make the guard pass (every store passes ``hasattr``)."""
    if mode == EXISTS or not isinstance(value, ast.Constant):
        return False
    return value.value is None if mode == NOT_NONE else value.value in _FALSY and not isinstance(value.value, float)


def _blocks(fn: ast.AST):
    """Every statement list of ``fn`` (its body, branch bodies, loop bodies, handlers), not
    descending into nested functions or classes."""
    todo = [fn.body]
    while todo:
        block = todo.pop()
        yield block
        for st in block:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for name in ("body", "orelse", "finalbody"):
                sub = getattr(st, name, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    todo.append(sub)
            for h in getattr(st, "handlers", []) or []:
                todo.append(h.body)
            for case in getattr(st, "cases", []) or []:
                todo.append(case.body)


def _stores(st: ast.stmt, selfname: str) -> list[tuple[str, Optional[ast.expr]]]:
    """(attribute, value) of the ``self.a = v`` targets of one statement (tuple targets: no value)."""
    if isinstance(st, ast.Assign):
        out = []
        for t in st.targets:
            if isinstance(t, (ast.Tuple, ast.List)):
                out += [(a, None) for e in t.elts for a in [self_attr(e, selfname)] if a]
            else:
                a = self_attr(t, selfname)
                if a:
                    out.append((a, st.value))
        return out
    if isinstance(st, ast.AnnAssign) and st.value is not None:
        a = self_attr(st.target, selfname)
        return [(a, st.value)] if a else []
    if isinstance(st, ast.AugAssign):
        a = self_attr(st.target, selfname)
        return [(a, None)] if a else []
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and (st.value.args or st.value.keywords):
        # self.register_buffer("x", v) / setattr(self, "x", v): a store too (botorch's baselines)
        c, f = st.value, dotted(st.value.func) or ""
        args = c.args[1:] if f in ("setattr", "object.__setattr__") and c.args and _is_self(c.args[0], selfname) else \
            register_args(c) if f.startswith(selfname + ".") and f.split(".")[-1] in REGISTER_METHODS else None
        if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
            value = args[1] if len(args) > 1 else None
            return [(args[0].value, value if isinstance(value, ast.Constant) else None)]
    return []


#: statements after which an arm goes on elsewhere without its store (a ``raise`` ends the path)
_EXITS = (ast.Return, ast.Break, ast.Continue)


def _both_arms(st: ast.stmt, selfname: str) -> list[tuple[str, Optional[ast.expr]]]:
    """(attribute, None) for what an ``if``/``else`` stores in both arms (nested ones too): a
    store of the block it sits in (sfepy's ``set_backend``: ``if layout is not None: self.layout =
    layout`` / ``else: self.layout = self.layout_letters``, then ``self.backend = backend``)."""
    if not isinstance(st, ast.If) or not st.orelse:
        return []

    def arm(block) -> set:
        got = set()
        for x in block:
            if isinstance(x, _EXITS) or any(isinstance(n, _EXITS) for n in own_nodes(x, FUNCTION_NODES)):
                return set()  # ``if ...: return`` before the store: the arm may end without it
            got |= {a for a, _v in _stores(x, selfname) + _both_arms(x, selfname)}
        return got
    return [(a, None) for a in sorted(arm(st.body) & arm(st.orelse))]


def _class_block_stores(c: ClassInfo) -> list:
    """The ``self.a = v`` stores of each statement block of each method of ``c`` (blocks that store
    nothing left out), computed once per class: the judge asks about many guards of one class."""
    def compute() -> list:
        got = []
        for fn in c.methods.values():
            args = fn.args.posonlyargs + fn.args.args
            selfname = args[0].arg if args else "self"
            for block in _blocks(fn):
                stored = [s for st in block for s in _stores(st, selfname) + _both_arms(st, selfname)]
                if stored:
                    got.append(stored)
        return got
    return memo_on(c, "_pk_block_stores", compute)


def guard_implies(classes: list[ClassInfo], guard: str, mode: str, attr: str) -> bool:
    """Every store that can make ``self.<guard>`` pass (truthy, or not None) is in a block that
    also stores ``attr``, there is at least one, and the class-level default cannot pass."""
    setting = 0
    for c in classes:
        for st in c.node.body:  # the class-level default
            if isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                if any(isinstance(t, ast.Name) and t.id == guard for t in targets) and \
                        (mode == EXISTS or not _falsy(st.value, mode)):
                    return False  # the class-level value already passes
        for stored in _class_block_stores(c):
            for a, value in stored:
                if a != guard or _falsy(value, mode):
                    continue
                if not any(b == attr for b, _v in stored):
                    return False
                setting += 1
    return setting > 0


def default_fails(classes: list[ClassInfo], guard: str, mode: str, closed: bool) -> bool:
    """Before any store in construction, ``self.<guard>`` cannot pass the test: its class-level
    value (the first in the MRO) is None/False/0, or, in a closed hierarchy, there is none (the
    read of the guard would raise first)."""
    for c in classes:
        for st in c.node.body:
            if isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                if any(isinstance(t, ast.Name) and t.id == guard for t in targets):
                    return mode != EXISTS and st.value is not None and _falsy(st.value, mode)
        if guard in c.class_names:
            return False  # a method, property, nested class, import ...
    return closed


def excluded(classes: list[ClassInfo], conds, assigned, attr: str, closed: bool) -> bool:
    """A construction state whose branch facts need ``self.g`` to pass while ``g`` is not assigned
    yet (its default fails) or only passes together with ``attr`` (guard_implies): that path
    cannot reach a read of ``attr`` that it has not assigned."""
    # path Conds or read-site Facts: (key, holds) first. A path Cond written without the instance
    # (``if use_cache:`` on a local) is no guard of ``self.use_cache``: its key is normalised like one
    # A stored value (origin VALUE: ``self._a = 1``) is no branch either.
    facts = [(c[0], c[1]) for c in conds if not _local_test(c) and getattr(c, "origin", None) != VALUE]
    for g, mode in guard_attrs(facts):
        if mode != EXISTS:
            g = _property_of(classes, g)
        if g == attr:
            continue
        if g not in assigned and default_fails(classes, g, mode, closed):
            return True
        if guard_implies(classes, g, mode, attr):
            return True
    return False


def _local_test(c) -> bool:
    """A path condition on a local or a parameter (``use_cache``, ``flag is None``, as written),
    not on the instance (``self.flag``, ``hasattr(self, "x")``)."""
    text = getattr(c, "text", None)
    return isinstance(text, str) and bool(text) and "." not in text and "(" not in text


def _property_of(classes: list[ClassInfo], name: str) -> str:
    """The attribute a read-only property returns as is (``def attached(self): return
    self._attached``: vispy's filters test ``self.attached``, set ``_attached`` with ``_visual``),
    else ``name`` itself."""
    for c in classes:
        fn = c.methods.get(name)
        if fn is None:
            continue
        if c.method_kind.get(name) != "property":
            return name
        body = [st for st in fn.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
        if len(body) == 1 and isinstance(body[0], ast.Return) and fn.args.args:
            got = self_attr(body[0].value, fn.args.args[0].arg) if body[0].value is not None else None
            return got or name
        return name
    return name


def stored_by(classes: list[ClassInfo], name: str) -> bool:
    return any(name in c.assigned_in or name in c.class_names for c in classes)


def outside_together(classes: list[ClassInfo], guard: str, mode: str, attr: str) -> bool:
    """``hasattr(self, "g")`` where neither ``g`` nor ``attr`` is ever set by the class itself: both
    come from code outside that decorates the object (networkx's ``subgraph_view`` sets ``_NODE_OK``,
    ``_EDGE_OK`` and ``_graph`` on a fresh graph); the guard asks whether that code ran."""
    return mode == EXISTS and not stored_by(classes, guard) and not stored_by(classes, attr)
