"""PK900 could-not-analyse (default: error). A file could not be analysed.

Logic: none of its own: the runner reports a file it cannot parse (a FileReport's error), and ``check``
turns that into this code (exit bit 2)."""
from __future__ import annotations

from ...rules import Rule
from .base import finding as _finding

RULE = Rule(
    'PK900', 'could-not-analyse', 'error',
    summary='A file could not be analysed.',
    text=(
        'The file does not parse (a syntax error, a null byte, an undecodable encoding) or the '
        'analyzer hit an internal limit. `check` reports it and sets exit bit 2.'),
    example="""
class A:
    def f(self:
        pass
""",
    fix="Fix the syntax error, or exclude the file (`--exclude 'generated/*'`).",
    message='could not analyse: {why}',
)


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK900 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)



