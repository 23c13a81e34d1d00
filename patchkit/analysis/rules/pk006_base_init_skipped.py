"""PK006 base-init-skipped (default: error). A subclass of `nn.Module`, `threading.Thread` or a library class read from source never runs the base class's `__init__()`.

Logic: ``check`` runs once per class, after the construction walk: a base that keeps its state in
what its own ``__init__`` sets up (``nn.Module``'s registries, ``Thread``'s) and a construction that
never ran it; ``library_init_skipped``: a library base read from source (``logging.Handler``)
whose methods, where the tree does not override them, read what its skipped ``__init__`` stores."""
from __future__ import annotations

import ast
from dataclasses import replace

from ..astutil import dotted

from ...rules import Rule
from .base import finding as _finding
from .examples import pk006 as _examples

RULE = Rule(
    'PK006', 'base-init-skipped', 'error',
    summary="A subclass of `nn.Module`, `threading.Thread` or a library class whose methods read what its "
            "`__init__()` stores never runs the base class's `__init__()`, "
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
    case135: a ``Handler`` subclass without ``super().__init__()`` fails in ``Logger.callHandlers``).
    An error when the subclass only adds hooks (``emit``); a warning when it overrides some of the
    base's methods that read that state (drf's test adapter replaces ``HTTPAdapter.send`` and
    ``close``: it may never reach the rest)."""
    from ..model import ClassInfo
    from ...ftypes import Severity
    init = t.init
    if init is None or init[0].module.external or t.lib_init_ran or t.unknown or t.indirect_init or t.facts.open \
            or t.facts.dynamic:
        return []
    classes = [c for c in t.facts.classes if isinstance(c, ClassInfo)]
    lib = next((c for c in classes if c.module.external and "__init__" in c.methods), None)
    if lib is None or f"{lib.qualname}.__init__" in t.inlined:
        return []
    own = [c for c in classes if not c.module.external]
    if any(_runs_an_init(fn) for c in own for m, fn in c.methods.items() if m != "__init__"):
        return []  # a later set-up runs it (ray's _RemotePdb.listen calls Pdb.__init__): two-phase
    if any(_starred_init(fn) for c in own for fn in c.methods.values()):
        return []  # ``RawOpengl.__init__(*(self, master, cnf))`` (pyopengl): a base initialiser out of the walk's sight
    overridden = set().union(*(c.methods for c in own)) if own else set()
    given = set().union(*(x.assigned for x in t.terminal)) if t.terminal else set()
    given |= set().union(*(c.class_names for c in classes))  # class-level defaults, the library's too (getopt's msg)
    libs = [c for c in classes[classes.index(lib):] if c.module.external]
    ran = _construction(lib, libs)  # the library's own construction: __init__, its helpers and base initialisers
    stored = set().union(*(_self_stores(fn) for fn in ran)) - given
    reads, replaced = set(), False
    for c in classes[classes.index(lib):]:
        if not c.module.external:
            break
        for m, fn in c.methods.items():
            if m in ("__init__", "__new__", "__init_subclass__", "__class_getitem__", "__set_name__", "__del__") \
                    or c.method_kind.get(m) not in ("method", "property") or any(fn is r for r in ran):
                continue  # a static or class method's first parameter is no instance; construction's own helpers
            got = _self_reads(fn) & stored
            if got and m in overridden:
                replaced = True
            elif got:
                reads |= got
    if not reads:
        return []
    # what another method of the library also stores (setLevel, a resolve() context) may be set up
    # that way instead: only a read of what nothing but __init__ stores is sure to fail
    elsewhere = set().union(*(_self_stores(fn) for c in libs for fn in c.methods.values()
                              if all(fn is not r for r in ran)))
    names = ", ".join(f"self.{a}" for a in sorted(reads)[:3]) + (", ..." if len(reads) > 3 else "")
    why = f"{lib.qualname}'s methods read what its __init__ stores ({names}), from {lib.module.rel}"
    if replaced:
        why += "; the subclass overrides some of the methods that read it (it may never reach the others)"
    elif reads <= elsewhere:
        why += f"; other methods of {lib.qualname} store them too (set up another way?)"
    from ..severity import _STAND_IN
    if _STAND_IN.match(t.ci.qualname.split(".")[-1]):
        why += f"; {t.ci.qualname} looks like a test double (it may use none of them)"
    return [finding(init[0].module.rel, init[1], t.ci.qualname, lib.qualname, why, "call super().__init__() in __init__",
                    Severity.WARNING if replaced or reads <= elsewhere or _STAND_IN.match(t.ci.qualname.split(".")[-1])
                    else None)]


def _self_param(fn):
    a = fn.args.posonlyargs + fn.args.args
    return a[0].arg if a else None


def _self_stores(fn) -> set:
    me = _self_param(fn)
    return {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
            and isinstance(n.value, ast.Name) and n.value.id == me}


def _self_reads(fn) -> set:
    """What ``fn`` loads from its instance, outside ``try:`` blocks that catch AttributeError."""
    me = _self_param(fn)
    guarded = {id(n) for t in ast.walk(fn) if isinstance(t, ast.Try) and any(_catches_attr(h.type) for h in t.handlers)
               for st in t.body for n in ast.walk(st)}
    return {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
            and isinstance(n.value, ast.Name) and n.value.id == me and id(n) not in guarded}


def _catches_attr(t) -> bool:
    names = [t] if not isinstance(t, ast.Tuple) else list(t.elts)
    return t is None or any((dotted(x) or "").split(".")[-1] in ("AttributeError", "Exception", "BaseException")
                            for x in names)


def _runs_an_init(fn) -> bool:
    """``fn`` calls ``Base.__init__(self, ...)`` or ``super().__init__(...)``."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__":
            v = n.func.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super":
                return True
            if n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == _self_param(fn):
                return True
    return False


def _construction(lib, libs: list, depth: int = 3) -> list:
    """``lib.__init__`` and what it runs on the instance: ``self.m()`` helpers and base
    initialisers (``Filterer.__init__(self)``, ``super().__init__()``), looked up in ``libs``."""
    out, todo = [], [(lib, lib.methods["__init__"], 0)]
    while todo:
        owner, fn, d = todo.pop()
        if any(fn is f for f in out):
            continue
        out.append(fn)
        if d >= depth:
            continue
        me = _self_param(fn)
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
                continue
            v, name = n.func.value, n.func.attr
            if isinstance(v, ast.Name) and v.id == me:  # self.createLock()
                k = next((c for c in libs if name in c.methods), None)
            elif name == "__init__" and (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super"
                                          or n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == me):
                short = (v.attr if isinstance(v, ast.Attribute) else v.id if isinstance(v, ast.Name) else "")
                after = libs[libs.index(owner) + 1:] if owner in libs else []
                k = next((c for c in after if "__init__" in c.methods and
                          (not short or c.qualname.split(".")[-1] == short)), None)
            else:
                continue
            if k is not None:
                todo.append((k, k.methods[name], d + 1))
    return out


def _starred_init(fn) -> bool:
    """``X.__init__(*args, ...)``: the receiver and the class it runs are not known."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__"
               and n.args and isinstance(n.args[0], ast.Starred) for n in ast.walk(fn))
