"""The attribute-initialization check: every ``self.x`` read has an assignment on all
construction paths. Builds each concrete class's MRO, walks construction (flow.py), then
judges every read in every method against the states construction can end in."""
from __future__ import annotations

import ast
import difflib
import functools
import re
from dataclasses import dataclass, field, replace
from typing import Optional

from ..ftypes import Finding, Severity
from . import messages as M
from .flow import Budget, BudgetExceeded, Constructor, State
from .openness import open_reason
from .library import (EXC_ATTRS, FIELD_BASE_ATTRS, OBJECT_ATTRS, THREAD_ATTRS, TORCH_MODULE_ATTRS, External,
                      classify_external)
from .model import ClassInfo, ModuleInfo, dotted, ensure_scanned, fast_walk, first_param, new_instances, self_attr
from .project import Project
from .reads import collect_reads

NOT_CHECKED_METHODS = {"__init__", "__new__", "__init_subclass__", "__post_init__", "__attrs_post_init__", "__del__", "__setstate__",
                       "__getstate__", "__reduce__", "__reduce_ex__", "__class_getitem__", "__set_name__",
                       "__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__copy__", "__deepcopy__"}
_SUPPRESS = re.compile(r"#\s*patchkit:\s*ignore(?:\[([A-Z0-9, ]+)\])?")
_FUZZY = re.compile(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)\b")


@dataclass(frozen=True)
class Settings:
    #: "quiet": a class with a base outside the analysed code is judged only on what it
    #: assigns itself; "strict": unknown bases provide nothing
    unknown_bases: str = "quiet"
    #: report reads of attributes assigned only outside construction (two-phase init) as errors
    strict_two_phase: bool = False
    #: extra methods a project always calls before use (treated as part of construction)
    initializers: tuple[str, ...] = ()
    #: report info-level findings too
    show_info: bool = False
    #: work allowed per file (wall-clock seconds, state-steps); past it the file gets a PK901
    #: "could not be fully analysed" finding instead of a hang
    budget_seconds: float = 20.0
    budget_steps: int = 3_000_000


@dataclass
class ClassFacts:
    linear: list
    classes: list[ClassInfo]
    externals: list[External]
    class_level: set[str] = field(default_factory=set)
    provided: frozenset = frozenset()
    fields: set[str] = field(default_factory=set)
    field_class: bool = False
    unknown_base: Optional[str] = None
    skip: Optional[str] = None
    dynamic: Optional[str] = None
    dyn_patterns: list = field(default_factory=list)
    #: why attributes may come from code not in view (openness.py); None: closed
    open: Optional[str] = None
    #: annotation-only attributes of an abstract class in the MRO (a contract its subclasses fulfil)
    contracts: frozenset = frozenset()


class Analyzer:
    """Analyse one or more modules of a Project; ``report`` limits findings to those files."""

    def __init__(self, project: Project, settings: Settings = Settings()):
        self.project = project
        self.settings = settings
        # a class's facts (MRO, class-level names, fields) do not depend on which files are being
        # reported, so analyzers over one project share them
        self._facts: dict = project.__dict__.setdefault("_facts_cache", {}).setdefault(settings, {})
        self._sites_cache: dict = {}
        self._reach_cache: dict = {}
        self._reads_cache: dict = {}
        self._subclasses: dict[tuple, list[ClassInfo]] = {}

    # ------------------------------------------------------------------ MRO
    def resolve_base(self, ci: ClassInfo, base: str):
        r = self.project.resolve_class(ci.module, base)
        if isinstance(r, ClassInfo) and r.key == ci.key:
            # `class X(X):` — the base expression runs before the new name is bound: the import
            head = base.split(".")[0]
            if head in ci.module.imports:
                full = ci.module.imports[head] + base[len(head):]
                r = self.project._resolve_qualified(full, 1)
            else:
                r = base
        if isinstance(r, ClassInfo):
            return r
        return classify_external(r or base)

    def direct_bases(self, ci: ClassInfo) -> list:
        return [self.resolve_base(ci, b) for b in ci.bases] or [External("object", "ordinary")]

    def mro(self, ci: ClassInfo, seen: Optional[set] = None) -> list:
        seen = seen or set()
        if ci.key in seen:
            return [ci]
        seen = seen | {ci.key}
        seqs = []
        for b in self.direct_bases(ci):
            seqs.append(self.mro(b, seen) if isinstance(b, ClassInfo) else [b])
        bases = self.direct_bases(ci)
        return [ci] + _c3(seqs + [bases])

    def facts(self, ci: ClassInfo) -> ClassFacts:
        if ci.key in self._facts:
            return self._facts[ci.key]
        mro = self.mro(ci)
        classes = [ensure_scanned(c) for c in mro if isinstance(c, ClassInfo)]
        externals = [c for c in mro if isinstance(c, External)]
        f = ClassFacts(mro, classes, externals)
        provided = set(OBJECT_ATTRS)
        for c in classes:
            f.class_level |= c.class_names
            f.dyn_patterns += c.dyn_patterns
            if c.dynamic and not f.dynamic:
                f.dynamic = f"{c.qualname} {c.dynamic}"
            if c.field_kind and c.field_init:
                f.field_class = True
                f.fields |= c.fields
        for c in classes:
            f.class_level -= c.slots
            if "__new__" in c.methods:
                provided |= _new_assigns(c.methods["__new__"])
        for e in externals:
            if e.kind == "module":
                provided |= TORCH_MODULE_ATTRS
            elif e.kind == "exception":
                provided |= EXC_ATTRS
            elif e.kind == "thread":
                provided |= THREAD_ATTRS
            elif e.kind == "field":
                provided |= FIELD_BASE_ATTRS
                f.field_class = True
                for c in classes:
                    f.fields |= c.fields
            elif e.kind == "skip":
                f.skip = f"subclasses {e.name}"
            elif e.kind == "unknown" and f.unknown_base is None:
                f.unknown_base = e.name
        f.provided = frozenset(provided)
        f.open = open_reason(classes)
        abstract = [c for c in classes if c.abstract or any(b.split(".")[-1] in ("ABC", "Protocol") for b in c.bases)]
        f.contracts = frozenset().union(*(c.annotated_only for c in abstract)) if abstract else frozenset()
        self._facts[ci.key] = f
        return f

    def resolve_method(self, mro: list, name: str, after: Optional[ClassInfo] = None, inclusive: bool = False):
        """(class, fn, kind) of ``name`` along ``mro``, starting after ``after`` (super())."""
        started = after is None
        for c in mro:
            if not started:
                if isinstance(c, ClassInfo) and c.key == after.key:
                    started = True
                    if not inclusive:
                        continue
                else:
                    continue
            if isinstance(c, External):
                if c.kind in ("unknown", "module", "thread", "exception", "field", "skip"):
                    return None
                continue
            if name in c.methods:
                return c, c.methods[name], c.method_kind.get(name, "method")
            if name in c.class_names:
                return None
        return None

    # ------------------------------------------------------------------ main
    def analyse(self, modules: list[ModuleInfo]) -> list[Finding]:
        report = {m.rel for m in modules}
        classes = [c for m in modules for c in m.classes.values()]
        out: dict[tuple, Finding] = {}
        rank = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
        budget = Budget(self.settings.budget_seconds, self.settings.budget_steps).start()
        self._budget = budget
        over: dict[str, str] = {}
        for c in classes:
            if c.module.rel in over:
                continue
            try:
                got = self.check_class(c, report)
            except BudgetExceeded as exc:
                over[c.module.rel] = f"{c.qualname}: {exc}"
                got = [M.not_fully_analysed(c.module.rel, c.node, c.qualname, str(exc))]
            for fnd in got:
                # one finding per (file, line, attribute): the most severe, then the first column
                k = (fnd.path, fnd.line, fnd.attr)
                if k not in out or (rank[fnd.severity], fnd.col) < (rank[out[k].severity], out[k].col):
                    out[k] = fnd
        lines = {m.rel: m.lines for m in self.project.tree_modules()}
        result = [f for f in out.values() if not _suppressed(f, lines)]
        if not self.settings.show_info:
            result = [f for f in result if f.severity != Severity.INFO]
        # the first module's own classes first (the file being checked), then the classes of the
        # other modules that inherit from it
        own = {c.qualname for c in modules[0].classes.values()} if modules else set()
        return sorted(result, key=lambda f: (f.cls not in own, f))

    def definitely_assigned(self, ci: ClassInfo) -> frozenset:
        """Attributes assigned on every path through construction of ``ci`` (the oracle tests use it)."""
        f = self.facts(ci)
        mro = f.linear
        ctor = Constructor(ci, mro, lambda name, after, inclusive=False: self.resolve_method(mro, name, after, inclusive),
                           lambda *a: None, lambda *a: None, lambda cls, name: self.project.resolve_class(cls.module, name),
                           lambda call, frame: (dotted(call.func) or "") in frame.cls.module.noreturn)
        init = self.resolve_method(mro, "__init__")
        terminal = ctor.run(State(frozenset(f.fields) if f.field_class else frozenset()),
                            (init[0], init[1]) if init else None)
        return frozenset.intersection(*(s.assigned for s in terminal)) if terminal else frozenset()

    def _direct_subclasses(self, ci: ClassInfo) -> list[ClassInfo]:
        """Direct subclasses of ``ci`` anywhere in the tree (the class index), plus those in the
        modules being reported."""
        got = self._subclasses.get(ci.key)
        if got is None:
            got = self._subclasses[ci.key] = [] if ci.module.external else self.project.subclasses(ci)
        return got

    def _descendants(self, ci: ClassInfo) -> list[ClassInfo]:
        out, todo = [], list(self._direct_subclasses(ci))
        while todo:
            c = todo.pop()
            if c not in out:
                out.append(c)
                todo += self._direct_subclasses(c)
        return out

    def check_class(self, ci: ClassInfo, report: set[str]) -> list[Finding]:
        f = self.facts(ci)
        if f.skip or f.dynamic:
            return []
        if ci.qualname.split(".")[-1].endswith("Mixin") and self.settings.unknown_bases != "strict":
            return []  # a mixin is judged through the classes that mix it in (its reads are theirs)
        findings: list[Finding] = []
        escapes: list[int] = []
        mro = f.linear
        strict = self.settings.unknown_bases == "strict"

        # an abstract class's annotation-only attribute is a contract its subclasses fulfil
        contracts = f.contracts if (ci.abstract or _unimplemented_abstract(f.classes) or any(
            b.split(".")[-1] in ("ABC", "Protocol") for b in ci.bases)) else frozenset()

        def known_static(attr: str) -> bool:
            return attr in f.class_level or attr in f.provided or attr in contracts or \
                any(p.match(attr) for p in f.dyn_patterns)

        construction_reads: list[tuple] = []

        def on_read(attr, node, frame, states):
            if known_static(attr):
                return
            missing = [s for s in states if attr not in s.assigned]
            if missing:
                construction_reads.append((attr, node, frame, missing, states))

        def on_escape(call, frame):
            if not self._escape_is_harmless(call, frame):
                escapes.append(call.lineno)

        def resolve_init_class(cls, name):
            r = self.project.resolve_class(cls.module, name)
            return r

        def is_noreturn(call, frame):
            fname = dotted(call.func) or ""
            return fname in frame.cls.module.noreturn

        ctor = Constructor(ci, mro, lambda name, after, inclusive=False: self.resolve_method(mro, name, after, inclusive),
                           on_read, on_escape, resolve_init_class, is_noreturn)
        ctor.budget = getattr(self, "_budget", None)
        start = State(frozenset(f.fields) if f.field_class else frozenset())
        init = self.resolve_method(mro, "__init__")
        if init is not None and init[2] != "method":
            init = None
        if f.field_class and init is not None and init[0].field_kind and not _has_explicit_init(init[0]):
            init = None
        terminal = ctor.run(start, (init[0], init[1]) if init else None)
        for hook in ("__post_init__", "__attrs_post_init__"):
            post = self.resolve_method(mro, hook)
            if post is not None and (f.field_class or any(c.field_kind for c in f.classes)):
                terminal = ctor.call_function(post[0], post[1], terminal, 0)
        for name in self.settings.initializers:
            m = self.resolve_method(mro, name)
            if m is not None:
                terminal = ctor.call_function(m[0], m[1], terminal, 0)
        for c in f.classes:
            for (mname, line, attrs, calls_init) in c.alt_ctors:
                if not calls_init:
                    terminal = terminal + [State(frozenset(attrs) | f.class_level & frozenset(),
                                                 frozenset({("<alt>", True, line,
                                                             f"{c.qualname}.{mname} builds with __new__ at line {line} and skips __init__")}))]
        if not terminal:
            return []  # construction always raises: nothing to judge
        base_init = next((e for e in f.externals if e.kind in ("module", "thread")), None)
        if base_init is not None and init is not None and not ctor.external_init_ran \
                and not init[0].module.external:
            # nn.Module / Thread keep their state in what their own __init__ sets up
            findings.append(M.base_init_skipped(init[0].module.rel, init[1], ci.qualname, base_init.name))
        unknown = f.unknown_base is not None or ctor.external_init_ran and f.unknown_base is not None
        assigned_anywhere: dict[str, list[tuple[str, str, int]]] = {}
        for c in f.classes:
            for a, locs in c.assigned_in.items():
                for (m, line) in locs:
                    assigned_anywhere.setdefault(a, []).append((c.qualname, m, line))
        ever_in_ctor = set().union(*(s.assigned for s in terminal)) if terminal else set()

        # -- reads during construction
        # an abstract base is never built itself: its subclasses are, and they are judged on their own
        # (a dataclass field or a class attribute the base only declares)
        abstract_base = bool(_unimplemented_abstract(f.classes)) or (
            any(e.name.split(".")[-1] in ("ABC", "Protocol") for e in f.externals) and bool(self._descendants(ci)))
        descendants = self._descendants(ci)

        def subclasses_provide(attr: str) -> bool:
            """A template base: its __init__ reads what every subclass sets before super().__init__()."""
            leaves = [d for d in descendants if not self._subclasses.get(d.key)]  # the concrete ones
            if not leaves:
                return False
            for d in leaves:
                df = self.facts(d)
                if not (attr in df.class_level or attr in df.fields or any(attr in k.assigned_in for k in df.classes)):
                    return False
            return True
        for (attr, node, frame, missing, states) in construction_reads:
            rel = frame.cls.module.rel
            if frame.cls.module.external:
                continue  # library code: its reads are the library's business
            if attr not in assigned_anywhere and attr not in ever_in_ctor:
                if unknown and not strict:
                    continue
                if escapes and not strict:
                    continue
                if (abstract_base or subclasses_provide(attr)) and not strict:
                    continue
            locs = assigned_anywhere.get(attr, [])
            not_run = [(c, m, ln) for (c, m, ln) in locs if f"{c}.{m}" not in ctor.inlined]
            later = [self._at(ci, c, rel, ln) for (c, m, ln) in locs
                     if f"{c}.{m}" in ctor.inlined and (ln > node.lineno or m != frame.fn.name)]
            if later:
                why = f"assigned later ({', '.join(later[:2])})"
            elif not_run:
                c, m, ln = not_run[0]
                why = (f"assigned in {c}.{m} ({self._at(ci, c, rel, ln)}), which construction of {ci.qualname} never runs"
                       + (" (missing super().__init__()?)" if m == "__init__" else ""))
            else:
                why = "no construction path assigns it first"
            where = f"in {frame.cls.qualname}.{frame.fn.name}"
            if frame.fn.name != "__init__":
                where += " (called during construction)"
            # definite when no path reaching the read has assigned it; path-dependent reads are
            # usually mutually exclusive modes: a warning unless strict
            sev = Severity.ERROR if (strict or len(missing) == len(states)) else Severity.WARNING
            findings.append(M.read_before_assignment(rel, node, ci.qualname, attr, f"{why}; read {where}", sev))

        # -- __del__ runs even when __init__ raised part-way: judge its reads against what is
        #    assigned before the first statement of __init__ that can raise
        findings += self._check_del(ci, f, init, report, known_static)

        # -- reads after construction
        is_abstract_like = bool(self._descendants(ci)) or bool(_unimplemented_abstract(f.classes))
        assigns_nothing = not any(c.assigned_in for c in f.classes) and not f.fields
        seen_methods: set[str] = set()
        always = frozenset.intersection(*(s.assigned for s in terminal))
        called_later = (self._referenced_outside(f.classes, ctor.inlined)
                        if any(not x.endswith(".__init__") for x in ctor.inlined) else set())
        for c in f.classes:
            for mname, fn in c.methods.items():
                if mname in seen_methods:
                    continue
                seen_methods.add(mname)
                if mname in NOT_CHECKED_METHODS or c.method_kind.get(mname) in ("static", "class"):
                    continue
                if f"{c.qualname}.{mname}" in ctor.inlined and mname not in called_later:
                    continue  # a construction helper: its reads were judged on the construction paths
                if c.module.external:
                    continue
                if mname in self.settings.initializers:
                    continue
                if c.key != ci.key and _private(mname) and mname not in self._reachable(f, ctor.inlined):
                    continue  # an inherited private helper only code this class never runs calls
                selfname = first_param(fn)
                if not selfname:
                    continue
                refs = c.self_refs.get(mname, ())
                if all(a in always or known_static(a) for a in refs):
                    continue  # every attribute the method touches is always assigned: nothing to judge
                for r in collect_reads(fn, selfname):
                    attr = r.attr
                    if known_static(attr) or r.guarded or attr in r.known or attr in r.local:
                        continue
                    if self._narrowed_to_owner(c, selfname, attr, r.conds):
                        continue
                    missing = [s for s in terminal if attr not in s.assigned]
                    if not missing:
                        continue
                    live = [s for s in missing if not _excluded(s, r.conds)]
                    if live and _private(mname):
                        sites = self._call_sites(f.classes, mname, ctor.inlined)
                        live = [s for s in live if not sites or not all(_excluded(s, conds) for conds in sites)]
                    if not live:
                        continue
                    fnd = self._judge_read(ci, c, mname, r, attr, live, terminal, assigned_anywhere,
                                           ever_in_ctor, unknown, strict, escapes, is_abstract_like, assigns_nothing,
                                           ctor.inlined, ctor.seen, ctor.deleted)
                    if fnd is not None:
                        findings.append(fnd)
        if f.open and not strict:  # unknown is not wrong: say "could not prove", at info level
            findings = [replace(x, severity=Severity.INFO, why=f"{x.why} [open class: {f.open}]") for x in findings]
        return findings

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
        if attr in ever_in_ctor:
            why = _why(live[0], terminal, attr)
            sev = Severity.WARNING if not strict and (_mode_split(live, terminal, attr) or
                                                      _branch_only(live, terminal, attr)) else Severity.ERROR
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
                if overriders and not any(_calls_super(self._cls_by_name(ci, d).methods[m], m, c) for d in overriders):
                    shadowed.append((c, m, ln))
                    continue
                live_locs.append((c, m, ln))
            if not live_locs and init_not_run:
                c, m, ln = init_not_run[0]
                return M.never_assigned(rel, r.node, ci.qualname, attr,
                                        f"assigned in {c}.__init__ ({self._at(ci, c, rel, ln)}), which construction of {ci.qualname} "
                                        f"never runs (missing super().__init__()?)" + in_sub)
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
            # two-phase initialisation: the read runs on any object whose set-up method was not
            # called yet (declare such methods as `initializers` when the project always calls them)
            sev = Severity.ERROR if self.settings.strict_two_phase else Severity.WARNING
            return M.two_phase(rel, r.node, ci.qualname, attr, f"only assigned in {where}, which construction never calls" + in_sub, sev)
        # never assigned in the class's hierarchy
        if (unknown or escapes) and not strict:
            return None
        if is_abstract_like and not strict and (_unimplemented_abstract(self.facts(ci).classes) or
                                                (self._descendant_provides(ci, attr)
                                                 and not self._unrelated_assigner(ci, attr, owner))):
            # a template base: a subclass provides it (and is judged on its own). Not when an
            # unrelated class of the module assigns it: that is the field bug's shape (the
            # assignment landed in EagleDraftWorker.__init__ while EAGLEWorkerV2, itself concrete,
            # reads it), whatever its subclasses do.
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
        if not hint:  # a typo of a name the class does have: `self.optimzer` for `self.optimizer`
            known = set(assigned_anywhere) | f.class_level | set(f.fields)
            close = difflib.get_close_matches(attr, sorted(k for k in known if k != attr), n=1, cutoff=0.9)
            if close:
                hint = f"did you mean self.{close[0]}?"
        sibling = self._sibling_assigning(owner, mname, ci, attr) if owner.key != ci.key and not strict else None
        if sibling:
            # a base method written for the subclasses that set the attribute (reached through them)
            return M.never_assigned(rel, r.node, ci.qualname, attr,
                                    f"no method of {ci.qualname} or its bases assigns it; {owner.qualname}.{mname} "
                                    f"relies on subclasses such as {sibling} that do" + in_sub, hint, Severity.WARNING)
        return M.never_assigned(rel, r.node, ci.qualname, attr, f"no method of {ci.qualname} or its bases assigns it" + in_sub, hint)

    def _reachable(self, f: ClassFacts, inlined: set) -> set:
        """Names ``self.<name>`` that the class's effective methods (the MRO's first definer of
        each name) or its construction refer to; a base's private helper outside it is dead code
        for this class (its only caller is, say, a base ``__init__`` the class never runs)."""
        key = (id(f), len(inlined))
        got = self._reach_cache.get(key)
        if got is None:
            got, seen = set(), set()
            for c in f.classes:
                for m in c.methods:
                    effective = m not in seen
                    seen.add(m)
                    if effective and m != "__init__" or f"{c.qualname}.{m}" in inlined:
                        got |= ensure_scanned(c).self_refs.get(m, set()) - {m}
            self._reach_cache[key] = got
        return got

    def _sibling_assigning(self, owner: ClassInfo, mname: str, ci: ClassInfo, attr: str) -> Optional[str]:
        """Another subclass of ``owner`` (not in ``ci``'s MRO) that assigns ``attr`` itself and
        calls ``self.<mname>()``, while no class of ``ci``'s MRO refers to ``mname``: the base
        method is reached only through that sibling (a wrong-class assignment, where nothing
        calls the method through a sibling, stays an error)."""
        mine = self.facts(ci).classes
        if any(mname in refs for c in mine for m, refs in ensure_scanned(c).self_refs.items() if m != mname):
            return None
        keys = {c.key for c in mine}
        for d in self._descendants(owner):
            if d.key in keys:
                continue
            ensure_scanned(d)
            if (attr in d.assigned_in or attr in d.class_names) and any(mname in refs for refs in d.self_refs.values()):
                return d.qualname
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

    def _cls_by_name(self, ci: ClassInfo, qualname: str) -> ClassInfo:
        return next(c for c in self.facts(ci).classes if c.qualname == qualname)

    def _descendant_provides(self, ci: ClassInfo, attr: str) -> bool:
        """Some subclass of ``ci`` (anywhere in the tree) assigns ``attr`` or declares it, or
        cannot be fully known (a base outside the tree)."""
        for d in self._descendants(ci):
            df = self.facts(d)
            if df.unknown_base or attr in df.class_level or attr in df.fields or \
                    any(attr in ensure_scanned(k).assigned_in for k in df.classes):
                return True
        return False

    def _unrelated_assigner(self, ci: ClassInfo, attr: str, owner: Optional[ClassInfo] = None) -> bool:
        """A class of the read's module that is neither in ``ci``'s MRO nor below it assigns ``attr``."""
        related = {c.key for c in self.facts(ci).classes} | {d.key for d in self._descendants(ci)}
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


def _calls_super(fn: ast.FunctionDef, name: str, base: str) -> bool:
    """``fn`` calls ``super().<name>(...)`` or ``<Base>.<name>(self, ...)``."""
    for node in fast_walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name:
            v = node.func.value
            if isinstance(v, ast.Call) and dotted(v.func) == "super":
                return True
            if (dotted(v) or "").split(".")[-1] == base.split(".")[-1]:
                return True
    return False


def _unimplemented_abstract(classes: list[ClassInfo]) -> set[str]:
    """Abstract methods of the MRO that no class before their declarer implements."""
    out: set[str] = set()
    for i, c in enumerate(classes):
        for name in c.abstract_methods:
            if not any(name in d.methods and name not in d.abstract_methods for d in classes[:i]):
                out.add(name)
    return out


def _new_assigns(fn: ast.FunctionDef) -> set:
    """Attributes ``__new__`` sets on the instance it creates: they exist before ``__init__`` runs."""
    return set().union(*(attrs for _line, attrs, _init in new_instances(fn)))


#: assigning method -> the methods guaranteed to run after it (None: every other method)
_RUN_BEFORE = {"__enter__": ("__exit__",), "__aenter__": ("__aexit__",),
               "setUp": None, "asyncSetUp": None, "setup_method": None}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _has_explicit_init(ci: ClassInfo) -> bool:
    return "__init__" in ci.methods


@functools.lru_cache(maxsize=65536)
def _fuzzy(key: str) -> str:
    return _FUZZY.sub(r"\1", key)


def _excluded(s: State, read_conds) -> bool:
    """The read's own conditions contradict the construction path ``s``."""
    for (key, pol) in read_conds:
        fk = _fuzzy(key)
        for c in s.conds:
            if c[0].startswith("<"):
                continue
            if (c[0] == key or _fuzzy(c[0]) == fk) and c[1] != pol:
                return True
            if _numeric_conflict(c[0], c[1], key, pol):
                return True
    return False


_NUM_FACT = re.compile(r"^(.+?) (==|<|>) (-?\d+)$")


@functools.lru_cache(maxsize=65536)
def _numeric_conflict(k1: str, p1: bool, k2: str, p2: bool) -> bool:
    """``n == 1`` and ``n > 1`` (each true or false) cannot hold together for an integer n."""
    m1, m2 = _NUM_FACT.match(k1), _NUM_FACT.match(k2)
    if not m1 or not m2 or m1.group(1) != m2.group(1) or k1 == k2:
        return False
    ops = {"==": lambda v, c: v == c, "<": lambda v, c: v < c, ">": lambda v, c: v > c}
    c1, c2 = int(m1.group(3)), int(m2.group(3))
    f1, f2 = ops[m1.group(2)], ops[m2.group(2)]
    # two half-lines or points over the integers: a witness exists next to a constant if any does
    for v in {c1 - 1, c1, c1 + 1, c2 - 1, c2, c2 + 1}:
        if f1(v, c1) == p1 and f2(v, c2) == p2:
            return False
    return True


def _mode_split(missing: list[State], terminal: list[State], attr: str) -> bool:
    """The paths that miss ``attr`` assign other attributes that the paths with it lack: the
    constructor sets the object up in one of several modes, and the read is mode-specific code."""
    having = [s for s in terminal if attr in s.assigned]
    if not having:
        return False
    with_attr = frozenset.union(*(s.assigned for s in having))
    if all(s.assigned - with_attr for s in missing):
        return True
    # a branch that sets up a whole subsystem (3+ attributes) is a mode, not a forgotten line
    common = frozenset.intersection(*(s.assigned for s in having))
    return all(len(common - s.assigned) >= 3 for s in missing)


def _branch_only(missing: list[State], terminal: list[State], attr: str) -> bool:
    """Every path that misses ``attr`` is told apart from those that have it only by a branch test
    (a configuration/mode choice), not by an exception, a loop that may not run, an unmatched
    ``match`` or a deletion. Such reads are mode-dependent: a warning, unless strict."""
    having = [s for s in terminal if attr in s.assigned]
    if not having:
        return False
    common = set.intersection(*(set((c[0], c[1]) for c in s.conds) for s in having))
    for s in missing:
        distinct = [c for c in s.conds if (c[0], c[1]) not in common]
        if any(c[2] < 0 and (c[0], not c[1]) in common for c in distinct):
            continue  # the path records itself in a flag (`self.enabled = False; return`): a mode
        if any(c[0] in ("<except>", "<with>", "<match>") for c in distinct):
            return False  # an exception swallowed or no case matched: not a mode, a hole
    return True


def _why(missing: State, terminal: list[State], attr: str) -> str:
    having = [s for s in terminal if attr in s.assigned]
    common = set.intersection(*(set((c[0], c[1]) for c in s.conds) for s in having)) if having else set()
    conds = sorted(missing.conds, key=lambda c: (c[2], c[0], c[1]))  # deterministic across runs
    distinct = [c for c in conds if (c[0], c[1]) not in common] or conds
    if not distinct:
        return "not assigned on every construction path"
    branches = [c for c in distinct if c[2] >= 0] or distinct
    opposite = [c for c in branches if (c[0], not c[1]) in common]
    c = (opposite or branches)[0]
    if c[0].startswith("<"):
        return f"not assigned when {c[3]}"
    state = "true" if c[1] else "false"
    return f"not assigned on the construction path where `{c[3]}` is {state} (line {abs(c[2])})"


def _suppressed(f: Finding, lines: dict[str, list[str]]) -> bool:
    """``# patchkit: ignore[CODE]`` on the finding's line (in whichever module of the tree it is)."""
    ls = lines.get(f.path)
    if ls and 0 < f.line <= len(ls):
        mt = _SUPPRESS.search(ls[f.line - 1])
        if mt:
            codes = mt.group(1)
            return not codes or f.code in [x.strip() for x in codes.split(",")]
    return False


def _c3(seqs: list[list]) -> list:
    out: list = []
    seqs = [list(s) for s in seqs if s]
    keyf = lambda c: c.key  # noqa: E731
    while seqs:
        for s in seqs:
            head = s[0]
            if not any(keyf(head) in [keyf(x) for x in t[1:]] for t in seqs):
                break
        else:  # inconsistent: fall back to depth-first order
            head = seqs[0][0]
        out.append(head)
        seqs = [[x for x in t if keyf(x) != keyf(head)] for t in seqs]
        seqs = [t for t in seqs if t]
    return out
