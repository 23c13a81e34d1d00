"""Finding templates, one per code (the pyflakes ``messages`` idea): tests assert on the code."""
from __future__ import annotations

import ast

from ..ftypes import Finding, Severity

CODES = {
    "PK001": "self.{attr} may be unassigned when {cls} is used",
    "PK002": "self.{attr} is read during construction of {cls} before it is assigned",
    "PK003": "self.{attr} is read but never assigned in {cls}",
    "PK004": "self.{attr} is only assigned outside construction of {cls}",
    "PK005": "self.{attr} is read in {cls}.__del__ but is unassigned when __init__ raises early",
    "PK006": "{cls} never runs {attr}.__init__()",
    "PK900": "could not analyse: {why}",
    "PK901": "{cls} could not be fully analysed: {why}",
}


def _mk(code, rel, node, cls, attr, why, hint="", sev=Severity.ERROR) -> Finding:
    line = getattr(node, "lineno", 0)
    col = getattr(node, "col_offset", 0) + 1
    return Finding(rel, line, col, code, CODES[code].format(attr=attr, cls=cls, why=why), cls, attr, sev, why, hint)


def maybe_unassigned(rel, node: ast.AST, cls, attr, why, sev=Severity.ERROR) -> Finding:
    return _mk("PK001", rel, node, cls, attr, why, "", sev)


def read_before_assignment(rel, node, cls, attr, why, sev=Severity.ERROR) -> Finding:
    return _mk("PK002", rel, node, cls, attr, why, "", sev)


def never_assigned(rel, node, cls, attr, why, hint="", sev=Severity.ERROR) -> Finding:
    return _mk("PK003", rel, node, cls, attr, why, hint, sev)


def two_phase(rel, node, cls, attr, why, sev=Severity.INFO) -> Finding:
    return _mk("PK004", rel, node, cls, attr, why, "", sev)


def del_partial(rel, node, cls, attr, why) -> Finding:
    return _mk("PK005", rel, node, cls, attr, why, "", Severity.WARNING)


def base_init_skipped(rel, node, cls, base) -> Finding:
    short = base.split(".")[-1]
    why = ("assigning a submodule, parameter or buffer raises AttributeError before Module.__init__() "
           "has run" if short == "Module" else f"{short} methods fail on an instance whose {short}.__init__() never ran")
    return _mk("PK006", rel, node, cls, base, why, "call super().__init__() first in __init__")


def not_fully_analysed(rel, node, cls, why) -> Finding:
    """The per-file budget ran out while walking ``cls``: the rest of the file is not judged."""
    return _mk("PK901", rel, node, cls, "", why, "the rest of this file was not analysed; split the class or "
               "raise the budget", Severity.WARNING)
