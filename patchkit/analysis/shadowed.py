"""Methods an instance attribute hides: construction stores ``self.m = <value>`` on every path, so
``self.m`` finds the instance's value and the method ``m`` of the MRO never runs on this class
(pyx's ``flexlineaxispos_pt.__init__`` stores ``self.vtickpoint_pt = vtickpoint_pt``, a function
it was handed, over ``lineaxispos_pt.vtickpoint_pt``, which reads ``self.x1_pt``: a read that
cannot run there). Only where nothing reaches the method another way: a dunder is looked up on the
type; a decorated method may be a data descriptor (a property's setter takes the store); and any
other load of ``m`` in the MRO (``Base.m(self)``, ``super().m``, ``cb = self.m``, a store whose
value names ``m``: ``self.m = wrap(self.m)``), a class-body alias (``__call__ = m``), a ``del
self.m`` / ``delattr`` (the method comes back), or ``Cls.m`` in a module of the MRO keeps it live.
Not at all where the instance's stores may not land in its ``__dict__``: a library base (torch's
``nn.Module.__setattr__`` keeps submodules elsewhere), a base the analyzer cannot read, or a
``__setattr__`` / ``__getattribute__`` in the MRO."""
from __future__ import annotations

import ast
import re

from .astutil import decorator_name, dotted, fast_walk, first_param, memo_on

_HARMLESS_DECORATORS = {"abstractmethod", "abc.abstractmethod"}


def _uses(classes: list) -> dict[str, bool]:
    """name -> True where some method of ``classes`` reaches ``<name>`` other than by calling
    ``self.<name>(...)`` or storing a value that does not name it."""
    out: dict[str, bool] = {}
    for c in classes:
        if c.module.external:
            continue
        for st in c.node.body:  # class-body aliases: ``__call__ = step``
            if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for n in ast.walk(st):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                        out[n.id] = True
        for fn in c.methods.values():
            me = first_param(fn)
            called = set()
            for n in fast_walk(fn):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                    called.add(id(n.func))
                if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
                    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                    inner = {x.attr for x in fast_walk(n.value) if isinstance(x, ast.Attribute)}
                    for t in targets:
                        if isinstance(t, ast.Attribute) and t.attr in inner:
                            out[t.attr] = True
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Load, ast.Del)):
                    own = isinstance(n.value, ast.Name) and n.value.id == me
                    if not own or id(n) not in called or isinstance(n.ctx, ast.Del):
                        out[n.attr] = True
                if isinstance(n, ast.Call) and (dotted(n.func) or "") == "delattr" and len(n.args) > 1 and \
                        isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
                    out[n.args[1].value] = True
    return out


def _named_on_a_class(classes: list, m: str) -> bool:
    """``Cls.m`` for a class of the MRO, anywhere in the modules that define them (``Base.step(obj)``
    at module level)."""
    names = "|".join(re.escape(c.qualname.split(".")[-1]) for c in classes)
    pat = re.compile(rf"\b(?:{names})\s*\.\s*{re.escape(m)}\b")
    return any(pat.search(c.module.source) for c in classes if not c.module.external)


def shadowed_methods(classes: list, always: frozenset, closed: bool = True) -> frozenset:
    """The method names of ``classes`` (an MRO) that an instance attribute stored on every
    construction path hides from every caller. ``closed``: no base the analyzer cannot read."""
    if not closed or any(c.module.external or "__setattr__" in c.methods or "__getattribute__" in c.methods
                         for c in classes):
        return frozenset()
    names = {m for c in classes if not c.module.external for m in c.methods if m in always
             and not (m.startswith("__") and m.endswith("__"))}
    if not names:
        return frozenset()
    first = {}
    for c in classes:
        for m, fn in c.methods.items():
            first.setdefault(m, (c, fn))
    names = {m for m in names if not first[m][0].module.external and
             all(decorator_name(d) in _HARMLESS_DECORATORS for d in first[m][1].decorator_list)}
    if not names:
        return frozenset()
    uses = memo_on(classes[0], "_pk_shadow_uses", lambda: _uses(classes))
    return frozenset(m for m in names if not uses.get(m) and not _named_on_a_class(classes, m))
