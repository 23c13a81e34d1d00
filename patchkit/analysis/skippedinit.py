"""A base initialiser the class skips because it builds that base itself (set BP, session 48).

hanlp's ``ScalarMixWithDropoutBuilder(ConfigTracker, ScalarMixWithDropout)`` stores its arguments
and its ``build()`` returns ``ScalarMixWithDropout(**self.config)``; its ``SortingSamplerBuilder``
does the same for ``SortingSampler``. Such a class is typed as the base it makes, and the base's
methods are not meant to run on it. When the class's own ``build`` / ``create`` / ``make`` /
``instantiate`` / ``construct`` / ``__call__`` returns, in its own code, a call that resolves to a
base whose ``__init__`` construction skips, an error (PK001, PK003) on a read in a method of that
base (or of its own bases) of what only their skipped initialisers store becomes a warning that
says so, and so does the PK006 of a library base among them. Reads during construction (PK002)
fail on every instance and stay errors; so do reads in the class's own methods and in other bases.

Not taken as evidence: a ``# pylint: disable=super-init-not-called`` or ``# noinspection
PyMissingConstructor`` comment. On the labelled corpus it marks 5 false groups (botbuilder,
exllamav2) but also a real bug (nerfstudio's ``TrivialDataset`` skips ``InputDataset.__init__`` and
its inherited methods read ``_dataparser_outputs``) and 2 latent ones."""
from __future__ import annotations

import ast

from .astutil import dotted, memo_on, own_nodes

#: a method of the class that makes objects
FACTORIES = frozenset({"build", "create", "make", "instantiate", "construct", "__call__"})
_NONE = ("",)  # memo_on keeps only what is not None


def builds_base(an, ci, skipped: list):
    """(method, base ClassInfo) where a factory method of ``ci`` itself returns, in its own code, a
    call that resolves to a class of ``skipped``; else None."""
    keys = {c.key: c for c in skipped}
    for mname, fn in ci.methods.items():
        if mname not in FACTORIES:
            continue
        for node in own_nodes(fn):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Call) and dotted(node.value.func):
                k = an.project.resolve_class(ci.module, dotted(node.value.func))
                if getattr(k, "key", None) in keys:
                    return mname, keys[k.key]
    return None


def _evidence(an, t):
    """(why, covered classes, library bases covered) for the class of trace ``t``, or _NONE."""
    skipped = [c for c in t.facts.classes[1:] if "__init__" in c.methods and f"{c.qualname}.__init__" not in t.inlined]
    if not skipped:
        return _NONE
    made = builds_base(an, t.ci, [c for c in skipped if not c.module.external])
    if made is not None:
        method, base = made
        bf = an.facts(base)  # the base and its own bases: their initialisers' state is the base's
        mine = {c.key for c in bf.classes}
        return (f"{t.ci.qualname}.{method} returns a new {base.qualname.split('.')[-1]}: a factory typed as the base "
                f"it builds, whose inherited methods are not meant to run on it",
                [c for c in skipped if c.key in mine], {e.name for e in bf.externals})
    return _NONE


def _in_methods_of(x, classes) -> bool:
    """The finding's read lies in a method of one of ``classes``."""
    for c in classes:
        if not str(x.path).endswith(c.module.rel):
            continue
        for fn in c.methods.values():
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.lineno <= x.line <= (fn.end_lineno or fn.lineno):
                return True
    return False


def demote_skipped_on_purpose(an, t, findings: list) -> list:
    """``findings`` of the class of trace ``t`` with the errors the module's doc describes turned
    into warnings that say why."""
    from dataclasses import replace

    from ..ftypes import Severity
    if not any(x.severity == Severity.ERROR and x.code in ("PK001", "PK003", "PK006") for x in findings):
        return findings
    got = memo_on(t.ci, "_pk_skipped_on_purpose", lambda: _evidence(an, t))
    if got is _NONE or not got[1]:
        return findings
    why, covered, libs = got
    names = {c.qualname for c in covered}
    out = []
    for x in findings:
        if x.severity == Severity.ERROR and (
                (x.code == "PK006" and x.attr in libs) or
                (x.code in ("PK001", "PK003") and x.attr and _only_from(t.assigned_anywhere.get(x.attr, ()), names)
                 and _in_methods_of(x, covered))):
            x = replace(x, severity=Severity.WARNING, why=f"{x.why}; {why}")
        out.append(x)
    return out


def _only_from(locs, covered: set) -> bool:
    """Every assignment ``locs`` ((class, method, line)) of an attribute is in the ``__init__`` of a
    class of ``covered`` (and there is one)."""
    return bool(locs) and all(c in covered and m == "__init__" for c, m, _ln in locs)
