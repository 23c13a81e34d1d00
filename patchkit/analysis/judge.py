"""Judging a read after construction: the chain of rule links (rules/pk001, pk003, pk004) each
read goes through until one answers, and the helpers they share (call sites of a private method,
isinstance narrowing, the names an instance can reach, where an attribute is placed)."""
from __future__ import annotations

import ast
import functools
from dataclasses import replace
from typing import Optional

from ..ftypes import Finding
from .astutil import dotted, fast_walk, first_param, memo_on
from .coassign import guard_attrs, guard_implies, outside_together
from .classmodel import ClassFacts
from .model import ClassInfo
from .reach import reachable_names
from .reads import collect_reads, predicates_of
from .rules import pk001_maybe_unassigned as pk001, pk003_never_assigned as pk003, pk004_two_phase_initialisation as pk004
from .severity import _calls_super, constant_flags
from .swallowing import swallowing_decorator
from .trace import NEXT, Placement, ReadSite

#: the links a read goes through, in order; each answers a Finding, None (the read is fine) or NEXT
CHAIN = (pk004.entered_first, pk001.on_some_paths, pk001.lost_track, pk004.deferred_base_init,
         pk003.skipped_base_init, pk003.shadowed, pk004.ordered_protocol, pk003.helper_of_skipped_init, pk001.on_no_path,
         pk004.two_phase,
         pk003.never_assigned)


def judge_read(an, site: ReadSite) -> Optional[Finding]:
    """The finding for ``site`` (None: no finding): a guard that passes only where the attribute
    was set ends it; otherwise the first link of CHAIN that answers."""
    t, attr = site.trace, site.attr
    if not t.strict and any(g != attr and (guard_implies(t.facts.classes, g, mode, attr) or
                                           outside_together(t.facts.classes, g, mode, attr))
                            for g, mode in guard_attrs(site.read.conds)):
        return None  # the guard passes only after a block that also set it (coassign.py)
    if attr in t.assigned_anywhere and attr not in t.ever_in_ctor:
        site = replace(site, placed=place(an, site))
    for link in CHAIN:
        got = link(an, site)
        if got is not NEXT:
            return got
    return None


def place(an, site: ReadSite) -> Placement:
    """Where ``site``'s attribute is assigned in the MRO, as construction of the class sees it."""
    t = site.trace
    ci = t.ci
    order = [c.qualname for c in t.facts.classes]
    live, init_not_run, shadowed = [], [], []
    for c, m, ln in t.assigned_anywhere[site.attr]:
        idx = order.index(c) if c in order else 0
        overriders = [d for d in order[:idx] if m in an._cls_by_name(ci, d).methods]
        if m == "__init__" or (m in ("__post_init__", "__attrs_post_init__") and t.post_init_skipped):
            # initialisers (a dataclass's __post_init__ runs with its generated __init__), not a two-phase set-up
            if f"{c}.{m}" not in t.inlined:
                init_not_run.append((c, m, ln))
            continue
        if overriders and not any(_calls_super(an._cls_by_name(ci, d).methods[m], m, c,
                                               an._ancestor_names(ci, d, order, idx)) for d in overriders):
            shadowed.append((c, m, ln))
            continue
        live.append((c, m, ln))
    return Placement(tuple(live), tuple(init_not_run), tuple(shadowed))


class ReadJudge:
    """Mixin of Analyzer: what the read rules ask of the class model."""

    def _call_sites(self, classes: list[ClassInfo], mname: str, inlined: set) -> list[frozenset]:
        """The conditions around every call of the private method ``self.<mname>(...)`` in the
        class's methods outside construction: a correlated flag one call up (``if self.use_x:
        return self._lookup(k)``). Empty when some reference is not a call (a callback) or there is
        no such call: then nothing is known about its callers."""
        key = (tuple(c.key for c in classes), mname)
        if key in self._sites_cache:
            return self._sites_cache[key]
        out: list[frozenset] = []
        for c in classes:
            for caller, fn in c.methods.items():
                if caller == mname or f"{c.qualname}.{caller}" in inlined:
                    continue
                sn = first_param(fn)
                if not sn or mname not in c.self_refs.get(caller, ()):
                    continue
                called = {id(n.func) for n in fast_walk(fn) if isinstance(n, ast.Call)}
                for r in self._reads_of(fn, sn, c):
                    if r.attr != mname:
                        continue
                    if id(r.node) not in called:
                        self._sites_cache[key] = []
                        return []
                    out.append(r.conds)
        self._sites_cache[key] = out
        return out

    def _narrowed_to_owner(self, c: ClassInfo, selfname: str, attr: str, conds, ci: Optional[ClassInfo] = None) -> bool:
        """The read sits under ``isinstance(self, X)`` for a class X that has the attribute (or
        that lies outside the analysed code): it is X's attribute, read on X's instances. Or X is a
        class of the tree that ``ci`` (the class judged) does not derive from: the branch is dead for
        ``ci`` (river's ``if isinstance(self, base.Classifier):`` in a tree shared with regressors);
        a subclass that does mix X in is judged on its own."""
        # ``issubclass(type(self), X)`` and ``issubclass(self.__class__, X)`` test the same
        # (boto's ``StorageUri.has_version``); with a tuple, every class must answer for the read
        for key, pol in conds:
            names = _narrowing_names(key, selfname) if pol else None
            if not names:
                continue
            if all(self._owner_answers(c, name, attr, ci) for name in names):
                return True
        return False

    def _owner_answers(self, c: ClassInfo, name: str, attr: str, ci: Optional[ClassInfo]) -> bool:
        """The class ``name`` (as written in ``c``'s module) has ``attr``, lies outside the analysed
        code, or is one ``ci`` does not derive from (the branch is dead for ``ci``)."""
        target = self.project.resolve_class(c.module, name)
        if not isinstance(target, ClassInfo):
            return True
        tf = self.facts(target)
        if attr in tf.class_level or attr in tf.fields or any(attr in k.assigned_in for k in tf.classes):
            return True
        if ci is not None:
            mine = self.facts(ci)
            return mine.unknown_base is None and all(k.key != target.key for k in mine.classes)
        return False

    def _reads_of(self, fn, selfname, owner: Optional[ClassInfo] = None):
        """The reads of ``fn``; with ``owner`` (the class defining it), its guard methods count as
        the guards they return (reads.predicates_of)."""
        got = self._reads_cache.get(id(fn))
        if got is None:
            preds = memo_on(owner, "_pk_predicates", lambda: predicates_of(owner.methods)) if owner is not None else None
            got = collect_reads(fn, selfname, preds)
            if owner is not None and got and swallowing_decorator(self.project, owner.module, fn):
                got = [replace(r, guarded=True) for r in got]
            self._reads_cache[id(fn)] = got
        return got

    def _reachable(self, f: ClassFacts, inlined: set) -> set:
        """Names ``self.<name>`` that the class's effective methods (the MRO's first definer of
        each name) or its construction refer to; a base's private helper outside it is dead code
        for this class (its only caller is, say, a base ``__init__`` the class never runs)."""
        key = (id(f), len(inlined))
        got = self._reach_cache.get(key)
        if got is None:
            got = self._reach_cache[key] = reachable_names(f.classes, inlined)
        return got

    @staticmethod
    def _helper_stores_on_held(target: ClassInfo, init, recv: set) -> bool:
        """``target.__init__`` keeps the instance it was handed (``self.listener = listener``), and
        some method of ``target`` stores on what it keeps (``self.listener.funcname = ...``): the
        helper sets attributes on the instance later, when it is used (mako's ``ParseFunc``)."""
        sn = first_param(init)
        held = {t.attr for n in fast_walk(init) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
                and n.value.id in recv for t in n.targets
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == sn}
        if not held:
            return False
        for fn in target.methods.values():
            me = first_param(fn)
            for n in fast_walk(fn):
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Attribute) \
                        and n.value.attr in held and isinstance(n.value.value, ast.Name) and n.value.value.id == me:
                    return True
                if isinstance(n, ast.Call) and (dotted(n.func) or "") == "setattr" and n.args and \
                        isinstance(n.args[0], ast.Attribute) and n.args[0].attr in held:
                    return True
        return False

    def _ancestor_names(self, ci: ClassInfo, d: str, order: list, idx: int) -> list:
        """The names ``d``'s module may call an ancestor of ``d`` by (up to the declarer at ``idx``):
        short class names and the import aliases bound to them (``from .test_graph import
        TestGraph as _TestGraph``; ``_TestGraph.setup_method(self)``)."""
        anc = [q.split(".")[-1] for q in order[order.index(d) + 1:idx + 1]]
        imports = self._cls_by_name(ci, d).module.imports
        return anc + [local for local, target in imports.items() if target.split(".")[-1] in anc]

    def _flags(self, ci: ClassInfo) -> frozenset:
        got = self._flags_cache.get(ci.key) if hasattr(self, "_flags_cache") else None
        if got is None:
            self.__dict__.setdefault("_flags_cache", {})[ci.key] = got = constant_flags(self.facts(ci).classes)
        return got

    def _at(self, ci: ClassInfo, qualname: str, rel: str, line: int) -> str:
        """``line N`` in the read's own module, ``path:N`` in another one."""
        owner = next((c for c in self.facts(ci).classes if c.qualname == qualname), None)
        return f"line {line}" if owner is None or owner.module.rel == rel else f"{owner.module.rel}:{line}"

    @staticmethod
    def _referenced_outside(classes: list[ClassInfo], inlined: set[str]) -> set[str]:
        """Method names that code outside construction refers to as ``self.<name>``."""
        out: set[str] = set()
        for c in classes:
            for mname, refs in c.self_refs.items():
                if f"{c.qualname}.{mname}" in inlined or mname == "__init__":
                    continue
                out |= refs
        return out

    def _escape_is_harmless(self, call: ast.Call, frame) -> bool:
        """``SomeClass(self)`` / ``func(self)`` in the analysed tree that never sets attributes on it."""
        name = dotted(call.func) or ""
        mod = frame.cls.module
        target = self.project.resolve_class(mod, name) if name else None
        fn = None
        if isinstance(target, ClassInfo):
            fn = target.methods.get("__init__")
            if fn is None:
                return True
            offset = 1
        else:
            r = self.project.resolve_function(mod, name) if name else None
            if r is None:
                return False
            fn = r[1]
            offset = 0
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args][offset:]
        recv: set[str] = set()
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Name) and a.id == frame.selfname and i < len(params):
                recv.add(params[i])
        for k in call.keywords:
            if isinstance(k.value, ast.Name) and k.value.id == frame.selfname and k.arg:
                recv.add(k.arg)
        if isinstance(target, ClassInfo) and self._helper_stores_on_held(target, fn, recv):
            return False  # mako's ParseFunc(self): keeps it as self.listener, and visit_* set listener.x
        for node in fast_walk(fn):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                    isinstance(node.value, ast.Name) and node.value.id in recv:
                return False
            if isinstance(node, ast.Call) and (dotted(node.func) or "") in ("setattr",) and node.args and \
                    isinstance(node.args[0], ast.Name) and node.args[0].id in recv:
                return False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id in recv and \
                    node.func.attr.startswith("register_"):
                return False
        return True


@functools.lru_cache(maxsize=4096)
def _narrowing_names(key: str, selfname: str) -> Optional[tuple[str, ...]]:
    """The class names of a test that is exactly ``isinstance(self, X)``, ``issubclass(type(self),
    X)`` or ``issubclass(self.__class__, X)`` (``X`` a name or a tuple of names; the test text has
    ``self.`` stripped), else None: ``issubclass(type(self), A) or self.ok()`` narrows nothing.
    The conditions keep only the test's text, so it is parsed again here: memoised per text."""
    if "instance(" not in key and "subclass(" not in key:
        return None
    try:
        node = ast.parse(key, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 2 and not node.keywords):
        return None
    who, what = node.args
    if node.func.id == "isinstance":
        ok = isinstance(who, ast.Name) and who.id == selfname
    elif node.func.id == "issubclass":
        ok = (isinstance(who, ast.Call) and dotted(who.func) == "type" and len(who.args) == 1 and
              isinstance(who.args[0], ast.Name) and who.args[0].id == selfname) or \
             (isinstance(who, ast.Name) and who.id == "__class__")
    else:
        ok = False
    if not ok:
        return None
    items = what.elts if isinstance(what, ast.Tuple) else [what]
    while any(isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr) for e in items):  # ``A | B``
        items = [x for e in items for x in ((e.left, e.right) if isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr) else (e,))]
    names = tuple(dotted(e) for e in items)
    return None if not names or any(n is None for n in names) else names
