"""PK001 maybe-unassigned (default: error). An attribute read on `self` may be unassigned: some construction path leaves it out.

Logic (two links of the read chain in ``judge.py``): ``on_some_paths``, the attribute is assigned on
some construction paths and not on others; ``lost_track``, the walk had too many paths to keep each
one's conditions, or construction deletes the attribute again."""
from __future__ import annotations

from ...ftypes import Severity
from ..trace import NEXT
from ...rules import Rule
from .base import finding as _finding
from .examples import pk001 as _examples

RULE = Rule(
    'PK001', 'maybe-unassigned', 'error',
    summary='An attribute read on `self` may be unassigned: some construction path leaves it out.',
    text=(
        'Every path through construction (`__init__`, the helpers it calls, `super().__init__()`) is '
        'followed. When one of them ends without assigning `self.x` and a method reads `self.x`, that '
        'read raises AttributeError on objects built along that path. The message names the path (the '
        'branch and its line). A split on a configuration value (a mode, a platform flag) is a '
        'warning, not an error, because callers often guard such reads; `--strict` makes it an error.'),
    example="""
class Worker:
    def __init__(self, path):
        try:
            self.cache = load(path)
        except OSError:
            pass                     # the exception is swallowed, self.cache never assigned

    def lookup(self, key):
        return self.cache.get(key)   # PK001
""",
    fix=(
        'Assign the attribute on every path (`self.cache = {}` in the `except` branch or before the '
        '`try`), or give it a class-level default (`cache = None` in the class body).'),
    message='self.{attr} may be unassigned when {cls} is used',
    valid=_examples.VALID,
    invalid=_examples.INVALID,
)


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK001 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)


def on_some_paths(an, site):
    """A read of an attribute some construction path assigns: an error on the paths that lack it,
    a warning when they differ from the others only by a configuration choice (a mode)."""
    from ..severity import _branch_only, _mode_split, _why
    t, attr = site.trace, site.attr
    if attr not in t.ever_in_ctor:
        return NEXT
    live, terminal = list(site.live), list(t.terminal)
    why = _why(live[0], terminal, attr)
    mode = not t.strict and (_mode_split(live, terminal, attr) or _branch_only(live, terminal, attr, an._flags(t.ci)))
    return finding(site.rel, site.node, t.ci.qualname, attr, why + site.inherited,
                   "", Severity.WARNING if mode else Severity.ERROR)


def lost_track(an, site):
    """Construction assigns the attribute somewhere but the walk lost the paths' conditions (a
    warning), or deletes it again before construction ends (an error)."""
    t, attr = site.trace, site.attr
    locs = t.assigned_anywhere.get(attr)
    if not locs:
        return NEXT
    rel, ci = site.rel, t.ci
    if attr in t.seen and attr not in t.deleted:
        c, m, ln = locs[0]
        return finding(rel, site.node, ci.qualname, attr,
                       f"not assigned on every construction path ({c}.{m} assigns it at {an._at(ci, c, rel, ln)})"
                       + site.inherited, "", Severity.ERROR if t.strict else Severity.WARNING)
    ran = [(c, m, ln) for c, m, ln in locs if f"{c}.{m}" in t.inlined]
    if ran and attr in t.deleted:
        c, m, ln = ran[0]
        return finding(rel, site.node, ci.qualname, attr,
                       f"assigned in {c}.{m} ({an._at(ci, c, rel, ln)}) but deleted again before construction ends"
                       + site.inherited)
    return NEXT
