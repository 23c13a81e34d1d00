"""What construction of one class did, frozen once the walk is over: the value every rule judges
from (pyright's binder before its checker). ``Trace`` is one class's construction; ``ReadSite``
one read after construction that some path leaves unassigned."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Optional

if TYPE_CHECKING:  # annotations only: the rule registry imports this module without the analyzer
    from .classmodel import ClassFacts
    from .model import ClassInfo
    from .reads import Read

#: a rule in a chain answers NEXT when the read is not its case (the next rule is asked)
NEXT = object()


@dataclass(frozen=True)
class Trace:
    """Construction of ``ci`` as the walk saw it."""

    ci: ClassInfo
    facts: ClassFacts
    #: the states construction can end in (assigned attributes + path conditions)
    terminal: tuple
    #: attribute -> [(class qualname, method, line)] of every ``self.<attr> = ...`` in the MRO
    assigned_anywhere: Mapping[str, list]
    #: ``Class.method`` walked as part of construction
    inlined: frozenset
    #: attributes some construction path assigned (before any merge dropped them)
    seen: frozenset
    #: attributes deleted again during construction
    deleted: frozenset
    #: lines of calls that hand the instance to code that may set attributes on it
    escapes: tuple
    #: a library base's ``__init__`` ran (an unreadable one may set anything)
    lib_init_ran: bool
    #: ``<receiver>.__init__(self, ...)`` on a class chosen at run time, if construction made one,
    #: or ``f(..., super().__init__)``, a function handed the base's initialiser (indirect_phrase)
    indirect_init: Optional[str]
    #: line of a ``getattr(self, <computed>)`` call during construction
    dynamic_dispatch: Optional[int]
    #: the MRO holds a base the analyzer cannot read (or construction ran one's __init__)
    unknown: bool
    #: --strict: unknown bases provide nothing, leniencies off
    strict: bool
    #: annotation-only attributes of an abstract class in the MRO (a contract)
    contracts: frozenset = frozenset()
    #: the resolved ``__init__`` (class, function, kind) or None
    init: Optional[tuple] = None
    #: keyword names construction handed to a library ``__init__`` it cannot read
    lib_init_kw: frozenset = frozenset()
    #: a dataclass's generated ``__init__`` (and so its ``__post_init__``) never ran: a plain
    #: subclass's own ``__init__`` replaced it
    post_init_skipped: bool = False

    @property
    def ever_in_ctor(self) -> frozenset:
        return frozenset().union(*(s.assigned for s in self.terminal)) if self.terminal else frozenset()

    @property
    def always(self) -> frozenset:
        return frozenset.intersection(*(s.assigned for s in self.terminal)) if self.terminal else frozenset()

    @property
    def assigns_nothing(self) -> bool:
        return not any(c.assigned_in for c in self.facts.classes) and not self.facts.fields

    def known_static(self, attr: str) -> bool:
        """``attr`` exists without construction: a class-level name, something a library base
        provides, an abstract contract, a name a dynamic store pattern matches."""
        f = self.facts
        return attr in f.class_level or attr in f.provided or attr in self.contracts or \
            any(p.match(attr) for p in f.dyn_patterns)


@dataclass(frozen=True)
class Placement:
    """The assignments of one attribute in the MRO, as construction of the class sees them."""

    #: (class, method, line) of assignments in methods the class really has (not overridden away)
    live: tuple
    #: assignments in an ``__init__`` construction never runs (a missing super call)
    init_not_run: tuple
    #: assignments in methods the class overrides without calling them
    shadowed: tuple

    @property
    def skipped_init(self) -> bool:
        """Every live assignment is in a class whose ``__init__`` construction skipped (a reset in
        the same class does not make it a set-up method): the missing super call."""
        skipped = {c for c, _m, _ln in self.init_not_run}
        return bool(self.init_not_run) and all(c in skipped for c, _m, _ln in self.live)

    def effective(self, every: list) -> list:
        return list(self.live) or every


@dataclass(frozen=True)
class ReadSite:
    """A read of ``self.<attr>`` in ``owner.mname`` (a method of the MRO), judged for ``trace.ci``,
    with the construction end states that lack the attribute and that the read's own conditions
    do not exclude."""

    trace: Trace
    owner: ClassInfo
    mname: str
    read: Read
    live: tuple = field(default=())
    #: where the attribute is assigned, judged for ``trace.ci`` (judge.Placement), when it is
    placed: Optional["Placement"] = None

    @property
    def attr(self) -> str:
        return self.read.attr

    @property
    def node(self) -> ast.AST:
        return self.read.node

    @property
    def rel(self) -> str:
        return self.owner.module.rel

    @property
    def inherited(self) -> str:
        """`` (inherited by Sub ...)`` when the read sits in a base's method, else ""."""
        ci = self.trace.ci
        if self.owner.key == ci.key:
            return ""
        return f" (inherited by {ci.qualname})" if self.owner.module is ci.module else \
            f" (inherited by {ci.qualname} in {ci.module.rel})"


def indirect_phrase(call: str) -> str:
    """What construction did with an initialiser it did not run itself, for a finding's words."""
    if call.endswith("super().__init__)"):
        return f"hands super().__init__ to {call.split('(', 1)[0]}(), which may run it"
    return f"calls {call}(self, ...) on a class chosen at run time"
