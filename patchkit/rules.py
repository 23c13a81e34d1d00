"""The rule registry: what each code means, for ``patchkit explain CODE``, ``--select``, SARIF rule
metadata and the README. A rule is a value (``Rule``); the units that define them live with the
check that reports them (the attribute analyzer's in ``patchkit/analysis/rules/pkNNN_*.py``: docs,
message, logic and examples in one place) and join this table when ``registry.checks()`` loads the
checks. tests/test_rules.py runs every rule's examples through its check.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .ftypes import UsageError

if TYPE_CHECKING:
    from .checks_api import Example

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
    #: the one-line message, ``{attr}``, ``{cls}`` and ``{why}`` filled in per finding
    message: str = ""
    #: code the rule must leave alone, and code it must report (checks_api.Example)
    valid: "tuple[Example, ...]" = ()
    invalid: "tuple[Example, ...]" = ()

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


#: every rule known so far, by code: each check brings its own (``Check.rules``, registered by
#: ``registry.checks()``); the attribute analyzer's live in ``patchkit/analysis/rules/``, one unit each
RULES: dict[str, Rule] = {}


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
