"""What every rule unit shares: its finding constructor (the pyflakes ``messages`` idea: a template
per code, tests assert on the code)."""
from __future__ import annotations

from typing import Optional

from ...ftypes import Finding, Severity
from ...rules import Rule


def finding(rule: Rule, rel: str, node, cls: str, attr: str, why: str, hint: str = "",
            sev: Optional[Severity] = None) -> Finding:
    """A Finding of ``rule`` at ``node`` (its line and 1-based column) in ``rel``; the severity is the
    rule's default level unless ``sev`` says otherwise."""
    line = getattr(node, "lineno", 0)
    col = getattr(node, "col_offset", 0) + 1
    return Finding(rel, line, col, rule.code, rule.message.format(attr=attr, cls=cls, why=why), cls, attr,
                   sev if sev is not None else Severity(rule.level), why, hint)
