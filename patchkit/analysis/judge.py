"""Judging a read after construction: which rule it falls under (maybe unassigned, never
assigned, two-phase, deleted again), what the message says, and the leniencies that keep
precision (template bases, siblings, dead private helpers, isinstance narrowing, correlated
call sites)."""
from __future__ import annotations

import ast
import difflib
from typing import Optional

from ..ftypes import Finding, Severity
from . import messages as M
from .classmodel import ClassFacts, _unimplemented_abstract
from .coassign import guard_attrs, guard_implies, outside_together
from .astutil import dotted, fast_walk, first_param, self_attr
from .mangle import private_part
from .model import ClassInfo
from .scan import ensure_scanned, init_callers
from .reach import reachable_names
from .reads import collect_reads
from .severity import _RUN_BEFORE, _branch_only, _calls_super, _mode_split, _why, constant_flags


class ReadJudge:
    """Mixin of Analyzer: the rules for reads outside construction."""

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
                for r in self._reads_of(fn, sn):
                    if r.attr != mname:
                        continue
                    if id(r.node) not in called:
                        self._sites_cache[key] = []
                        return []
                    out.append(r.conds)
        self._sites_cache[key] = out
        return out

    def _narrowed_to_owner(self, c: ClassInfo, selfname: str, attr: str, conds) -> bool:
        """The read sits under ``isinstance(self, X)`` for a class X that has the attribute (or
        that lies outside the analysed code): it is X's attribute, read on X's instances."""
        prefix = f"isinstance({selfname}, "
        for key, pol in conds:
            if not pol or not key.startswith(prefix) or not key.endswith(")"):
                continue
            for name in key[len(prefix):-1].strip("()").split(","):
                target = self.project.resolve_class(c.module, name.strip())
                if not isinstance(target, ClassInfo):
                    return True
                tf = self.facts(target)
                if attr in tf.class_level or any(attr in k.assigned_in for k in tf.classes):
                    return True
        return False

    def _reads_of(self, fn, selfname):
        got = self._reads_cache.get(id(fn))
        if got is None:
            got = self._reads_cache[id(fn)] = collect_reads(fn, selfname)
        return got

    def _check_del(self, ci, f, init, report, known_static) -> list[Finding]:
        dl = self.resolve_method(f.linear, "__del__")
        if dl is None or init is None or dl[0].module.external:
            return []
        ifn = init[1]
        sn = first_param(ifn)
        early: set[str] = set()
        first_risk = None
        for stmt in ifn.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and not any(
                    isinstance(n, (ast.Call, ast.Subscript, ast.BinOp, ast.Await)) for n in fast_walk(stmt.value or ast.Pass())):
                for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                    a = self_attr(t, sn)
                    if a:
                        early.add(a)
                continue
            if isinstance(stmt, (ast.Expr,)) and isinstance(stmt.value, ast.Constant):
                continue  # docstring
            first_risk = stmt.lineno
            break
        if first_risk is None:
            return []
        out = []
        cls, fn = dl[0], dl[1]
        for r in collect_reads(fn, first_param(fn) or "self"):
            if r.guarded or r.attr in r.known or r.attr in r.local or r.attr in early or known_static(r.attr):
                continue
            if not any(r.attr in c.assigned_in for c in f.classes):
                continue  # never assigned at all: the ordinary checks report that
            out.append(M.del_partial(cls.module.rel, r.node, ci.qualname, r.attr,
                                     f"__init__ can raise at line {first_risk} before assigning it; guard with "
                                     f"getattr(self, {r.attr!r}, None)"))
        return out

    def _judge_read(self, ci, owner, mname, r, attr, live, terminal, assigned_anywhere, ever_in_ctor,
                    unknown, strict, escapes, is_abstract_like, assigns_nothing, inlined, ctor_seen,
                    ctor_deleted) -> Optional[Finding]:
        rel = owner.module.rel
        in_sub = "" if owner.key == ci.key else f" (inherited by {ci.qualname})" if owner.module is ci.module else \
            f" (inherited by {ci.qualname} in {ci.module.rel})"
        if not strict and any(g != attr and (guard_implies(self.facts(ci).classes, g, mode, attr) or
                                             outside_together(self.facts(ci).classes, g, mode, attr))
                              for g, mode in guard_attrs(r.conds)):
            return None  # the guard passes only after a block that also set it (coassign.py)
        if attr in ever_in_ctor:
            why = _why(live[0], terminal, attr)
            sev = Severity.WARNING if not strict and (_mode_split(live, terminal, attr) or
                                                      _branch_only(live, terminal, attr, self._flags(ci))) else Severity.ERROR
            return M.maybe_unassigned(rel, r.node, ci.qualname, attr, why + in_sub, sev)
        if attr in assigned_anywhere:
            locs = assigned_anywhere[attr]
            order = [c.qualname for c in self.facts(ci).classes]
            if attr in ctor_seen and attr not in ctor_deleted:
                c, m, ln = locs[0]
                # the constructor had too many paths to keep each one's conditions: say so, as a warning
                return M.maybe_unassigned(rel, r.node, ci.qualname, attr,
                                          f"not assigned on every construction path ({c}.{m} assigns it at {self._at(ci, c, rel, ln)})" + in_sub,
                                          Severity.ERROR if strict else Severity.WARNING)
            ran = [(c, m, ln) for c, m, ln in locs if f"{c}.{m}" in inlined]
            if ran and attr in ctor_deleted:
                c, m, ln = ran[0]
                return M.maybe_unassigned(rel, r.node, ci.qualname, attr,
                                          f"assigned in {c}.{m} ({self._at(ci, c, rel, ln)}) but deleted again before construction ends" + in_sub)
            live_locs, init_not_run, shadowed = [], [], []
            for c, m, ln in locs:
                idx = order.index(c) if c in order else 0
                overriders = [d for d in order[:idx] if m in self._cls_by_name(ci, d).methods]
                if m == "__init__":
                    if f"{c}.{m}" not in inlined:
                        init_not_run.append((c, m, ln))
                    continue
                if overriders and not any(_calls_super(self._cls_by_name(ci, d).methods[m], m, c,
                                                       self._ancestor_names(ci, d, order, idx)) for d in overriders):
                    shadowed.append((c, m, ln))
                    continue
                live_locs.append((c, m, ln))
            # a skipped base __init__ whose class re-assigns it elsewhere (a reset) is still the missing super
            skipped = {c for c, _m, _ln in init_not_run}
            also = [(c, m, ln) for c, m, ln in live_locs if c in skipped]
            if init_not_run and len(also) == len(live_locs):
                c, m, ln = init_not_run[0]
                later = self._deferred_init(ci, c)
                if later:  # two-phase by design: Base.__init__(self) runs from a later set-up method
                    sev = Severity.ERROR if self.settings.strict_two_phase else Severity.WARNING
                    return M.two_phase(rel, r.node, ci.qualname, attr,
                                       f"assigned in {c}.__init__ ({self._at(ci, c, rel, ln)}), which {later} runs "
                                       f"after construction (deferred initialisation)" + in_sub, sev)
                facade = (self._facade(ci, c) or self._through_library(ci, c) or self._indirect(ci)) \
                    if not strict else None
                reset = "; otherwise only in " + ", ".join(f"{k}.{mm} ({self._at(ci, k, rel, n)})" for k, mm, n in also[:2]) \
                    + ", which construction never calls" if also else ""
                return M.never_assigned(rel, r.node, ci.qualname, attr,
                                        f"assigned in {c}.__init__ ({self._at(ci, c, rel, ln)}), which construction of {ci.qualname} "
                                        f"never runs (missing super().__init__()?)" + reset + in_sub + (f"; {facade}" if facade else ""),
                                        "", Severity.WARNING if facade else Severity.ERROR)
            if not live_locs and shadowed:
                c, m, ln = shadowed[0]
                return M.never_assigned(rel, r.node, ci.qualname, attr,
                                        f"only assigned in {c}.{m} ({self._at(ci, c, rel, ln)}), which {ci.qualname} overrides" + in_sub)
            locs = live_locs or locs
            # protocols that order the calls: __exit__ runs after __enter__; test frameworks run
            # setUp / setup_method before every test method
            if all(m in _RUN_BEFORE and (_RUN_BEFORE[m] is None or mname in _RUN_BEFORE[m]) for _c, m, _ln in locs):
                return None
            where = ", ".join(f"{c}.{m} ({self._at(ci, c, rel, ln)})" for c, m, ln in locs[:2])
            skipped_by = self._only_from_skipped_init(ci, locs, inlined)
            if skipped_by:
                c, m, ln = locs[0]
                return M.never_assigned(rel, r.node, ci.qualname, attr,
                                        f"only assigned in {where}, a private helper that only {skipped_by} calls; "
                                        f"construction of {ci.qualname} never runs it (missing super().__init__()?)" + in_sub,
                                        "", Severity.ERROR)
            # two-phase initialisation: the read runs on any object whose set-up method was not
            # called yet (declare such methods as `initializers` when the project always calls them)
            sev = Severity.ERROR if self.settings.strict_two_phase else Severity.WARNING
            return M.two_phase(rel, r.node, ci.qualname, attr, f"only assigned in {where}, which construction never calls" + in_sub, sev)
        # never assigned in the class's hierarchy
        if (unknown or escapes) and not strict:
            return None
        if not strict and is_abstract_like() and (_unimplemented_abstract(self.facts(ci).classes) or
                                                (self._raising_template(ci) and self._descendant_provides(ci, attr)) or
                                                (self._descendant_provides(ci, attr)
                                                 and not (self._constructs(ci) and self._unrelated_assigner(ci, attr, owner)))):
            # a template base: a subclass provides it (and is judged on its own). Not when an
            # unrelated class of the module assigns it: that is the field bug's shape (the
            # assignment landed in EagleDraftWorker.__init__ while EAGLEWorkerV2, itself concrete,
            # reads it), whatever its subclasses do. A base with no __init__ of its own builds
            # nothing (timm's senet.Bottleneck: forward() only): its subclasses are its state.
            return None
        if any(e.kind == "unknown" for e in self.facts(ci).externals) and not strict:
            return None
        hint = self._other_class_hint(ci, attr, owner)
        f = self.facts(ci)
        constructs = f.field_class or any("__init__" in c.methods for c in f.classes)
        named_mixin = ci.qualname.split(".")[-1].endswith("Mixin")
        mixin = named_mixin or not constructs
        if (assigns_nothing or mixin) and not strict and (not hint or named_mixin):
            return M.never_assigned(rel, r.node, ci.qualname, attr, "the class assigns no instance attributes (a mixin or interface?)",
                                    "", Severity.INFO)
        plain = private_part(attr) if not hint else None
        if plain:  # `self.__x` in a subclass is `_Sub__x`, not the base's `_Base__x`
            other = next((k for k in sorted(set(assigned_anywhere) | f.class_level)
                          if k != attr and private_part(k) == plain), None)
            if other:
                hint = f"private name mangling: self.{plain} in {ci.qualname.split('.')[-1]} is self.{attr}; {other} is another class's"
        if not hint:  # a typo of a name the class does have: `self.optimzer` for `self.optimizer`
            known = set(assigned_anywhere) | f.class_level | set(f.fields)
            close = difflib.get_close_matches(attr, sorted(k for k in known if k != attr), n=1, cutoff=0.9)
            if close:
                hint = f"did you mean self.{close[0]}?"
        dispatch = self._dispatch_guard(owner, ci, attr, r.conds) if owner.key != ci.key and not strict else None
        if dispatch:
            return M.never_assigned(rel, r.node, ci.qualname, attr, f"no method of {ci.qualname} or its bases assigns it; "
                                    f"{dispatch}" + in_sub, hint, Severity.WARNING)
        sibling = self._sibling_assigning(owner, mname, ci, attr) if owner.key != ci.key and not strict else None
        if sibling:
            # a base method written for the subclasses that set the attribute (reached through them)
            return M.never_assigned(rel, r.node, ci.qualname, attr,
                                    f"no method of {ci.qualname} or its bases assigns it; {owner.qualname}.{mname} "
                                    f"relies on subclasses such as {sibling} that do" + in_sub, hint, Severity.WARNING)
        impl = self._sibling_method(owner, ci, attr) if owner.key != ci.key and not strict else None
        if impl:
            # an abstract-method contract: the base calls a method its other subclasses define
            # (celery's BaseBackend._get_task_meta_for, which DisabledBackend leaves out on purpose)
            return M.never_assigned(rel, r.node, ci.qualname, attr,
                                    f"no method of {ci.qualname} or its bases defines it; {impl}, another subclass of "
                                    f"{owner.qualname}, defines it as a method (a contract {ci.qualname} leaves "
                                    f"unimplemented?)" + in_sub, hint, Severity.WARNING)
        return M.never_assigned(rel, r.node, ci.qualname, attr, f"no method of {ci.qualname} or its bases assigns it" + in_sub, hint)

    def _reachable(self, f: ClassFacts, inlined: set) -> set:
        """Names ``self.<name>`` that the class's effective methods (the MRO's first definer of
        each name) or its construction refer to; a base's private helper outside it is dead code
        for this class (its only caller is, say, a base ``__init__`` the class never runs)."""
        key = (id(f), len(inlined))
        got = self._reach_cache.get(key)
        if got is None:
            got = self._reach_cache[key] = reachable_names(f.classes, inlined)
        return got

    def _through_library(self, ci: ClassInfo, base: str) -> Optional[str]:
        """Construction called an unreadable library class's ``__init__`` that comes before
        ``base`` in the MRO: a cooperative library initialiser (or none at all: the lookup goes on)
        passes ``super().__init__()`` on to ``base.__init__`` (keras' TFOptimizer(KerasAutoTrackable,
        BaseOptimizer) through tf's AutoTrackable)."""
        if not getattr(self, "_ext_init_ran", False) and not self._init_lookup_reaches_unknown(ci):
            return None
        for c in self.facts(ci).linear:
            if getattr(c, "qualname", None) == base:
                return None
            if getattr(c, "kind", None) == "unknown":
                return f"{c.name} (unreadable here) comes first in the MRO: its __init__, if it has one, may pass the call on"
        return None

    def _ancestor_names(self, ci: ClassInfo, d: str, order: list, idx: int) -> list:
        """The names ``d``'s module may call an ancestor of ``d`` by (up to the declarer at ``idx``):
        short class names and the import aliases bound to them (``from .test_graph import
        TestGraph as _TestGraph``; ``_TestGraph.setup_method(self)``)."""
        anc = [q.split(".")[-1] for q in order[order.index(d) + 1:idx + 1]]
        imports = self._cls_by_name(ci, d).module.imports
        return anc + [local for local, target in imports.items() if target.split(".")[-1] in anc]

    def _init_lookup_reaches_unknown(self, ci: ClassInfo) -> bool:
        """No class before an unreadable library base in the MRO defines ``__init__``: the lookup
        goes into that base, which may define none (the lookup goes on: monai's ``CameraDataset(
        IterableDataset, VideoDataset)`` runs ``VideoDataset.__init__``) or pass it on."""
        for c in self.facts(ci).linear:
            if isinstance(c, ClassInfo) and "__init__" in c.methods:
                return False
            if getattr(c, "kind", None) == "unknown":
                return True
        return False

    def _constructs(self, ci: ClassInfo) -> bool:
        """A class of ``ci``'s MRO in the tree has an ``__init__`` (or generated fields)."""
        f = self.facts(ci)
        return bool(f.field_class) or any("__init__" in c.methods for c in f.classes if not c.module.external)

    def _flags(self, ci: ClassInfo) -> frozenset:
        got = self._flags_cache.get(ci.key) if hasattr(self, "_flags_cache") else None
        if got is None:
            self.__dict__.setdefault("_flags_cache", {})[ci.key] = got = constant_flags(self.facts(ci).classes)
        return got

    def _facade(self, ci: ClassInfo, base: str) -> Optional[str]:
        """Why ``ci`` skips ``base.__init__`` on purpose: its classes above ``base`` re-implement at
        least half (and 3 or more) of ``base``'s public methods, so it is a facade over other state
        (EncoderDecoderCache over two sub-caches, aiohttp's EmptyStreamReader), and what is left of
        ``base``'s methods may never be called on it. None when it is an ordinary subclass."""
        classes = self.facts(ci).classes
        b = next((c for c in classes if c.qualname == base), None)
        if b is None:
            return None
        above = classes[:classes.index(b)]
        public = {m for m in b.methods if not m.startswith("_") and b.method_kind.get(m) not in ("static", "class")}
        redone = {m for m in public if any(m in c.methods for c in above)}
        if len(redone) >= 3 and 2 * len(redone) >= len(public):
            return (f"{ci.qualname} re-implements {len(redone)} of the {len(public)} public methods of {base} "
                    f"without running its __init__ (a facade): the inherited method may never be called on it")
        return None

    def _indirect(self, ci: ClassInfo) -> Optional[str]:
        """Construction called ``<receiver>.__init__(self, ...)`` where the receiver names no class
        (an attribute or a local holding one): it may be the skipped base's initialiser."""
        call = getattr(self, "_indirect_init", None)
        return (f"construction of {ci.qualname} calls {call}(self, ...) on a class chosen at run time, "
                f"which may be that base's") if call else None

    def _only_from_skipped_init(self, ci: ClassInfo, locs, inlined) -> Optional[str]:
        """The ``__init__`` (``Cls.__init__``) that alone calls every assigning method, when each of
        them is private (``_name``), is called only as ``self._name(...)`` from ``__init__`` methods
        of ``ci``'s MRO, and construction of ``ci`` skipped those (a subclass without
        ``super().__init__()``): the missing super call, not a two-phase set-up. None otherwise."""
        classes = self.facts(ci).classes
        callers: set[str] = set()
        for _c, m, _ln in locs:
            if not m.startswith("_") or m.startswith("__"):
                return None
            for k in classes:
                if k.module.external:
                    continue
                for name, fn in k.methods.items():
                    sn = first_param(fn)
                    if not sn or name == m:
                        continue
                    for n in fast_walk(fn):
                        if isinstance(n, ast.Attribute) and n.attr == m and isinstance(n.value, ast.Name) \
                                and n.value.id == sn:
                            if name != "__init__":
                                return None
                            callers.add(f"{k.qualname}.{name}")
        if not callers or any(c in inlined for c in callers):
            return None
        return ", ".join(sorted(callers))

    def _deferred_init(self, ci: ClassInfo, base: str) -> Optional[str]:
        """``Cls.method`` of ``ci``'s MRO, other than ``__init__``, that runs ``base.__init__`` on the
        instance (``Base.__init__(self, ...)`` or ``super().__init__(...)``): the class defers its
        base's initialiser to a set-up method (two-phase initialisation), it did not forget it."""
        short = base.split(".")[-1]
        for c in self.facts(ci).classes:
            if c.module.external or c.qualname == base:
                continue
            for mname, callees in init_callers(c):
                if "super" in callees or short in callees:
                    return f"{c.qualname}.{mname}"
        return None

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

    def _unrelated_assigner(self, ci: ClassInfo, attr: str, owner: Optional[ClassInfo] = None) -> bool:
        """A class of the read's module that shares no class of the tree with ``ci``'s hierarchy
        assigns ``attr`` (the field bug: ``EagleDraftWorker``, under another base, got
        ``EAGLEWorkerV2``'s assignment). A sibling under a common base of the tree is the same
        family: seaborn's ``JointGrid`` beside ``Grid``, both under ``_BaseGrid``."""
        related = {c.key for c in self.facts(ci).classes} | {d.key for d in self._descendants(ci)}
        for base in self.facts(ci).classes[1:]:
            if not base.module.external:
                related |= {d.key for d in self._descendants(base)}
        mods = [ci.module] + ([owner.module] if owner is not None and owner.module is not ci.module else [])
        return any(other.key not in related and ensure_scanned(other).assigned_in.get(attr)
                   for m in mods for other in m.classes.values())

    def _other_class_hint(self, ci: ClassInfo, attr: str, owner: Optional[ClassInfo] = None) -> str:
        mine = {c.key for c in self.facts(ci).classes}
        mods = [ci.module] + ([owner.module] if owner is not None and owner.module is not ci.module else [])
        for other in (c for m in mods for c in m.classes.values()):
            if other.key in mine:
                continue
            locs = ensure_scanned(other).assigned_in.get(attr)
            if locs:
                m, line = locs[0]
                return f"assigned in {other.qualname}.{m} at line {line}, a different class"
        return ""

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

