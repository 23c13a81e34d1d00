"""What each analyzer code means, for ``patchkit explain CODE``, SARIF rule metadata and the README.

The analyzer's one-line message templates live in ``patchkit.analysis.messages.CODES``; this module
adds the long text: what the rule finds, an example that triggers it and how to fix it.
tests/test_rules.py runs every example through the analyzer and asserts that it reports the code.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

from .ftypes import UsageError

#: where the rules are documented (SARIF ``helpUri``: ``DOCS_URL#pk003``)
DOCS_URL = "https://pypi.org/project/patchkit/"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    #: error | warning | info: the severity the analyzer gives it by default
    level: str
    summary: str
    text: str
    example: str
    fix: str

    @property
    def help_uri(self) -> str:
        return f"{DOCS_URL}#{self.code.lower()}"

    def explain(self) -> str:
        """The text ``patchkit explain`` prints."""
        ex = "\n".join("    " + ln if ln else "" for ln in self.example.strip("\n").splitlines())
        return (f"{self.code} ({self.name}, default severity: {self.level})\n\n{self.summary}\n\n{self.text}\n\n"
                f"Example:\n\n{ex}\n\nHow to fix:\n\n{self.fix}\n\n"
                f"Suppress one line with `# patchkit: ignore[{self.code}]`; select or ignore the rule with "
                f"`patchkit check --select {self.code}` / `--ignore {self.code}`.\n")


RULES: dict[str, Rule] = {r.code: r for r in (
    Rule("PK001", "maybe-unassigned", "error",
         "An attribute read on `self` may be unassigned: some construction path leaves it out.",
         "Every path through construction (`__init__`, the helpers it calls, `super().__init__()`) is followed. "
         "When one of them ends without assigning `self.x` and a method reads `self.x`, that read raises "
         "AttributeError on objects built along that path. The message names the path (the branch and its "
         "line). A split on a configuration value (a mode, a platform flag) is a warning, not an error, "
         "because callers often guard such reads; `--strict` makes it an error.",
         """
class Worker:
    def __init__(self, path):
        try:
            self.cache = load(path)
        except OSError:
            pass                     # the exception is swallowed, self.cache never assigned

    def lookup(self, key):
        return self.cache.get(key)   # PK001
""",
         "Assign the attribute on every path (`self.cache = {}` in the `except` branch or before the `try`), "
         "or give it a class-level default (`cache = None` in the class body)."),
    Rule("PK002", "read-before-assignment", "error",
         "An attribute is read during construction before it is assigned.",
         "`__init__` (or a helper it calls) reads `self.x` before any statement has assigned it, so "
         "construction itself raises AttributeError.",
         """
class Buffer:
    def __init__(self, size):
        self.resize(size)            # resize() reads self.data ...
        self.data = []               # ... which is assigned only here

    def resize(self, n):
        del self.data[n:]            # PK002
""",
         "Move the assignment before the first call or read that needs it."),
    Rule("PK003", "never-assigned", "error",
         "An attribute is read but no method of the class or its bases ever assigns it.",
         "No method of the class, its bases (followed across modules) or the class body assigns `self.x`. "
         "When another class of the module assigns it, the hint names that class and line: the "
         "wrong-class bug, where the assignment landed in the first `__init__` of the file instead of "
         "the class that reads it.",
         """
class DraftWorker:
    def __init__(self, args):
        self.threshold = args.threshold     # assigned here ...

class TargetWorker:
    def __init__(self, args):
        self.args = args

    def step(self, batch):
        return len(batch) > self.threshold  # PK003: ... but read here
""",
         "Assign the attribute in the `__init__` of the class that reads it (or in a base class whose "
         "`__init__` runs); fix the spelling when the name is a typo."),
    Rule("PK004", "two-phase-initialisation", "warning",
         "An attribute is only assigned outside construction (two-phase initialisation).",
         "The attribute is assigned in a method that is not part of construction (a `setup()`, `connect()`, "
         "`init_cuda_graph_state()`), and read in another one: the read fails on any object whose set-up "
         "method has not run yet. A warning by default; `strict-two-phase = true` makes it an error.",
         """
class Client:
    def __init__(self, url):
        self.url = url

    def connect(self):
        self.sock = open_socket(self.url)

    def close(self):
        self.sock.close()            # PK004: fails when connect() was never called
""",
         "Assign a default in `__init__` (`self.sock = None`) and check for it, or declare the set-up "
         "method your code always calls first: `initializers = [\"connect\"]` under `[tool.patchkit]`."),
    Rule("PK005", "del-reads-partial-object", "warning",
         "`__del__` reads an attribute that is unassigned when `__init__` raises early.",
         "Python calls `__del__` on objects whose `__init__` raised. A read of an attribute assigned after "
         "the raising statement then fails in the finaliser (an ignored exception printed to stderr, and "
         "the cleanup does not run).",
         """
class Pool:
    def __init__(self, n):
        if n <= 0:
            raise ValueError(n)
        self.handles = [acquire() for _ in range(n)]

    def __del__(self):
        for h in self.handles:       # PK005
            h.release()
""",
         "Assign the attribute before anything can raise (`self.handles = []` first), or read it with "
         "`getattr(self, \"handles\", [])` in `__del__`."),
    Rule("PK006", "base-init-skipped", "error",
         "A subclass of `nn.Module` or `threading.Thread` never runs the base class's `__init__()`.",
         "`torch.nn.Module.__init__()` creates the registries that attribute assignment uses, and "
         "`Thread.__init__()` the state `start()` needs. A subclass whose construction never calls it "
         "raises on its first submodule assignment or `start()`.",
         """
import torch.nn as nn

class Head(nn.Module):
    def __init__(self, dim):
        self.proj = nn.Linear(dim, dim)   # PK006: Module.__init__() never ran
""",
         "Call `super().__init__()` first in `__init__`."),
    Rule("PK900", "could-not-analyse", "error",
         "A file could not be analysed.",
         "The file does not parse (a syntax error, a null byte, an undecodable encoding) or the analyzer "
         "hit an internal limit. `check` reports it and sets exit bit 2.",
         """
class A:
    def f(self:
        pass
""",
         "Fix the syntax error, or exclude the file (`--exclude 'generated/*'`)."),
    Rule("PK901", "analysis-budget", "warning",
         "A class could not be fully analysed within the per-file budget.",
         "Construction paths multiply with branches and calls; past the per-file budget (seconds and "
         "walked states) the analyzer stops on that file and says so instead of hanging. Reads it did "
         "not reach are not judged: a PK901 file is not proven clean.",
         """
class C:
    def __init__(self, a, b, c, d):
        if a: self.x = 1
        if b: self.y = 1
        if c: self.z = 1
        if d: self.w = 1
        self.helper()

    def helper(self):
        if self.x: self.v = 1
""",
         "Split the class's construction into smaller helpers, or raise the budget for this file."),
)}


def register(*new: Rule) -> None:
    """Add a check's own rules (``Check.rules``); a built-in code keeps its entry."""
    for r in new:
        RULES.setdefault(r.code, r)


def rule(code: str) -> Rule:
    """The rule for ``code`` (case-insensitive); a UsageError naming the nearest code otherwise."""
    c = code.strip().upper()
    if c in RULES:
        return RULES[c]
    near = difflib.get_close_matches(c, list(RULES), n=1)
    raise UsageError(f"no rule '{code}'" + (f"; did you mean '{near[0]}'?" if near else f"; known: {', '.join(RULES)}"))


def matching(prefixes, flag: str) -> set[str]:
    """Codes selected by ``--select`` / ``--ignore`` prefixes (``PK`` = all, ``PK00`` = PK001-PK009)."""
    out: set[str] = set()
    for p in prefixes:
        p = p.strip().upper()
        if not p:
            continue
        if p == "ALL":
            out |= set(RULES)
            continue
        hit = {c for c in RULES if c.startswith(p)}
        if not hit:
            near = difflib.get_close_matches(p, list(RULES), n=1)
            raise UsageError(f"{flag} {p}: no such code" + (f"; did you mean '{near[0]}'?" if near else
                                                            f"; known: {', '.join(RULES)}"))
        out |= hit
    return out
