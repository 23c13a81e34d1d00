"""Built-in patches and checks, found by importing ``patchkit.patches`` and ``patchkit.checks``."""
from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
from typing import TYPE_CHECKING

from .ftypes import PluginError, UnknownPatch

if TYPE_CHECKING:
    from .checks_api import Check
    from .patchdef import Patch


def patches() -> dict[str, "Patch"]:
    """Every registered patch by name (each ``patchkit.patches.<x>`` module exposes ``PATCH``)."""
    pkg = importlib.import_module("patchkit.patches")
    out: dict[str, "Patch"] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"patchkit.patches.{info.name}")
        p = getattr(mod, "PATCH", None)
        if p is not None:
            out[p.name] = p
    for mod in _user_modules("PATCHKIT_PATCH_PATH", "patchkit_user_patches"):
        for p in (getattr(mod, "PATCH", None), *getattr(mod, "PATCHES", ())):
            if p is not None:
                out[p.name] = p
    return out


def patch(name: str) -> "Patch":
    known = patches()
    if name not in known:
        import difflib
        near = difflib.get_close_matches(name, list(known), n=1)
        hint = f"; did you mean '{near[0]}'?" if near else f"; known: {', '.join(sorted(known)) or 'none'}"
        raise UnknownPatch(f"no patch named '{name}'{hint}")
    return known[name]


def checks() -> dict[str, "Check"]:
    """Every registered check by name (each ``patchkit.checks.<x>`` module exposes ``CHECK``)."""
    pkg = importlib.import_module("patchkit.checks")
    out: dict[str, "Check"] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"patchkit.checks.{info.name}")
        c = getattr(mod, "CHECK", None)
        if c is not None:
            out[c.name] = c
    for mod in _user_modules("PATCHKIT_CHECK_PATH", "patchkit_user_checks"):
        c = getattr(mod, "CHECK", None)
        if c is not None:
            out[c.name] = c
    from . import rules
    for c in out.values():  # a check's own codes: `explain`, `--select` and SARIF know them
        rules.register(*c.rules)
    return out


def _user_modules(env: str, prefix: str):
    """The packages in the folders on ``$env``; an import failure is one PluginError line naming
    the package, never a traceback."""
    for folder in filter(None, os.environ.get(env, "").split(os.pathsep)):
        for info in pkgutil.iter_modules([folder]):
            where = os.path.join(folder, info.name)
            spec = importlib.util.spec_from_file_location(
                f"{prefix}.{info.name}", os.path.join(where, "__init__.py"))
            if spec is None or spec.loader is None:
                continue
            mod = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(mod)
            except Exception as exc:  # a user's plugin: one line naming it, never a traceback
                raise PluginError(f"{env} plugin {where}: import failed: {type(exc).__name__}: {exc}") from None
            yield mod
