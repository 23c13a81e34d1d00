"""PK007 unpickled-missing (default: warning). A method reads an attribute that an unpickled instance does not have.

Logic: ``check`` runs once per class, after the construction walk: where ``__getstate__`` keeps a
known set of names (``pickling.py``), a read in any method of a name construction assigns but the
state and ``__setstate__`` do not give back fails on every instance that went through pickle
(``copy.deepcopy`` and multiprocessing included): unpickling never runs ``__init__``."""
from __future__ import annotations

from ...rules import Rule
from ..classbody import NOT_CHECKED_METHODS
from .base import finding as _finding
from .examples import pk007 as _examples

RULE = Rule(
    'PK007', 'unpickled-missing', 'warning',
    summary='A method reads an attribute that an unpickled instance does not have.',
    text=(
        'Unpickling (also `copy.deepcopy`, and sending the object to another process) does not run '
        '`__init__`: the instance gets what `__getstate__` saved and what `__setstate__` assigns. A name '
        '`__init__` assigns but the state leaves out is missing on the copy, and the first read raises '
        'AttributeError.'),
    example="""
class HTTPAdapter:
    __attrs__ = ["max_retries", "config"]

    def __init__(self):
        self.max_retries = 0
        self.config = {}
        self.proxy_manager = {}

    def __getstate__(self):
        return {a: getattr(self, a, None) for a in self.__attrs__}

    def proxy_for(self, proxy):
        return self.proxy_manager[proxy]      # PK007: not in __attrs__
""",
    fix='Keep the name in the state, or assign it again in `__setstate__`.',
    message='self.{attr} is read in {cls} but an unpickled instance does not have it',
    valid=_examples.VALID,
    invalid=_examples.INVALID,
)

#: methods that never run on an unpickled instance, or run before it has its state
_SKIP = NOT_CHECKED_METHODS | {"__getstate__", "__reduce__", "__reduce_ex__"}


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK007 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)


def check(an, t) -> list:
    """PK007 findings of ``t`` (a Trace): reads of names construction assigns that unpickling leaves out."""
    from ..astutil import first_param
    from ..pickling import restored
    got = restored(an, t.facts)
    if got is None:
        return []
    # only names the class with ``__getstate__`` (or a base of it) assigns: its author saw them. A
    # subclass that adds state under a base's listed ``__getstate__`` (torch's ZeroRedundancyOptimizer
    # under Optimizer's) is often never pickled at all
    missing = {a for a in got.missing(t.ever_in_ctor) if not t.known_static(a) and any(
        cq in got.owners for cq, _m, _ln in t.assigned_anywhere.get(a, ()))}
    if not missing:
        return []
    why = f"__getstate__ (line {got.line}) " + ("saves only the listed names" if got.shape == "listed"
                                                 else "drops it from the state")
    out, seen = [], set()
    for c in t.facts.classes:
        if getattr(c, "module", None) is None or c.module.external:
            continue
        for mname, fn in c.methods.items():
            if mname in seen:
                continue
            seen.add(mname)
            if mname in _SKIP or c.method_kind.get(mname) in ("static", "class"):
                continue
            if mname.startswith("_") and not mname.endswith("__"):
                continue  # a private helper: often the work that made the state, not the copy's API (angr's
                # CFGEmulated saves its results only; its analysis steps read the rest)
            sn = first_param(fn)
            if not sn:
                continue
            for r in an._reads_of(fn, sn, c):  # memoised per function: subclasses share a base's reads
                if r.attr in missing and not (r.guarded or r.attr in r.known or r.attr in r.local):
                    out.append(finding(c.module.rel, r.node, t.ci.qualname, r.attr, why,
                                       f"keep {r.attr!r} in the state, or assign self.{r.attr} in __setstate__"))
    return out
