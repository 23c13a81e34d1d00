"""Names a package serves lazily (PEP 562): a module-level ``__getattr__`` imports the submodule
that defines a name on first access, from a table of module names written as strings. vedo's
``vedo/visual/__init__.py`` maps ``"vedo.visual.runtime"`` to ``["ImageVisual", ...]`` and serves
them through ``__getattr__``; ``class Image(vedo.visual.ImageVisual)`` then has that class as its
base, though no statement of the package binds the name. scikit-image and others write the same
table for ``lazy_loader.attach(__name__, submod_attrs={"runtime": [...]})`` with relative names.

Only string constants of the package module count, and only those naming a module of the tree
(absolute, or relative to the package) that defines a class of that name: the candidate must be
the class itself, never a guess by name across the tree."""
from __future__ import annotations

import ast
from typing import Optional


def serves_lazily(tree: ast.Module) -> bool:
    """The module defines ``__getattr__`` at its top level (or calls a ``lazy`` attach helper)."""
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__getattr__":
            return True
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Tuple) and any(
                isinstance(e, ast.Name) and e.id == "__getattr__" for e in t.elts) for t in n.targets):
            return True  # ``__getattr__, __dir__, __all__ = lazy.attach(...)``
    return False


def candidate_modules(modname: str, tree: ast.Module, is_package: bool) -> list[str]:
    """The module names the package's string constants may stand for, in source order: an
    undotted name is a submodule of the package (``"runtime"`` -> ``vedo.visual.runtime``, as
    lazy_loader's tables mean it), a leading-dot name is relative to it (``"..core"`` one package
    up), a dotted name is absolute (``"vedo.visual.runtime"``)."""
    out: list[str] = []
    package = modname if is_package else modname.rpartition(".")[0]
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Constant) and isinstance(n.value, str) and 0 < len(n.value) < 200):
            continue
        s = n.value
        body = s.lstrip(".")
        if not body or not all(p.isidentifier() for p in body.split(".")):
            continue
        level = len(s) - len(body)
        if level:
            up = package.split(".")
            if level - 1 >= len(up):
                continue
            base = ".".join(up[:len(up) - (level - 1)])
            out.append(f"{base}.{body}")
        elif "." in body:
            out.append(body)
        elif is_package:
            out.append(f"{package}.{body}")
    return list(dict.fromkeys(out))


def lazy_class(project, m, attr: str):
    """The ClassInfo of ``attr`` that package module ``m`` serves lazily, or None."""
    if "." in attr or attr not in m.source or not serves_lazily(m.tree):
        return None
    for cand in candidate_modules(m.name, m.tree, m.is_package):
        if cand == m.name or not project._in_tree(cand):
            continue
        sub = project.module(cand)
        c: Optional[object] = sub.classes.get(attr) if sub is not None else None
        if c is not None:
            return c
    return None
