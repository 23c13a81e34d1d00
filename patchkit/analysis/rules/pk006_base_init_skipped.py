"""PK006 base-init-skipped (default: error). A subclass of `nn.Module` or `threading.Thread` never runs the base class's `__init__()`.

Logic: ``check`` runs once per class, after the construction walk: a base that keeps its state in
what its own ``__init__`` sets up (``nn.Module``'s registries, ``Thread``'s) and a construction that
never ran it."""
from __future__ import annotations

from ...rules import Rule
from .base import finding as _finding
from .examples import pk006 as _examples

RULE = Rule(
    'PK006', 'base-init-skipped', 'error',
    summary="A subclass of `nn.Module` or `threading.Thread` never runs the base class's `__init__()`.",
    text=(
        '`torch.nn.Module.__init__()` creates the registries that attribute assignment uses, and '
        '`Thread.__init__()` the state `start()` needs. A subclass whose construction never calls it '
        'raises on its first submodule assignment or `start()`.'),
    example="""
import torch.nn as nn

class Head(nn.Module):
    def __init__(self, dim):
        self.proj = nn.Linear(dim, dim)   # PK006: Module.__init__() never ran
""",
    fix='Call `super().__init__()` first in `__init__`.',
    message='{cls} never runs {attr}.__init__()',
    valid=_examples.VALID,
    invalid=_examples.INVALID,
)


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK006 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)


def check(t) -> list:
    """The PK006 finding of ``t`` (a Trace), if its construction never ran such a base's __init__."""
    base = next((e for e in t.facts.externals if e.kind in ("module", "thread")), None)
    init = t.init
    if base is None or init is None or t.lib_init_ran or init[0].module.external:
        return []
    short = base.name.split(".")[-1]
    why = ("assigning a submodule, parameter or buffer raises AttributeError before Module.__init__() "
           "has run" if short == "Module" else f"{short} methods fail on an instance whose {short}.__init__() never ran")
    return [finding(init[0].module.rel, init[1], t.ci.qualname, base.name, why,
                    "call super().__init__() first in __init__")]
