"""Methods an instance attribute hides: construction stores ``self.m = <value>`` on every path, so
``self.m`` finds the instance's value and the method ``m`` of the MRO never runs on this class
(pyx's ``flexlineaxispos_pt.__init__`` stores ``self.vtickpoint_pt = vtickpoint_pt``, a function
it was handed, over ``lineaxispos_pt.vtickpoint_pt``, which reads ``self.x1_pt``: a read that
cannot run there). Only where nothing reaches the method another way: a dunder is looked up on the
type; a decorated method may be a data descriptor (a property's setter takes the store); and any
other load of ``m`` in the MRO (``Base.m(self)``, ``super().m``, ``cb = self.m``, a store whose
value names ``m``: ``self.m = wrap(self.m)``) keeps it live."""
from __future__ import annotations

import ast

from .astutil import decorator_name, fast_walk, first_param, memo_on

_HARMLESS_DECORATORS = {"abstractmethod", "abc.abstractmethod"}


def _uses(classes: list) -> dict[str, bool]:
    """name -> True where some method of ``classes`` reaches ``<name>`` other than by calling
    ``self.<name>(...)`` or storing a value that does not name it."""
    out: dict[str, bool] = {}
    for c in classes:
        if c.module.external:
            continue
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
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
                    own = isinstance(n.value, ast.Name) and n.value.id == me
                    if not own or id(n) not in called:
                        out[n.attr] = True
    return out


def shadowed_methods(classes: list, always: frozenset) -> frozenset:
    """The method names of ``classes`` (an MRO) that an instance attribute stored on every
    construction path hides from every caller."""
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
    return frozenset(m for m in names if not uses.get(m))
