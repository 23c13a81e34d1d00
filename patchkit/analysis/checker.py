"""The attribute-initialization check: every ``self.x`` read has an assignment on all
construction paths. Builds each concrete class's MRO, walks construction (flow.py), then
judges every read in every method against the states construction can end in."""
from __future__ import annotations

import ast
import re
from dataclasses import replace

from ..ftypes import Finding, Severity
from .astutil import dotted, fast_walk, first_param, memo_on
from .abstractness import completed_by_subclasses, uninstantiable
from .classbody import NOT_CHECKED_METHODS, construction_hooks, exported_methods
from .decorated import entry_calls, entry_stores
from .injectors import mark_handoffs
from .classmodel import ClassModel, _has_explicit_init, _unimplemented_abstract, generated_fields
from .coassign import absent_by_guard, dead_subclass_test
from .partlyopen import narrow
from .dynamic import dynamic_methods, dynamic_only_in_skipped_init
from .conditions import ALT_CTOR, EVENT, Cond, class_name_dead, fact_contradicts_constants
from .flow import Budget, BudgetExceeded, Constructor, State
from .injected import demote_injected
from .judge import ReadJudge, judge_read
from .mangle import as_written
from .presence import implied_by_exclusion, presence_oracle
from .mixins import ClassConstants, ClassDefaults, awaits_host, implicit_mixin
from .model import ClassInfo, ModuleInfo
from .project import Project
from .reach import forward_bypassed
from .rules import pk001_maybe_unassigned as pk001, pk002_read_before_assignment as pk002, pk005_del_reads_partial_object as pk005, \
    pk006_base_init_skipped as pk006, pk007_unpickled_missing as pk007, pk901_analysis_budget as pk901
from .scan import ensure_scanned
from .settings import Settings
from .severity import _excluded, _private, _suppressed, in_test_code, is_test_path, stand_in
from .templates import template_of, type_checking_only
from .torchscript import compiled_exclusion
from .trace import ReadSite, Trace
from .unnamed import unnamed_reads



_CLASS_STORE = re.compile(r"\.__class__\s*=(?!=)")


class Analyzer(ClassModel, ReadJudge):
    """Analyse one or more modules of a Project; ``report`` limits findings to those files."""

    def __init__(self, project: Project, settings: Settings = Settings()):
        self.project = project
        self.settings = settings
        # a class's facts (MRO, class-level names, fields) do not depend on which files are being
        # reported, so analyzers over one project share them
        self._facts: dict = project.__dict__.setdefault("_facts_cache", {}).setdefault(settings, {})
        self._sites_cache: dict = {}
        self._reach_cache: dict = {}
        self._reads_cache: dict = project.__dict__.setdefault("_reads_cache", {})  # by method node
        self._subclasses: dict[tuple, list[ClassInfo]] = {}


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
                got = [pk901.budget(c.module.rel, c.node, c.qualname, str(exc))]
            for fnd in got:
                # one finding per (file, line, attribute): the most severe, then the first column
                k = (fnd.path, fnd.line, fnd.attr)
                if k not in out or (rank[fnd.severity], fnd.col) < (rank[out[k].severity], out[k].col):
                    out[k] = fnd
        lines = {p: self.project.lines_of(p) for p in {f.path for f in out.values()}}
        result = [f for f in out.values() if not _suppressed(f, lines)]
        if self.settings.unknown_bases != "strict":
            in_tests = {c.qualname for c in classes if is_test_path(c.module.rel)}
            result = [stand_in(in_test_code(f, f.cls in in_tests)) for f in result]
        if not self.settings.show_info:
            result = [f for f in result if f.severity != Severity.INFO]
        # the first module's own classes first (the file being checked), then the classes of the
        # other modules that inherit from it
        own = {c.qualname for c in modules[0].classes.values()} if modules else set()
        return sorted((as_written(f) for f in result), key=lambda f: (f.cls not in own, f))

    def definitely_assigned(self, ci: ClassInfo) -> frozenset:
        """Attributes assigned on every path through construction of ``ci`` (the oracle tests use it)."""
        f = self.facts(ci)
        mro = f.linear
        ctor = Constructor(ci, mro, lambda name, after, inclusive=False, own=None: self.resolve_method(
            self.facts(own).linear if own is not None else mro, name, after, inclusive),
                           lambda *a: None, lambda *a: None, lambda cls, name: self.project.resolve_class(cls.module, name),
                           lambda call, frame: (dotted(call.func) or "") in frame.cls.module.noreturn)
        init = self.resolve_method(mro, "__init__")
        fields = generated_fields(f.classes, frozenset(f.fields), init) if f.field_class else frozenset()
        terminal = ctor.run(State(fields), (init[0], init[1]) if init else None)
        return frozenset.intersection(*(s.assigned for s in terminal)) if terminal else frozenset()


    def _imported_noreturn(self, mod: ModuleInfo, fname: str) -> bool:
        """``fname`` is imported from a module of the tree where it never returns."""
        target = mod.imports.get(fname) if "." not in fname else None
        if not target or "." not in target:
            return False
        m = self.project.module(target.rsplit(".", 1)[0], external=False)
        return m is not None and target.rsplit(".", 1)[1] in m.noreturn

    def declared_for_subclasses(self, ci: ClassInfo, f, attr: str) -> bool:
        """``attr: T`` (no value) in the body of a class of the MRO, and a subclass of ``ci`` gives
        it a value (in its class body, or on its instances: jedi's ``_BaseTreeInstance._arguments``):
        the class is a template its subclasses complete, and they are judged on their own."""
        if not any(attr in c.annotated_only for c in f.classes):
            return False
        return any(attr in d.class_names or attr in ensure_scanned(d).assigned_in for d in self._descendants(ci))

    def check_class(self, ci: ClassInfo, report: set[str]) -> list[Finding]:
        f = self.facts(ci)
        if f.skip:
            return []
        # computed stores outside construction: only the reads construction itself makes are judged
        construction_only = bool(f.dynamic) and not dynamic_only_in_skipped_init(self, f)
        if construction_only and not dynamic_methods(f):
            return []
        tmpl = template_of(self.project.root, ci.module.rel, self.project.__dict__.setdefault("_templates", {}))
        if tmpl is None and type_checking_only(ci.module, ci.node):
            tmpl = "declared under `if TYPE_CHECKING:` (a stub for the type checker, never executed)"
        if tmpl is None and self.settings.unknown_bases != "strict":
            tmpl = uninstantiable(f.linear, f.classes)
        if tmpl and not self.settings.show_info:
            return []  # only info findings would come out
        if ci.qualname.split(".")[-1].endswith("Mixin") and self.settings.unknown_bases != "strict":
            return []  # a mixin is judged through the classes that mix it in (its reads are theirs)
        hosts = implicit_mixin(self, ci) if self.settings.unknown_bases != "strict" else None
        findings: list[Finding] = []
        escapes: list[int] = []
        mro = f.linear
        strict = self.settings.unknown_bases == "strict"

        # an abstract class's annotation-only attribute is a contract its subclasses fulfil
        contracts = f.contracts if (ci.abstract or _unimplemented_abstract(f.classes) or any(
            b.split(".")[-1] in ("ABC", "Protocol") for b in ci.bases)) else frozenset()

        construction_reads: list[tuple] = []
        dyn_set = dynamic_methods(f) if construction_only else frozenset()
        before_dyn: set[int] = set()  # reads made before construction ran any computed store

        def on_read(attr, node, frame, states):
            if attr in f.class_level or attr in f.provided or attr in contracts or \
                    any(p.match(attr) for p in f.dyn_patterns):
                return
            missing = [s for s in states if attr not in s.assigned]
            if missing:
                if dyn_set and not dyn_set & ctor.inlined:
                    before_dyn.add(len(construction_reads))
                construction_reads.append((attr, node, frame, missing, states, ctor.external_init_ran))

        def on_escape(call, frame):
            if not self._escape_is_harmless(call, frame):
                escapes.append(call.lineno)

        def resolve_init_class(cls, name):
            return self.project.resolve_class(cls.module, name)

        def is_noreturn(call, frame):
            fname = dotted(call.func) or ""
            return fname in frame.cls.module.noreturn or self._imported_noreturn(frame.cls.module, fname)

        ctor = Constructor(ci, mro, lambda name, after, inclusive=False, own=None: self.resolve_method(
            self.facts(own).linear if own is not None else mro, name, after, inclusive),
                           on_read, on_escape, resolve_init_class, is_noreturn)
        ctor.budget = getattr(self, "_budget", None)
        ctor.mro_of = lambda cls: self.facts(cls).linear
        ctor.entry_stores = lambda cls, fn: frozenset() if cls.module.external or not fn.decorator_list else \
            entry_stores(self.project, cls.module, fn)
        ctor.entry_calls = lambda cls, fn: () if cls.module.external or not fn.decorator_list else \
            entry_calls(self.project, cls.module, fn)
        if not strict and not f.open and not f.dyn_patterns:
            ctor.class_consts = ClassConstants(self.project, [c for c in f.classes if not c.module.external], f.linear)
            if not f.unknown_base and not f.dynamic:
                ctor.never_present = presence_oracle(self.project, ci, f)
                ctor.instance_only = lambda name: not (name in f.class_level or name in f.provided or
                                                       name in f.fields)
        if not f.unknown_base and not f.dynamic and not f.dyn_patterns and \
                not any(c.module.external for c in f.classes):
            # sound whatever the settings: a path that has not stored it reads the class's value
            ctor.class_defaults = ClassDefaults(self.project, f.classes)
        init = self.resolve_method(mro, "__init__")
        if init is not None and init[2] != "method":
            init = None
        gen = next((c for c in f.classes if "__init__" in c.methods or (c.field_kind and c.field_init)), None)
        start = State(generated_fields(f.classes, frozenset(f.fields), init) if f.field_class else frozenset())
        if init is not None and gen is not None and gen is not init[0] and "__init__" not in gen.methods:
            # a dataclass-like class before the resolved __init__ in the MRO generates its own, which
            # never calls the base's (``@dataclass class D(Base)``: Base.__init__ does not run) and
            # sets every field of every dataclass of the MRO (``init=False`` ones included)
            init = None
            start = State(frozenset().union(*(c.fields for c in f.classes if c.field_kind)))
        if f.field_class and init is not None and init[0].field_kind and not _has_explicit_init(init[0]):
            init = None
        terminal = ctor.run(start, (init[0], init[1]) if init else None)
        for hook in ("__post_init__", "__attrs_post_init__"):
            post = self.resolve_method(mro, hook)
            if post is not None and (f.field_class or any(c.field_kind for c in f.classes)):
                terminal = ctor.call_function(post[0], post[1], terminal, 0)
        for name in construction_hooks(f.classes) + tuple(self.settings.initializers):
            m = self.resolve_method(mro, name)
            if m is not None:
                terminal = ctor.call_function(m[0], m[1], terminal, 0)
        for c in f.classes:
            for (mname, line, attrs, calls_init, handed) in c.alt_ctors:
                if not calls_init:
                    alt = [State(frozenset(attrs), frozenset({Cond(
                        ALT_CTOR, True, line, f"{c.qualname}.{mname} builds with __new__ at line {line} and skips __init__",
                        EVENT)}))]
                    for (m, p) in handed:  # cls._initialize_instance(obj, ...): runs on the new instance
                        target = self.resolve_method(mro, m)
                        if target is not None:
                            alt = ctor.call_function(target[0], target[1], alt, 0, selfname=p)
                    terminal = terminal + alt
        if not terminal:
            return []  # construction always raises: nothing to judge
        assigned_anywhere: dict[str, list[tuple[str, str, int]]] = {}
        for c in f.classes:
            for a, locs in c.assigned_in.items():
                for (m, line) in locs:
                    assigned_anywhere.setdefault(a, []).append((c.qualname, m, line))
        t = Trace(ci, f, tuple(terminal), assigned_anywhere, frozenset(ctor.inlined), frozenset(ctor.seen),
                  frozenset(ctor.deleted), tuple(escapes), ctor.external_init_ran, ctor.indirect_init,
                  ctor.dynamic_dispatch, f.unknown_base is not None, strict, contracts, init,
                  frozenset(ctor.external_init_kw))
        if construction_only:
            if t.dynamic_dispatch or (ctor.external_init_ran and f.unknown_base is not None):
                return []  # a method picked at run time, or an unreadable library __init__, ran first
            # a read before any computed store ran, of a name no code of the tree stores from
            # outside the instance (torchmetrics' MeanAveragePrecision.__init__ reads
            # self._iou_type before its first add_state): nothing can have given it yet. Only
            # where the walk ran every method that assigns it (or none does): a helper it could
            # not follow may have run first (nemo's ASR models and their tokenizer mixins)
            from .injection import _index_for
            outside = _index_for(self.project, ci).files_storing

            def followed(attr):
                return all(f"{c}.{m}" in t.inlined for c, m, _ln in assigned_anywhere.get(attr, ()))
            early = [r for i, r in enumerate(construction_reads)
                     if i in before_dyn and not outside(r[0]) and followed(r[0])]
            findings += pk002.judge(self, t, early)
            if not dyn_set & t.inlined and not ctor.external_init_ran:  # else a computed store may have run first
                # and only where the tree shows the store construction skipped: an ``__init__`` of
                # the MRO that assigns it and never runs (a missing super call); other attributes
                # may be injected by the code that builds the object (angr's analysis factory)
                skipped = {a for a, locs in assigned_anywhere.items()
                           if any(m == "__init__" and f"{cq}.__init__" not in t.inlined for cq, m, _ln in locs)}
                seen_keys = {(x.line, x.col, x.attr, x.code) for x in findings}
                findings += [x for x in pk002.judge(self, t, construction_reads)
                             if x.attr in skipped and (x.line, x.col, x.attr, x.code) not in seen_keys]
                if not strict:  # a later read of a name no code can give
                    findings += unnamed_reads(self, t, assigned_anywhere)
        else:
            findings += pk006.check(t)
            findings += pk002.judge(self, t, construction_reads)
            findings += pk005.check(self, t)  # __del__ runs even when __init__ raised part-way
            findings += pk007.check(self, t)  # unpickling fills the instance without __init__
            findings += self._reads_after_construction(t)
        findings = narrow(f.classes, findings, assigned_anywhere)  # open for some names only (partlyopen.py)
        if t.dynamic_dispatch and not strict:  # a method picked by name at run time may run inside construction
            why = f"construction calls a method chosen by name at run time (getattr(self, ...), line {t.dynamic_dispatch})"
            findings = [replace(x, severity=Severity.WARNING, why=f"{x.why}; {why}")
                        if x.code == "PK001" and x.severity == Severity.ERROR else x for x in findings]
        if hosts:  # a mixin by use: a read every host provides is the hosts' business
            findings = [x for x in findings if not all(self._provides(h, x.attr) for h in hosts)]
        if findings and not strict and any(x.attr not in assigned_anywhere for x in findings):
            contract = awaits_host(self, ci, f, assigned_anywhere)
            if contract:  # never assigned in the MRO: the host it is mixed into supplies it
                findings = [replace(x, severity=Severity.INFO, why=f"{x.why} [{contract}]")
                            if x.attr not in assigned_anywhere else x for x in findings]
        if f.open and not strict:  # unknown is not wrong: say "could not prove", at info level
            findings = [replace(x, severity=Severity.INFO, why=f"{x.why} [open class: {f.open}]") for x in findings]
        if not strict and not tmpl:  # an owner, a decorator or a helper sets it on the instance from outside
            findings = demote_injected(self.project, f, findings)
        if tmpl:  # a converter template, a TYPE_CHECKING stub or an abstract class: never an instance itself
            findings = [replace(x, severity=Severity.INFO, why=f"{x.why} [{tmpl}]") for x in findings]
        if findings and not f.dynamic and not self.__dict__.get("_handoff_pass") and mark_handoffs(self.project, f):
            # a method of the MRO hands self to a helper that stores computed names on it: judged
            # again as a dynamic class (looked for only here: it reads the modules a class imports from)
            self._handoff_pass = True
            try:
                return self.check_class(ci, report)
            finally:
                self._handoff_pass = False
        return findings

    def _dead_for_class(self, ci: ClassInfo, f, fn, conds) -> bool:
        """A fact the read needs contradicts a class constant of ``ci`` (conditions.fact_contradicts_constants)."""
        if f.open or f.dyn_patterns:
            return False
        consts = self.__dict__.setdefault("_consts_cache", {}).get(ci.key)
        if consts is None:
            consts = self._consts_cache[ci.key] = ClassConstants(
                self.project, [c for c in f.classes if not c.module.external], f.linear)
        if not dict.__len__(consts):
            return False
        def names_of_fn() -> frozenset:
            # a fact spells `self.m()` as `m()`: a module-level `m` called bare is another thing
            owner = next((c.module for c in f.classes if any(m is fn for m in c.methods.values())), ci.module)
            return frozenset(
                [a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)] +
                [n.id for n in fast_walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)]) | \
                set(owner.functions) | set(owner.imports) | set(owner.classes) | set(owner.aliases)
        local_names = memo_on(fn, "_pk_local_names", names_of_fn)  # once per function, not per read
        return any(fact_contradicts_constants(c.key, c.holds, consts, local_names) for c in conds)

    def _class_name_fixed(self, f, fn) -> bool:
        """The instance's class is the one it was built as while ``fn`` runs: no class of the MRO and
        no code of the tree stores ``__class__``, and ``fn`` names no bare ``__class__`` (the cell
        of the defining class, which a read-site fact would spell as the instance's)."""
        if any("__class__" in k.assigned_in for k in f.classes):
            return False
        if any(isinstance(n, ast.Name) and n.id == "__class__" for n in fast_walk(fn)):
            return False
        if any(_CLASS_STORE.search(k.module.source) for k in f.classes if not k.module.external):
            return False  # `obj.__class__ = Other` in a module of the MRO
        from .injection import _index_for
        return not _index_for(self.project, f.classes[0]).files_storing("__class__")

    def _provides(self, host: ClassInfo, attr: str) -> bool:
        """``host``'s MRO may give its instances ``attr``: a class-level name, a field, an assignment
        in one of its methods, computed stores (numpy's ``CCompilerOpt``, whose ``_CCompiler`` mixin
        sets every ``cc_on_*`` flag with ``setattr(self, attr, False)``), or a base the analyzer
        cannot read."""
        hf = self.facts(host)
        return attr in hf.class_level or attr in hf.provided or attr in hf.fields or hf.unknown_base is not None \
            or bool(hf.open) or bool(hf.dynamic) or any(attr in ensure_scanned(c).assigned_in for c in hf.classes)

    def _reads_after_construction(self, t: Trace) -> list[Finding]:
        """Findings for the reads in the effective methods of ``t.ci``'s MRO (not construction
        helpers, not static/class methods) that some construction end state leaves unassigned."""
        ci, f, strict = t.ci, t.facts, t.strict
        terminal, always, known_static = t.terminal, t.always, t.known_static
        findings: list[Finding] = []
        seen_methods: set[str] = set()
        called_later = (self._referenced_outside(f.classes, t.inlined)
                        if any(not x.endswith(".__init__") for x in t.inlined) else set())
        for c in f.classes:
            for mname, fn in c.methods.items():
                if mname in seen_methods:
                    continue
                seen_methods.add(mname)
                if mname in NOT_CHECKED_METHODS or c.method_kind.get(mname) in ("static", "class"):
                    continue
                if mname in exported_methods(c):
                    continue  # handed to other code in the class body: bound to other objects
                if f"{c.qualname}.{mname}" in t.inlined and mname not in called_later and mname.startswith("_"):
                    # a private construction helper: its reads were judged on the construction paths
                    # (a public method or property construction happens to call is API: anyone may
                    # call it later, on any path construction took)
                    continue
                if c.module.external or mname in self.settings.initializers:
                    continue
                if c.key != ci.key and _private(mname) and mname not in self._reachable(f, t.inlined):
                    continue  # an inherited private helper only code this class never runs calls
                if mname == "forward" and c.key != ci.key and forward_bypassed(self, f):
                    continue  # an inherited forward its own __call__ never dispatches to
                selfname = first_param(fn)
                if not selfname:
                    continue
                # a base's helper that only the base's own methods call, all overridden here: dead
                # for this class unless called from outside (gluonts' ISQF.quantile_internal under
                # TransformedISQF, whose quantile/cdf/crps come from TransformedDistribution)
                overridden_only: list = []  # worked out once, for the first error this method yields
                refs = c.self_refs.get(mname, ())
                if all(a in always or known_static(a) for a in refs):
                    continue  # every attribute the method touches is always assigned: nothing to judge
                for r in self._reads_of(fn, selfname, c):
                    attr = r.attr
                    if known_static(attr) or r.guarded or attr in r.known or attr in r.local:
                        continue
                    if r.conds and attr in implied_by_exclusion(r.conds, selfname, fn):
                        continue  # `if partial and not hasattr(self, "m"): raise`, then under `partial`
                    if not strict and self.declared_for_subclasses(ci, f, attr):
                        continue  # `x: T` in a base whose subclasses set it: a contract they fill
                    if not strict and completed_by_subclasses(ci, attr, self._direct_subclasses):
                        continue  # a template base every subclass completes
                    if self._narrowed_to_owner(c, selfname, attr, r.conds, ci):
                        continue
                    if any(a in always or known_static(a) for a in absent_by_guard(r.conds)):
                        continue  # under `not hasattr(self, "a")` with a always set: dead (panel's py2 fallback)
                    if r.conds and dead_subclass_test(r.conds, f):
                        continue
                    if r.conds and class_name_dead(r.conds, selfname, ci.qualname.split(".")[-1]) and \
                            self._class_name_fixed(f, fn):
                        continue  # under `self.__class__.__name__ == "AdamW"` in a class of another name  # under `issubclass(ThisClass, dict)`, and the MRO has no dict: dead
                    missing = [s for s in terminal if attr not in s.assigned]
                    if not missing:
                        continue
                    if not strict and r.conds and self._dead_for_class(ci, f, fn, r.conds):
                        continue  # under a test of a class constant this class binds the other way
                    live = [s for s in missing if not _excluded(s, r.conds)]
                    if live and _private(mname):
                        sites = self._call_sites(f.classes, mname, t.inlined)
                        live = [s for s in live if not sites or not all(_excluded(s, conds) for conds in sites)]
                    if not live:
                        scripted = attr in t.assigned_anywhere and \
                            compiled_exclusion(self, f, fn, selfname, r.conds, missing)
                        if scripted:  # safe in Python, compiled anyway by torch.jit.script
                            findings.append(pk001.scripted(ReadSite(t, c, mname, r, tuple(missing)), *scripted, strict))
                        continue
                    fnd = judge_read(self, ReadSite(t, c, mname, r, tuple(live)))
                    if fnd is not None and fnd.severity == Severity.ERROR and c.key != ci.key and not strict:
                        if not overridden_only:
                            overridden_only.append(self._only_overridden_callers(f, c, mname))
                        if overridden_only[0]:
                            fnd = replace(fnd, severity=Severity.WARNING,
                                          why=f"{fnd.why}; {c.qualname}.{mname} is reached only through "
                                              f"{overridden_only[0]}, which {ci.qualname} overrides")
                    if fnd is not None:
                        findings.append(fnd)
            # a dataclass's generated __repr__/__eq__ (unless the class writes its own) hide a base's
            seen_methods |= c.generated
            # so does a class attribute of the same name: falcon's ``MultipartParseError.description
            # = None`` replaces the ``description`` property its base reads ``_media_type`` in
            seen_methods |= {n for n in c.class_names if n not in c.methods and not n.startswith("__")}
        return findings
