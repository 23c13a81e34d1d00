"""Names a package binds in a function: ``global X`` then ``from m import X`` (rule 1 of session 37,
``analyzer-precision-session37.md`` in ``bench/results/analyzer-precision-history.tar.xz``). Kept
beside ``model.py``, which calls it while it indexes a module's imports."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import own_nodes
from .model import ModuleInfo, _module_level, _resolve_relative


_GLOBAL = re.compile(r"^[ \t]+global[ \t]", re.M)


def global_imports(mod: ModuleInfo, body: list[ast.stmt], name: str, is_package: bool) -> None:
    """A module-level function that declares ``global X`` and imports ``X`` binds the module's ``X``
    once it has run: evennia's ``evennia/__init__.py`` sets ``DefaultObject = None`` and its
    ``_init()`` does ``global DefaultObject; from .objects.objects import DefaultObject``, so
    ``class Wall(evennia.DefaultObject)`` (a class statement that can only run after ``_init()``)
    has that class as its base. Only for a name the module binds nowhere else at its top level but
    to ``None``; the function's first such import in source order, outside ``except`` handlers."""
    lines = {mod.source.count("\n", 0, m.start()) + 1 for m in _GLOBAL.finditer(mod.source)}
    bound: Optional[set] = None
    for fn in body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                not any(fn.lineno <= ln <= (fn.end_lineno or fn.lineno) for ln in lines):
            continue
        bound = _toplevel_bindings(body) if bound is None else bound
        nodes = list(own_nodes(fn))
        declared = {g for n in nodes if isinstance(n, ast.Global) for g in n.names} - bound
        if not declared:
            continue
        handled = {id(n) for h in nodes if isinstance(h, ast.ExceptHandler) for n in own_nodes(h.body)}
        imports = sorted((n for n in nodes if isinstance(n, ast.ImportFrom) and id(n) not in handled),
                         key=lambda n: (n.lineno, n.col_offset))
        for node in imports:
            src = _resolve_relative(name, is_package, node.level, node.module) if node.level else node.module
            for a in node.names:
                got = a.asname or a.name
                if a.name != "*" and src and got in declared and got not in mod.imports:
                    mod.imports[got] = f"{src}.{a.name}"


def _toplevel_bindings(body: list[ast.stmt]) -> set[str]:
    """Names the module's top-level statements bind to anything but ``None`` (classes, functions,
    imports, assignments)."""
    out: set[str] = set()
    for st in _module_level(body):
        if isinstance(st, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(st.name)
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in st.names)
        elif isinstance(st, (ast.Assign, ast.AnnAssign)) and not (
                isinstance(st.value, ast.Constant) and st.value.value is None):
            for t in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                out.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    return out
