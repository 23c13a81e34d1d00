"""Reads after construction: every effective method of a concrete class's MRO (inherited ones
included, overrides resolved by the MRO) is judged against the states construction can end in
(checker.py builds the trace). The reads that cannot run on this class (a test of a class constant
it binds the other way, a class-name test, a private helper only overridden code calls) are dropped
here; the rest go to judge.py."""
from __future__ import annotations

import ast
import re
from dataclasses import replace

from ..ftypes import Finding, Severity
from .abstractness import completed_by_subclasses
from .astutil import fast_walk, first_param, memo_on
from .classbody import NOT_CHECKED_METHODS, exported_methods
from .coassign import absent_by_guard, dead_subclass_test
from .conditions import class_name_dead, fact_contradicts_constants
from .judge import judge_read
from .mixins import ClassConstants
from .model import ClassInfo
from .presence import implied_by_exclusion
from .reach import forward_bypassed
from .rules import pk001_maybe_unassigned as pk001
from .severity import _excluded, _private
from .shadowed import shadowed_methods
from .torchscript import compiled_exclusion
from .trace import ReadSite, Trace
from .superreach import super_reached
from .unreached import reached_elsewhere

_CLASS_STORE = re.compile(r"\.__class__\s*=(?!=)")


class AfterConstruction:
    """Mixed into the Analyzer: the judgement of reads outside construction."""

    def _reads_after_construction(self, t: Trace) -> list[Finding]:
        """Findings for the reads in the effective methods of ``t.ci``'s MRO (not construction
        helpers, not static/class methods) that some construction end state leaves unassigned."""
        ci, f, strict = t.ci, t.facts, t.strict
        terminal, always, known_static = t.terminal, t.always, t.known_static
        findings: list[Finding] = []
        seen_methods: set[str] = set()
        called_later = (self._referenced_outside(f.classes, t.inlined)
                        if any(not x.endswith(".__init__") for x in t.inlined) else set())
        # an instance attribute stored on every path hides them (not behind a library or unreadable base)
        hidden = shadowed_methods(f.classes, always, f.unknown_base is None and all(
            e.name.split(".")[-1] in ("object", "ABC", "Generic", "Protocol") for e in f.externals))
        effective: list = []  # (class, name, function) the MRO picks for each method name
        for c in f.classes:
            for mname, fn in c.methods.items():
                if mname not in seen_methods:
                    seen_methods.add(mname)
                    effective.append((c, mname, fn))
            # a dataclass's generated __repr__/__eq__ (unless the class writes its own) hide a base's
            seen_methods |= c.generated
            # so does a class attribute of the same name: falcon's ``MultipartParseError.description
            # = None`` replaces the ``description`` property its base reads ``_media_type`` in
            seen_methods |= {n for n in c.class_names if n not in c.methods and not n.startswith("__")}
        # and the overridden definitions those reach through super() or Base.m(self): they run too
        for c, mname, fn in effective + super_reached(f, effective, frozenset(t.inlined)):
            if mname in NOT_CHECKED_METHODS or c.method_kind.get(mname) in ("static", "class") or mname in hidden:
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
                        entries = self._only_overridden_callers(f, c, mname)
                        overridden_only.append(None if entries and reached_elsewhere(self, ci, f, c, mname)
                                               else entries)
                    if overridden_only[0]:
                        fnd = replace(fnd, severity=Severity.WARNING,
                                      why=f"{fnd.why}; {c.qualname}.{mname} is reached only through "
                                          f"{overridden_only[0]}, which {ci.qualname} overrides")
                if fnd is not None:
                    findings.append(fnd)
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
