"""Severity policy and the words of a finding: whether a path that misses an attribute is a
configuration mode (warning) or a hole (error), whether a read's own conditions exclude a path,
which condition explains the miss, ordered protocols, and inline suppressions."""
from __future__ import annotations

import ast
import functools
import re
from dataclasses import replace

from ..ftypes import Finding, Severity
from .astutil import dotted, fast_walk, is_super, memo_on
from .conditions import EVENT, HOLES, VALUE
from .state import State


def _calls_super(fn: ast.FunctionDef, name: str, base, ancestors=()) -> bool:
    """``fn`` calls ``super().<name>(...)`` or ``<Base>.<name>(self, ...)``, where Base is the
    declaring class or any class between (``ancestors``: short names; ``_TestGraph.setup_method(self)``
    reaches the ``setup_method`` _TestGraph inherits)."""
    names = {base.split(".")[-1]} | {a.split(".")[-1] for a in ancestors}
    for node in fast_walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name:
            v = node.func.value
            if is_super(v, fn):
                return True
            if (dotted(v) or "").split(".")[-1] in names:
                return True
    return False


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


_FUZZY = re.compile(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)\b")


@functools.lru_cache(maxsize=65536)
def _fuzzy(key: str) -> str:
    return _FUZZY.sub(r"\1", key)


_EXCLUDED: dict = {}


def _excluded(s: State, read_conds) -> bool:
    """The read's own conditions contradict the construction path ``s``. Memoised on the two sets
    of facts: one path meets the reads of every method of the class."""
    try:
        key = (s.conds, read_conds)
        got = _EXCLUDED.get(key)
    except TypeError:  # unhashable conditions (a list): computed every time
        return _excludes(s.conds, read_conds)
    if got is None:
        if len(_EXCLUDED) > 200_000:
            _EXCLUDED.clear()
        got = _EXCLUDED[key] = _excludes(s.conds, read_conds)
    return got


def _excludes(path_conds, read_conds) -> bool:
    for (key, pol) in read_conds:
        fk = _fuzzy(key)
        for c in path_conds:
            if c.origin == EVENT:
                continue
            if (c.key == key or _fuzzy(c.key) == fk) and c.holds != pol:
                return True
            if _numeric_conflict(c.key, c.holds, key, pol) or _literal_conflict(c.key, c.holds, key, pol):
                return True
    return False


_EQ_FACT = re.compile(r"^(.+?) (==|not in|in) (.+)$")


def _literal_set(op: str, text: str):
    """The values ``x == v`` / ``x in (v, ...)`` allows (a frozenset of str/int literals), else None."""
    try:
        v = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    vals = (v,) if op == "==" else tuple(v) if isinstance(v, (tuple, list, set, frozenset)) else None  # in, not in
    if vals is None or not all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in vals):
        return None
    return frozenset(vals)


@functools.lru_cache(maxsize=65536)
def _literal_conflict(k1: str, p1: bool, k2: str, p2: bool) -> bool:
    """``x == "a"`` and ``x == "b"`` cannot both hold (literal constants, ``self.layer_type =
    "full_attention"`` on the path against a read under ``== "linear_attention"``); nor can ``x ==
    "c"`` and ``x in ("a", "b")``, nor two ``in`` tests with no value in common; nor ``x == "a"``
    with ``x in (..., "a", ...)`` false (parlai's dictionaries: ``self.tokenizer in ('bpe', ...)``)."""
    if not (p1 or p2) or k1 == k2:
        return False
    m1, m2 = _EQ_FACT.match(k1), _EQ_FACT.match(k2)
    if not m1 or not m2 or m1.group(1) != m2.group(1):
        return False
    s1, s2 = _literal_set(m1.group(2), m1.group(3)), _literal_set(m2.group(2), m2.group(3))
    if s1 is None or s2 is None:
        return False
    # ``x not in S`` holding is ``x in S`` failing
    p1 = p1 if m1.group(2) != "not in" else not p1
    p2 = p2 if m2.group(2) != "not in" else not p2
    if not (p1 or p2):
        return False
    if p1 and p2:
        return not (s1 & s2)
    # one holds, the other does not: x is one of the true side's values, none of the false side's
    true_side, false_side = (s1, s2) if p1 else (s2, s1)
    return true_side <= false_side


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


def _branch_only(missing: list[State], terminal: list[State], attr: str, flags: frozenset = frozenset()) -> bool:
    """Every path that misses ``attr`` is told apart from those that have it only by a branch test
    (a configuration/mode choice), not by an exception, a loop that may not run, an unmatched
    ``match`` or a deletion. Such reads are mode-dependent: a warning, unless strict. ``flags``:
    (attribute, truth) pairs the class assigns as constants; a path that records itself in a flag
    the class also sets the other way is a mode too (`self.disabled = True; return` on failure,
    `self.disabled = False` once set up)."""
    having = [s for s in terminal if attr in s.assigned]
    if not having:
        return False
    common = set.intersection(*(set((c.key, c.holds) for c in s.conds) for s in having))
    for s in missing:
        distinct = [c for c in s.conds if (c.key, c.holds) not in common]
        if any(c.origin == VALUE and (c.key, not c.holds) in common for c in distinct):
            continue  # the path records itself in a flag (`self.enabled = False; return`): a mode
        if any(c.origin == VALUE and (c.key, not c.holds) in flags for c in distinct):
            continue  # the path sets a flag (`self.disabled = True; return`) that the class sets the other way elsewhere
        if any(c.key in HOLES for c in distinct):
            return False  # an exception swallowed or no case matched: not a mode, a hole
    return True


def _why(missing: State, terminal: list[State], attr: str) -> str:
    having = [s for s in terminal if attr in s.assigned]
    common = set.intersection(*(set((c.key, c.holds) for c in s.conds) for s in having)) if having else set()
    conds = sorted(missing.conds, key=lambda c: c.order)  # deterministic across runs
    distinct = [c for c in conds if (c.key, c.holds) not in common] or conds
    if not distinct:
        return "not assigned on every construction path"
    branches = [c for c in distinct if c.origin != VALUE] or distinct
    opposite = [c for c in branches if (c.key, not c.holds) in common]
    c = (opposite or branches)[0]
    if c.origin == EVENT:
        return f"not assigned when {c.text}"
    state = "true" if c.holds else "false"
    return f"not assigned on the construction path where `{c.text}` is {state} (line {c.line})"


_SUPPRESS = re.compile(r"#\s*patchkit:\s*ignore(?:\[([A-Z0-9, ]+)\])?")


def _suppressed(f: Finding, lines: dict[str, list[str]]) -> bool:
    """``# patchkit: ignore[CODE]`` on the finding's line (in whichever module of the tree it is)."""
    ls = lines.get(f.path)
    if ls and 0 < f.line <= len(ls):
        mt = _SUPPRESS.search(ls[f.line - 1])
        if mt:
            codes = mt.group(1)
            return not codes or f.code in [x.strip() for x in codes.split(",")]
    return False


def constant_flags(classes) -> frozenset:
    """(attribute, truth) for every ``self.<a> = <constant>`` in the methods of ``classes``."""
    out: set = set()
    for c in classes:
        if not c.module.external:
            out |= _class_constant_flags(c)
    return frozenset(out)


def _class_constant_flags(c) -> frozenset:
    """constant_flags of one class, computed once per class (asked for every read of its MRO)."""
    def compute() -> frozenset:
        found = set()
        for fn in c.methods.values():
            sn = fn.args.args[0].arg if fn.args.args else None
            if sn is None:
                continue
            for node in fast_walk(fn):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                    for t in node.targets:
                        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == sn:
                            found.add((t.attr, bool(node.value.value)))
        return frozenset(found)
    return memo_on(c, "_pk_constant_flags", compute)


#: folder names and file names of test code
_TEST_DIRS = {"tests", "test", "testing"}
TEST_CODE_NOTE = ("test code: the test framework's set-up hooks and fixtures, which the analyzer does not "
                  "see, may set it (--strict keeps it an error)")


def is_test_path(rel: str) -> bool:
    parts = rel.replace("\\", "/").split("/")
    name = parts[-1]
    return any(p in _TEST_DIRS for p in parts[:-1]) or name.startswith("test_") or \
        name.endswith("_test.py") or name == "conftest.py"


def in_test_code(f, class_in_tests: bool = False):
    """An error whose read sits in test code, or whose class is defined there, is a warning: pytest
    fixtures (``request.cls.x = ...``), ``setup_class`` chains and plugins set a test class's
    attributes from outside, and a test's stub subclass runs only what its test calls (on 273
    labelled error groups of 29 untuned codebases, the 32 in test files were all false positives;
    tornado's ``CookieTestRequestHandler`` in ``test/web_test.py`` skips ``RequestHandler.__init__``
    on purpose and reads in ``web.py`` gave 6 more)."""
    if f.severity != Severity.ERROR or not (class_in_tests or is_test_path(f.path)):
        return f
    return replace(f, severity=Severity.WARNING, why=f"{f.why}; {TEST_CODE_NOTE}" if f.why else TEST_CODE_NOTE)


#: class names that say the class stands in for its base (a test double, a shell reusing one method)
_STAND_IN = re.compile(r"^_?(?:Dummy|Fake|Mock|Stub)[A-Z_]")
STAND_IN_NOTE = ("{cls} is named as a stand-in for its base: it reuses some of the base's methods "
                 "without its set-up (--strict keeps it an error)")


def stand_in(f):
    """An error on a read in a base's method, for a class named as a stand-in (``DummyDPOTrainer``,
    ``FakeLoader``) that skips the base's set-up on purpose to reuse one method, is a warning (on
    the labelled corpus, 15 of 16 such groups were false positives: ms-swift's ``DummyDPOTrainer``
    calls only ``dpo_loss``)."""
    short = f.cls.split(".")[-1]
    if f.severity != Severity.ERROR or not _STAND_IN.match(short) or "(inherited by " not in f.why:
        return f
    note = STAND_IN_NOTE.format(cls=short)
    return replace(f, severity=Severity.WARNING, why=f"{f.why}; {note}")
