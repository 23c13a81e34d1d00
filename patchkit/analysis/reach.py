"""Which ``self.<name>`` an instance of a class can ever touch: the names its public methods (the
MRO's first definer of each name) and its construction refer to, followed through the private
helpers they reach, and through ``super().m()`` into the overridden definitions. A base's private
helper outside that set is dead code for the class (litellm's LiteLLMCompletionStreamingIterator
overrides ``__anext__``; the base's ``_next_event`` and the ``_log_completed_response`` it calls are
never run on it)."""
from __future__ import annotations

import ast

from .astutil import fast_walk, is_super
from .scan import ensure_scanned
from .severity import _private


def _calls_super_of(fn: ast.FunctionDef, name: str) -> bool:
    """``fn`` calls ``super().<name>(...)`` (or ``super(X, self).<name>``, or through a local bound to
    ``super()``)."""
    return any(isinstance(n, ast.Attribute) and n.attr == name and is_super(n.value, fn) for n in fast_walk(fn))


def reachable_names(classes: list, inlined: set) -> set[str]:
    """The names ``self.<name>`` that code an instance of the class with MRO ``classes`` can run
    refers to. ``inlined``: ``Class.method`` strings construction walked (they count as run)."""
    defs: dict[str, list] = {}
    for c in classes:
        for m in c.methods:
            defs.setdefault(m, []).append(c)
    todo = [(cs[0], m) for m, cs in defs.items() if not _private(m) and m != "__init__"]
    todo += [(c, m) for c in classes for m in c.methods if f"{c.qualname}.{m}" in inlined]
    seen: set = set()
    got: set[str] = set()
    while todo:
        c, m = todo.pop()
        if (c.key, m) in seen:
            continue
        seen.add((c.key, m))
        refs = ensure_scanned(c).self_refs.get(m, set()) - {m}
        got |= refs
        for r in refs:
            if r in defs and _private(r):
                todo.append((defs[r][0], r))
        chain = defs.get(m, [])
        if c in chain and chain.index(c) + 1 < len(chain) and _calls_super_of(c.methods[m], m):
            todo.append((chain[chain.index(c) + 1], m))
    return got


def forward_bypassed(an, f) -> bool:
    """A torch module whose MRO puts a ``__call__`` of the tree before ``nn.Module``'s, and that
    ``__call__`` never dispatches to ``forward`` (no ``self.forward``, no ``super().__call__``):
    an inherited ``forward`` does not run (torchvision's ``RandomCropVideo`` keeps
    ``RandomCrop.forward`` but is called through its own ``__call__``)."""
    if not any(e.kind == "module" for e in f.externals):
        return False
    got = an.resolve_method(f.linear, "__call__")
    if got is None or got[0].module.external:
        return False
    for n in fast_walk(got[1]):
        if isinstance(n, ast.Attribute) and n.attr in ("forward", "__call__", "_call_impl"):
            return False
        if isinstance(n, ast.Name) and n.id in ("forward",):
            return False
    return True
