"""PK002 read-before-assignment (default: error). An attribute is read during construction before it is assigned.

Logic: ``judge`` takes the reads the construction walk met on paths that had not assigned the
attribute yet (``flow.Constructor`` reports them as it goes) and keeps those no leniency explains."""
from __future__ import annotations

from ...ftypes import Severity
from ...rules import Rule
from .base import finding as _finding
from .examples import pk002 as _examples

RULE = Rule(
    'PK002', 'read-before-assignment', 'error',
    summary='An attribute is read during construction before it is assigned.',
    text=(
        '`__init__` (or a helper it calls) reads `self.x` before any statement has assigned it, so '
        'construction itself raises AttributeError.'),
    example="""
class Buffer:
    def __init__(self, size):
        self.resize(size)            # resize() reads self.data ...
        self.data = []               # ... which is assigned only here

    def resize(self, n):
        del self.data[n:]            # PK002
""",
    fix='Move the assignment before the first call or read that needs it.',
    message='self.{attr} is read during construction of {cls} before it is assigned',
    valid=_examples.VALID,
    invalid=_examples.INVALID,
)


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK002 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)


def judge(an, t, reads) -> list:
    """PK002 findings of ``t`` (a Trace) from ``reads``: (attr, node, frame, missing states, all
    states, whether a library base's __init__ had run) for each read during construction."""
    from ..coassign import excluded
    from ..nearname import misspelled
    ci, f, strict = t.ci, t.facts, t.strict
    assigned_anywhere, ever_in_ctor = t.assigned_anywhere, t.ever_in_ctor
    closed = not any(getattr(e, "kind", "") == "unknown" for e in f.externals)
    out = []
    for (attr, node, frame, missing, states, lib_init_ran) in reads:
        if not strict:  # paths whose guard cannot hold there (coassign.py)
            missing = [s for s in missing if not excluded(f.classes, s.conds, s.assigned, attr, closed)]
            if not missing:
                continue
        rel = frame.cls.module.rel
        if frame.cls.module.external:
            continue  # library code: its reads are the library's business
        typo = misspelled(t, attr) if not strict and attr not in assigned_anywhere and attr not in t.lib_init_kw \
            and (t.unknown or t.escapes or f.unknown_base is not None) else None
        if (lib_init_ran or f.field_class) and f.unknown_base is not None and not strict and not typo:
            # an unreadable library base's __init__ ran first: it may have set it (nn.Linear:
            # weight); a dataclass's generated __init__ sets the fields of an unreadable
            # dataclass base before __post_init__ reads them (transformers' TrainingArguments)
            continue
        if not strict and an.declared_for_subclasses(ci, f, attr):
            continue  # `x: T` in the class body, given a value by its subclasses: a contract
        if attr not in assigned_anywhere and attr not in ever_in_ctor:
            if (t.unknown or t.escapes) and not strict and not typo:
                continue
            if not strict and (_abstract_base(an, ci, f) or _subclasses_provide(an, ci, attr)):
                continue
        locs = assigned_anywhere.get(attr, [])
        not_run = [(c, m, ln) for (c, m, ln) in locs if f"{c}.{m}" not in t.inlined]
        later = [an._at(ci, c, rel, ln) for (c, m, ln) in locs
                 if f"{c}.{m}" in t.inlined and (ln > node.lineno or m != frame.fn.name)]
        if later:
            why = f"assigned later ({', '.join(later[:2])})"
        elif not_run:
            c, m, ln = not_run[0]
            why = (f"assigned in {c}.{m} ({an._at(ci, c, rel, ln)}), which construction of {ci.qualname} never runs"
                   + (" (missing super().__init__()?)" if m == "__init__" else ""))
        elif typo:
            why = (f"no code in view assigns it, and self.{typo}, which {ci.qualname} has, is spelt almost the "
                   f"same (a misspelling? a base the analyzer cannot read is not taken to provide it)")
        else:
            why = "no construction path assigns it first"
        where = f"in {frame.cls.qualname}.{frame.fn.name}"
        if frame.fn.name != "__init__":
            where += " (called during construction)"
        # definite when no path reaching the read has assigned it; path-dependent reads are
        # usually mutually exclusive modes: a warning unless strict
        sev = Severity.ERROR if (strict or len(missing) == len(states)) else Severity.WARNING
        if t.indirect_init and not strict:
            # an initialiser picked at run time ran on self (parlai's RagAgent: `self._generation_agent
            # .__init__(self, opt)` sets NULL_IDX): it may have stored it, as PK003 says for the base's
            from ..trace import indirect_phrase
            sev, why = Severity.WARNING, f"{why}; construction {indirect_phrase(t.indirect_init)}"
        out.append(finding(rel, node, ci.qualname, attr, f"{why}; read {where}",
                           f"did you mean self.{typo}?" if typo else "", sev))
    return out


def _abstract_base(an, ci, f) -> bool:
    """An abstract base is never built itself: its subclasses are, and they are judged on their own
    (a dataclass field or a class attribute the base only declares). The subclasses are looked up
    only when a read needs them: the class index parses files."""
    from ..classmodel import _unimplemented_abstract
    return bool(_unimplemented_abstract(f.classes)) or (
        any(e.name.split(".")[-1] in ("ABC", "Protocol") for e in f.externals) and bool(an._descendants(ci)))


def _subclasses_provide(an, ci, attr: str) -> bool:
    """A template base: its __init__ reads what every concrete subclass sets before super().__init__();
    or a base no code in the tree builds reads what some of its subclasses give as class
    attributes (scapy's ``_AEADCipher.__init__`` reads ``self.pc_cls_mode`` under ``hasattr(self,
    "pc_cls")``; the ``Cipher_*`` subclasses define them): each subclass is judged on its own."""
    from ..mixins import built_in_tree
    leaves = [d for d in an._descendants(ci) if not an._direct_subclasses(d)]
    if not leaves:
        return False

    def provides(d) -> bool:
        df = an.facts(d)
        # a leaf with an unreadable base (skbase's BaseObject) may have it from there
        return df.unknown_base is not None or attr in df.class_level or attr in df.fields or \
            any(attr in k.assigned_in for k in df.classes)
    if all(provides(d) for d in leaves):
        return True
    return any(provides(d) for d in an._descendants(ci)) and not built_in_tree(an, ci)
