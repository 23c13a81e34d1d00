"""The one way a linked source turns errors into warnings: the error findings of the read rules
(PK001-PK003) on an attribute some source gives become warnings whose ``why`` names the source.
Shared by madeelsewhere.py and exccontext.py."""
from __future__ import annotations

from dataclasses import replace

READ_CODES = ("PK001", "PK002", "PK003")


def open_errors(findings: list) -> set:
    """ids of the error findings a source may demote."""
    from ..ftypes import Severity
    return {id(x) for x in findings if x.severity == Severity.ERROR and x.code in READ_CODES and x.attr}


def demote_named(findings: list, todo: set, sources, lead: str = "") -> list:
    """``findings`` with each one of ``todo`` whose attribute a source of ``sources`` ((names,
    words) pairs) gives turned into a warning saying ``lead`` + the source's words."""
    from ..ftypes import Severity
    out = []
    for x in findings:
        why = next((w for names, w in sources if x.attr in names), None) if id(x) in todo else None
        out.append(replace(x, severity=Severity.WARNING, why=f"{x.why}; {lead}{why}") if why else x)
    return out
