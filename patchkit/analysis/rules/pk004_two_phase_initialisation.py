"""PK004 two-phase-initialisation (default: warning). An attribute is only assigned outside construction (two-phase initialisation).

Logic (links of the read chain in ``judge.py``): ``deferred_base_init``, a skipped base ``__init__``
that a later set-up method runs; ``ordered_protocol``, set-up hooks a protocol always runs first
(``__enter__``, ``setUp``): no finding; ``two_phase``, assigned only in methods construction never calls."""
from __future__ import annotations

import re

from ...ftypes import Severity
from ..mangle import private_part
from ..trace import NEXT
from .pk003_never_assigned import handed_to_library_init
from ...rules import Rule
from .base import finding as _finding
from .examples import pk004 as _examples

RULE = Rule(
    'PK004', 'two-phase-initialisation', 'warning',
    summary='An attribute is only assigned outside construction (two-phase initialisation).',
    text=(
        'The attribute is assigned in a method that is not part of construction (a `setup()`, '
        '`connect()`, `init_cuda_graph_state()`), and read in another one: the read fails on any '
        'object whose set-up method has not run yet. A warning by default; `strict-two-phase = true` '
        'makes it an error.'),
    example="""
class Client:
    def __init__(self, url):
        self.url = url

    def connect(self):
        self.sock = open_socket(self.url)

    def close(self):
        self.sock.close()            # PK004: fails when connect() was never called
""",
    fix=(
        'Assign a default in `__init__` (`self.sock = None`) and check for it, or declare the set-up '
        'method your code always calls first: `initializers = ["connect"]` under `[tool.patchkit]`.'),
    message='self.{attr} is only assigned outside construction of {cls}',
    valid=_examples.VALID,
    invalid=_examples.INVALID,
)


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK004 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)


#: assigning method -> the methods guaranteed to run after it (None: every other method)
RUN_BEFORE = {"__enter__": ("__exit__",), "__aenter__": ("__aexit__",),
              "setUp": None, "asyncSetUp": None, "setup_method": None,
              # class-level set-up hooks (classmethods storing on cls): run before any test method
              "setup_class": None, "setUpClass": None, "setup_class_method": None}


def _sev(an) -> Severity:
    return Severity.ERROR if an.settings.strict_two_phase else Severity.WARNING


def deferred_base_init(an, site):
    """The skipped base ``__init__`` runs from a later set-up method (``Base.__init__(self)`` in
    ``setup()``): two-phase by design, not a missing super call."""
    p, t = site.placed, site.trace
    if p is None or not p.skipped_init:
        return NEXT
    c, _m, ln = p.init_not_run[0]
    later = deferred_init(an, t.ci, c)
    if not later:
        return NEXT
    return finding(site.rel, site.node, t.ci.qualname, site.attr,
                   f"assigned in {c}.__init__ ({an._at(t.ci, c, site.rel, ln)}), which {later} runs "
                   f"after construction (deferred initialisation)" + site.inherited, "", _sev(an))


#: the set-up hooks of test frameworks: run only on a test class
TEST_HOOKS = frozenset(m for m in RUN_BEFORE if not m.startswith("__"))


def ordered_protocol(an, site):
    """Every assignment is in a set-up hook a protocol runs before the reading method: no finding.
    A test framework's hooks (``setUp``, ``setup_method``) count only on a test class: elsewhere
    nothing runs them (a ``setUp`` meant to override a base's ``setup`` hook)."""
    p = site.placed
    if p is None:
        return NEXT
    locs = p.effective(site.trace.assigned_anywhere[site.attr])
    test = None
    for _c, m, _ln in locs:
        if m not in RUN_BEFORE or RUN_BEFORE[m] is not None and site.mname not in RUN_BEFORE[m]:
            return NEXT
        if m in TEST_HOOKS:
            test = _test_class(site.trace) if test is None else test
            if not test:
                return NEXT
    return None


def _test_class(t) -> bool:
    """The class is a test: in a test file, named ``Test...``, or a class of its MRO is a
    ``...TestCase`` / ``...Test(s)`` (unittest's, Django's, a project's own base)."""
    from ..severity import is_test_path
    if is_test_path(t.ci.module.rel):
        return True
    names = [t.ci.qualname.split(".")[-1]] + [
        (getattr(k, "qualname", None) or getattr(k, "name", None) or "").split(".")[-1] for k in t.facts.linear]
    return names[0].startswith("Test") or any(n.endswith(("TestCase", "Test", "Tests")) for n in names)


def entered_first(an, site):
    """A read in ``__exit__`` of an attribute the class's own ``__enter__`` assigns: the ``with``
    statement runs ``__enter__`` first, whatever construction skipped (arcade's default framebuffer
    skips ``Framebuffer.__init__``; its ``__exit__`` restores the ``_prev_fbo`` that ``__enter__`` saved)."""
    pairs = {"__exit__": "__enter__", "__aexit__": "__aenter__"}
    enter = pairs.get(site.mname)
    if enter is None:
        return NEXT
    t = site.trace
    got = an.resolve_method(t.facts.linear, enter)
    if got is None:
        return NEXT
    if any(c == got[0].qualname and m == enter for c, m, _ln in t.assigned_anywhere.get(site.attr, ())):
        return None
    return NEXT


def two_phase(an, site):
    """Assigned only in methods construction never calls: the read fails on any object whose set-up
    method has not run yet (declare such methods as ``initializers`` when the project always calls them)."""
    p, t = site.placed, site.trace
    if p is None:
        return NEXT
    if handed_to_library_init(t, site.attr):
        return None  # the unreadable library initialiser was handed it by name (pk003.handed_to_library_init)
    locs = p.effective(t.assigned_anywhere[site.attr])
    where = ", ".join(f"{c}.{m} ({an._at(t.ci, c, site.rel, ln)})" for c, m, ln in locs[:2])
    written = [(c, private_part(m) or m) for c, m, _ln in locs]  # ``def __init_`` is stored as ``_C__init_``
    typo = next((m for _c, m in written if misspelled_init(m)), None)
    if typo and all(misspelled_init(m) for _c, m in written) and not any(_called(an, t, c, m) for c, m in written):
        return finding(site.rel, site.node, t.ci.qualname, site.attr,
                       f"only assigned in {where}, a method nothing calls: Python runs __init__, not {typo}"
                       + site.inherited, f"rename {typo} to __init__", Severity.ERROR)
    hook = _overrides_by_mistake(an, t, written)
    if hook is not None:
        typo, meant = hook
        return finding(site.rel, site.node, t.ci.qualname, site.attr,
                       f"only assigned in {where}, a method nothing calls; construction calls {meant}, which "
                       f"{typo} was likely meant to override" + site.inherited,
                       f"rename {typo} to {meant.split('.')[-1]}", Severity.ERROR)
    if locs and all(f"{c}.{m}" in t.inlined for c, m, _ln in locs):
        # construction ran the method on no path through the store (a branch decided for this
        # class, a callback it only defines, a return before it)
        return finding(site.rel, site.node, t.ci.qualname, site.attr,
                       f"only assigned in {where}, which construction of {t.ci.qualname} runs without "
                       f"reaching the assignment" + site.inherited, "", _sev(an))
    return finding(site.rel, site.node, t.ci.qualname, site.attr,
                   f"only assigned in {where}, which construction never calls" + site.inherited, "", _sev(an))


#: special method names Python defines (``__int__`` is one letter from ``__init__``)
_SPECIAL = frozenset(n for t in (object, int, float, list, dict, type) for n in dir(t))


def misspelled_init(name: str) -> bool:
    """``__innit__``, ``__inti__``, ``_init__``, ``__init_``: a method named like ``__init__`` but not
    it (nor another special method), which Python never calls on construction."""
    core = name.strip("_")
    lead, trail = len(name) - len(name.lstrip("_")), len(name) - len(name.rstrip("_"))
    if name in _SPECIAL or not lead or not trail:
        return False
    if core == "init":  # not ``_init_``: a helper's name as often as a typo
        return (lead, trail) not in ((2, 2), (1, 1))
    return (lead, trail) == (2, 2) and _one_edit(core, "init")


def _one_edit(a: str, b: str) -> bool:
    """One insertion, deletion, substitution or swap of neighbours turns ``a`` into ``b``."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _overrides_by_mistake(an, t, written):
    """(method, ``Base.hook``) when every assigning method is spelt like a hook construction runs
    from a base, up to case and inner underscores (``setUp`` / ``setup``, ``set_up`` / ``setup``;
    the same leading underscores and the same parameters), and nothing calls it: the override that
    does not override. None otherwise (``load(self, text)`` beside a base's ``_load(self)``)."""
    def norm(name: str) -> str:
        return name[:len(name) - len(name.lstrip("_"))] + name.replace("_", "").lower()

    def arity(cls: str, name: str):
        k = next((k for k in t.facts.classes if getattr(k, "qualname", None) == cls), None)
        fn = k.methods.get(name) if k is not None else None
        return None if fn is None else (len(fn.args.posonlyargs + fn.args.args), fn.args.vararg is None)
    out = None
    for c, m in written:
        meant = next((r for r in sorted(t.inlined) if not r.startswith(c + ".") and r.rsplit(".", 1)[-1] != m
                      and norm(r.rsplit(".", 1)[-1]) == norm(m) and len(norm(m)) >= 4
                      and arity(*r.rsplit(".", 1)) == arity(c, m) is not None), None)
        if meant is None or _called(an, t, c, m):
            return None
        out = out or (m, meant)
    return out


def _called(an, t, cls: str, method: str) -> bool:
    """The method's name, as a whole word, appears in the tree's code other than in a ``def`` (a
    base calling ``self._init_()`` that a subclass overrides, another module calling
    ``fmt.__innit__()``), or its module is out of sight."""
    k = next((c for c in t.facts.classes if getattr(c, "qualname", None) == cls), None)
    if k is None:
        return True
    from ..injection import _index_for
    used = re.compile(r"(?<!def )(?<!\w)%s(?!\w)" % re.escape(method))  # not its ``def`` (nor another class's)
    texts = list(_index_for(an.project, k).texts().values()) or [k.module.source]
    return any(used.search(text) for text in texts)


def deferred_init(an, ci, base: str):
    """``Cls.method`` of ``ci``'s MRO, other than ``__init__``, that runs ``base.__init__`` on the
    instance (``Base.__init__(self, ...)`` or ``super().__init__(...)``): the class defers its
    base's initialiser to a set-up method (two-phase initialisation), it did not forget it."""
    from ..instances import init_callers
    short = base.split(".")[-1]
    for c in an.facts(ci).classes:
        if c.module.external or c.qualname == base:
            continue
        for mname, callees in init_callers(c):
            if "super" in callees or short in callees:
                return f"{c.qualname}.{mname}"
    return None
