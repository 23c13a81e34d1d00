"""PK006 base-init-skipped (default: error). A subclass of `nn.Module` or `threading.Thread` never runs the base class's `__init__()`.

Logic: ``check`` runs once per class, after the construction walk: a base that keeps its state in
what its own ``__init__`` sets up (``nn.Module``'s registries, ``Thread``'s) and a construction that
never ran it."""
from __future__ import annotations

import ast
from dataclasses import replace

from ..astutil import dotted

from ...rules import Rule
from .base import finding as _finding
from .examples import pk006 as _examples

RULE = Rule(
    'PK006', 'base-init-skipped', 'error',
    summary="A subclass of `nn.Module` or `threading.Thread` never runs the base class's `__init__()`, "
            "or assigns a submodule or parameter before `Module.__init__()` has run.",
    text=(
        '`torch.nn.Module.__init__()` creates the registries that attribute assignment uses, and '
        '`Thread.__init__()` the state `start()` needs. A subclass whose construction never calls it '
        'raises on its first submodule assignment or `start()`; one that assigns a submodule, parameter '
        'or buffer (`self.fc = nn.Linear(...)`) before `super().__init__()` raises there '
        '(`cannot assign module before Module.__init__() call`).'),
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


def assigned_early(t, stores: list) -> list:
    """The PK006 finding of ``t`` whose construction ran ``Module.__init__()`` only after storing a
    submodule or parameter on the instance: ``stores`` holds (attribute, target node, class, kind) of
    each such store walked before it ran (the driver keeps only module-valued ones), and what it
    stores ("module" or "parameters", torch's words)."""
    base = next((e for e in t.facts.externals if e.kind == "module"), None)
    if base is None or not stores or not t.lib_init_ran:
        return []
    if any("__setattr__" in c.methods for c in t.facts.classes if not c.module.external):
        return []  # a class of the tree decides what a store does before the base's registries exist
    attr, node, cls, kind = stores[0]
    why = f"torch raises AttributeError on this line (cannot assign {kind} before Module.__init__() call)"
    f = finding(cls.module.rel, node, t.ci.qualname, base.name, why, "call super().__init__() before assigning submodules")
    return [replace(f, message=f"{t.ci.qualname} assigns self.{attr} before {base.name}.__init__() runs")]


def module_valued(project, cls, value, facts) -> str:
    """What ``value`` builds that torch's ``Module.__setattr__`` refuses before ``Module.__init__()``:
    "parameters" (``nn.Parameter(...)``), "module" (``nn.Linear(...)``, a name imported from
    ``torch.nn``, a class of the tree that derives from ``nn.Module``), or "" (anything else: a
    tensor, ``nn.UninitializedBuffer()``, a plain value)."""
    if not isinstance(value, ast.Call):
        return ""
    name = dotted(value.func)
    if not name:
        return ""
    head, _, rest = name.partition(".")
    target = cls.module.imports.get(head)
    full = f"{target}.{rest}" if target and rest else target or name
    parts = full.split(".")
    last = parts[-1]
    if parts[:2] == ["torch", "nn"] and last[:1].isupper() and (len(parts) == 3 or parts[2] in ("modules", "parameter")):
        return "" if last.endswith("Buffer") else "parameters" if last.endswith("Parameter") else "module"
    if target is None or not target.startswith("torch"):
        k = project.resolve_class(cls.module, name)
        if k is not None and not isinstance(k, str) and any(e.kind == "module" for e in facts(k).externals):
            return "module"
    return ""


def library_init_skipped(t) -> list:
    """The PK006 finding of ``t`` when its construction never runs the ``__init__`` of a library
    base read from source (``logging.Handler``, ``json.JSONEncoder``) and a method of that base the
    tree does not override reads what that ``__init__`` would have stored (the red team's
    case135: a ``Handler`` subclass without ``super().__init__()`` fails in ``Logger.callHandlers``)."""
    from ..model import ClassInfo
    from ..scan import ensure_scanned
    init = t.init
    if init is None or init[0].module.external or t.lib_init_ran or t.unknown or t.indirect_init or t.facts.open \
            or t.facts.dynamic:
        return []
    classes = [c for c in t.facts.classes if isinstance(c, ClassInfo)]
    lib = next((c for c in classes if c.module.external and "__init__" in c.methods), None)
    if lib is None or f"{lib.qualname}.__init__" in t.inlined:
        return []
    own = [c for c in classes if not c.module.external]
    overridden = set().union(*(c.methods for c in own)) if own else set()
    given = set().union(*(x.assigned for x in t.terminal)) if t.terminal else set()
    given |= set().union(*(c.class_names for c in own)) if own else set()
    stored = {a for a, locs in ensure_scanned(lib).assigned_in.items() if any(m == "__init__" for m, _ln in locs)}
    missing = stored - given
    reads: set = set()
    for c in classes[classes.index(lib):]:
        if not c.module.external:
            break
        for m, refs in ensure_scanned(c).self_refs.items():
            if m not in overridden and m != "__init__" and not m.startswith("__"):
                reads |= refs & missing
    if not reads:
        return []
    names = ", ".join(f"self.{a}" for a in sorted(reads)[:3]) + (", ..." if len(reads) > 3 else "")
    why = f"{lib.qualname}'s methods read what its __init__ stores ({names}), from {lib.module.rel}"
    return [finding(init[0].module.rel, init[1], t.ci.qualname, lib.qualname, why,
                    "call super().__init__() in __init__")]
