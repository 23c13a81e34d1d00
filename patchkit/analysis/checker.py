"""The attribute-initialization check: every ``self.x`` read has an assignment on all
construction paths. Builds each concrete class's MRO, walks construction (flow.py), then
judges every read in every method against the states construction can end in."""
from __future__ import annotations

from dataclasses import replace

from ..ftypes import Finding, Severity
from .astutil import dotted
from .calltables import LIBRARY_NORETURN
from .abstractness import uninstantiable
from .classbody import construction_hooks
from .decorated import entry_calls, entry_stores
from .injectors import mark_handoffs
from .classmodel import ClassModel, _has_explicit_init, _unimplemented_abstract, generated_fields
from .partlyopen import narrow
from .dynamic import dynamic_methods, dynamic_only_in_skipped_init
from .conditions import ALT_CTOR, EVENT, Cond
from .flow import Budget, BudgetExceeded, Constructor, State
from .injected import demote_injected
from .templatebase import demote_template_base
from .madeelsewhere import demote_made_elsewhere
from .exccontext import demote_exception_context
from .newclass import demote_class_returning
from .skippedinit import demote_skipped_on_purpose
from .installers import demote_installed
from .unreached import demote_unreached
from .judge import ReadJudge
from .afterconstruction import AfterConstruction
from .mangle import as_written
from .presence import fresh_presence_oracle, presence_oracle
from .mixins import ClassConstants, ClassDefaults, awaits_host, implicit_mixin
from .model import ClassInfo, ModuleInfo
from .project import Project
from .rules import pk002_read_before_assignment as pk002, pk005_del_reads_partial_object as pk005, \
    pk006_base_init_skipped as pk006, pk007_unpickled_missing as pk007, pk901_analysis_budget as pk901
from .scan import ensure_scanned
from .settings import Settings
from .severity import _suppressed, in_test_code, is_test_path, stand_in
from .templates import template_of, type_checking_only
from .trace import Trace
from .unnamed import unnamed_reads



class Analyzer(ClassModel, ReadJudge, AfterConstruction):
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
        if target in LIBRARY_NORETURN:  # from six import raise_from
            return True
        modname, name = target.rsplit(".", 1)
        text = self.project.module_text(modname)
        if text is None or name not in text:
            return False  # ``noreturn`` holds names of the module's own ``def`` statements
        m = self.project.module(modname, external=False)
        return m is not None and name in m.noreturn

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
        computed = dynamic_methods(f) if f.dynamic else frozenset()  # methods making computed stores
        if construction_only and not computed:
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
        mro_keys = {c.key for c in f.classes}
        dyn_set = computed if construction_only else frozenset()
        before_dyn: set[int] = set()  # reads made before construction ran any computed store

        def on_read(attr, node, frame, states):
            if attr in f.class_level or attr in f.provided or attr in contracts or \
                    any(p.match(attr) for p in f.dyn_patterns):
                return
            if f.unknown_base is not None and frame.cls.key not in mro_keys and \
                    frame.cls.qualname.split(".")[-1] == str(f.unknown_base).split(".")[-1] and \
                    attr in self.facts(frame.cls).class_level:
                return  # `Module.__init__(self)` of the class the unreadable base names: its class names are ours
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
            elif not f.unknown_base and computed:  # fresh until a computed store runs
                ctor.never_present = fresh_presence_oracle(presence_oracle(self.project, ci, f),
                                                           lambda: bool(computed & ctor.inlined))
        early_stores: list = []
        if any(e.kind == "module" for e in f.externals):
            def before_base_init(attr, node, value, frame):
                kind = "" if early_stores else pk006.module_valued(self.project, frame.cls, value, self.facts)
                if kind:
                    early_stores.append((attr, node, frame.cls, kind))
            ctor.before_base_init = before_base_init
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
        # a dataclass's generated __init__ calls __post_init__: not when a plain subclass's own
        # __init__ runs instead and never reaches it (the red team's case136)
        first = next((i for i, c in enumerate(f.classes) if c.field_kind), len(f.classes))
        generated_ran = init is None or init[0].field_kind or ctor.external_init_ran or \
            any(f"{c.qualname}.__init__" in ctor.inlined for c in f.classes[first:])
        for hook in ("__post_init__", "__attrs_post_init__"):
            post = self.resolve_method(mro, hook)
            if post is not None and generated_ran and (f.field_class or any(c.field_kind for c in f.classes)):
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
                  frozenset(ctor.external_init_kw),
                  post_init_skipped=not generated_ran and any(c.field_kind for c in f.classes))
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
            findings += pk006.check(t) or pk006.library_init_skipped(t)
            findings += pk006.assigned_early(t, early_stores)
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
            findings = demote_injected(self, f, findings)
            findings = demote_template_base(self, ci, findings)  # a base nobody builds: its subclasses give it
            findings = demote_made_elsewhere(self, ci, findings)  # re-classed or mixed in at run time
            findings = demote_exception_context(self, ci, findings)  # a with-block's __exit__ decorates it
            findings = demote_class_returning(self, ci, findings)  # its __new__ hands back a new class
            findings = demote_skipped_on_purpose(self, t, findings)  # a base initialiser left out by design
            findings = demote_installed(self, ci, findings)  # a decorator installs it on the class
            findings = demote_unreached(self, ci, f, findings, t.inlined)  # only methods it replaced call the read's
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

    def _provides(self, host: ClassInfo, attr: str) -> bool:
        """``host``'s MRO may give its instances ``attr``: a class-level name, a field, an assignment
        in one of its methods, computed stores (numpy's ``CCompilerOpt``, whose ``_CCompiler`` mixin
        sets every ``cc_on_*`` flag with ``setattr(self, attr, False)``), or a base the analyzer
        cannot read."""
        hf = self.facts(host)
        return attr in hf.class_level or attr in hf.provided or attr in hf.fields or hf.unknown_base is not None \
            or bool(hf.open) or bool(hf.dynamic) or any(attr in ensure_scanned(c).assigned_in for c in hf.classes)
