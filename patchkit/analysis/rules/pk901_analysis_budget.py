"""PK901 analysis-budget (default: warning). A class could not be fully analysed within the per-file budget.

Logic: the driver (checker.py) catches the walk's ``BudgetExceeded`` for a class and reports this
code for the rest of the file."""
from __future__ import annotations

from ...rules import Rule
from .base import finding as _finding

RULE = Rule(
    'PK901', 'analysis-budget', 'warning',
    summary='A class could not be fully analysed within the per-file budget.',
    text=(
        'Construction paths multiply with branches and calls; past the per-file budget (seconds and '
        'walked states) the analyzer stops on that file and says so instead of hanging. Reads it did '
        'not reach are not judged: a PK901 file is not proven clean.'),
    example="""
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
    fix="Split the class's construction into smaller helpers, or raise the budget for this file.",
    message='{cls} could not be fully analysed',  # the formatter appends ': <why>'
)


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK901 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)


def budget(rel, node, cls, why):
    """The budget ran out while walking ``cls``: the rest of the file is not judged."""
    return finding(rel, node, cls, "", why, "the rest of this file was not analysed; split the class or raise the budget")
