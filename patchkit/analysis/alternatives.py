"""Module-level names that alternative blocks bind differently (``try:``/``except``, ``if``/``else``,
``if TYPE_CHECKING:``): a base read through such a name may be either binding at run time, so the
class that uses it is open (openness.py). Computed once per module."""
from __future__ import annotations

import ast

from .astutil import is_type_checking
from .external import top_level_present
from .model import ModuleInfo


def alternatives(mod: ModuleInfo) -> dict[str, str]:
    """Module-level names bound differently by alternative blocks (try/except, if/else,
    ``if TYPE_CHECKING``) -> why, computed once per module. A ``try:`` import of a package this
    environment does not have, with an ``except`` import from the module's own package, is no
    alternative: the fallback is what runs (project.fallback_import resolves the base to it), unless
    the ``try:`` names a library base the analyzer knows without its source (then that base)."""
    got = mod.__dict__.get("_alternatives")
    if got is None:
        got = mod.__dict__["_alternatives"] = {}
        _scan_alternatives(mod.tree.body, got)
        own = mod.name.split(".")[0]
        for name in [n for n in got if n in mod.except_imports and n in mod.imports]:
            target, alt = mod.imports[name], mod.except_imports[name]
            if target.split(".")[0] != own and alt.split(".")[0] == own and not top_level_present(target):
                del got[name]
    return got


def _bindings(body: list[ast.stmt]) -> dict[str, str]:
    """name -> what binds it in ``body`` (an imported qualified name, or a kind of binding)."""
    out: dict[str, str] = {}
    for st in body:
        if isinstance(st, ast.Import):
            for a in st.names:
                out[a.asname or a.name.split(".")[0]] = "import " + a.name
        elif isinstance(st, ast.ImportFrom):
            for a in st.names:
                out[a.asname or a.name] = f"import {'.' * st.level}{st.module or ''}.{a.name}"
        elif isinstance(st, ast.ClassDef):
            out[st.name] = f"class at line {st.lineno}"
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            none = isinstance(st.value, ast.Constant) and st.value.value is None
            for t in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                if isinstance(t, ast.Name):
                    out[t.id] = NO_MODULE if none else f"assignment at line {st.lineno}"
    return out


#: a name bound to None by one alternative (``except ImportError: ssl = None``): a base read from it
#: would fail at class creation, so a class that uses it as a base has the other binding
NO_MODULE = "None"


def _differ(a: str, b: str) -> bool:
    return a != b and NO_MODULE not in (a, b) and not _same_module_two_ways(a, b)


def _run_bindings(body: list[ast.stmt]) -> dict[str, str]:
    """``_bindings`` of ``body`` and of the ``try:`` blocks directly in it (an import guarded by a
    fallback still binds the name as imported when it succeeds)."""
    out = _bindings(body)
    for st in body:
        if isinstance(st, ast.Try):
            for k, v in _bindings(st.body).items():
                out.setdefault(k, v)
    return out


def _same_module_two_ways(a: str, b: str) -> bool:
    """Two imports of one name from one module spelled two ways: ``from .sub import X`` or
    ``from pkg.sub import X`` with the fallback ``from sub import X`` (the module run from its own
    folder). The dotted path of one ends with the other's; both name the same object."""
    if not (a.startswith("import ") and b.startswith("import ")):
        return False
    pa, pb = a[len("import "):].lstrip(".").split("."), b[len("import "):].lstrip(".").split(".")
    short, long_ = sorted((pa, pb), key=len)
    return len(short) >= 2 and long_[-len(short):] == short


def _scan_alternatives(body: list[ast.stmt], out: dict[str, str]) -> None:
    for st in body:
        if isinstance(st, ast.If):
            tc = is_type_checking(st.test)
            a, b = _bindings(st.body), _bindings(st.orelse)
            run = _run_bindings(st.orelse) if tc else {}
            for name in a:
                if tc and run.get(name) != a[name]:  # the same import at run time (under a try: aiohttp's ssl) is no stub
                    out[name] = "comes from an `if TYPE_CHECKING:` import (not what runs)"
                elif name in b and _differ(a[name], b[name]):
                    out[name] = f"is bound differently by the branches of the `if` at line {st.lineno}"
            _scan_alternatives(st.body + st.orelse, out)
        elif isinstance(st, ast.Try) or st.__class__.__name__ == "TryStar":
            a = _bindings(st.body)
            for h in st.handlers:
                b = _bindings(h.body)
                for name in a:
                    if name in b and _differ(a[name], b[name]):
                        out[name] = f"has a try/except fallback (line {h.lineno})"
