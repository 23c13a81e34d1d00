"""Modules outside the analysed tree, read from the installed environment by path (never
imported): a stdlib or third-party base's ``__init__`` then counts like one of the tree's own.
Parsed modules are cached per process by (path, size, mtime)."""
from __future__ import annotations

import ast
import os
import sys
from pathlib import Path
from typing import Optional

from .model import ModuleInfo, build_module

#: a library file larger than this is not read (a generated table, a vendored blob)
MAX_BYTES = 2_000_000
_CACHE: dict[tuple, Optional[ModuleInfo]] = {}
_PATHS: dict[str, Optional[tuple[Path, bool]]] = {}


def search_path() -> list[str]:
    """The folders a top-level package may live in: ``sys.path`` of this interpreter, minus the
    current folder (the tree being analysed is often there)."""
    return [p for p in sys.path if p and os.path.isdir(p) and os.path.abspath(p) != os.getcwd()]


def find_source(name: str) -> Optional[tuple[Path, bool]]:
    """(source file, is_package) of the module ``name`` on the search path, found by path only."""
    if name in _PATHS:
        return _PATHS[name]
    parts = name.split(".")
    found = None
    for entry in search_path():
        base = Path(entry).joinpath(*parts)
        if (base / "__init__.py").is_file():
            found = (base / "__init__.py", True)
            break
        if base.with_suffix(".py").is_file() if parts else False:
            found = (base.with_suffix(".py"), False)
            break
        if base.is_dir() and len(parts) > 1:
            continue  # a namespace package: keep looking in later entries, submodules resolve by path
    _PATHS[name] = found
    return found


_PRESENT: dict = {}


def top_level_present(name: str) -> bool:
    """Whether the top-level package of ``name`` can be imported here at all: a package folder, a
    module file or a compiled extension on the search path, or a module built into the interpreter.
    Found by path, never imported. ``try: from fast_impl import Engine / except ImportError: from
    .engine import Engine`` runs the fallback where this is false."""
    top = name.split(".")[0]
    got = _PRESENT.get(top)
    if got is None:
        got = top in sys.builtin_module_names or any(
            (Path(e) / top).is_dir() or (Path(e) / f"{top}.py").is_file() or any(Path(e).glob(f"{top}.*so"))
            or any(Path(e).glob(f"{top}.*pyd")) for e in search_path())
        _PRESENT[top] = got
    return got


def external_module(name: str) -> Optional[ModuleInfo]:
    """The parsed library module ``name``, or None when there is no readable source for it."""
    hit = find_source(name)
    if hit is None:
        return None
    path, is_pkg = hit
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key in _CACHE:
        return _CACHE[key]
    mod = None
    if st.st_size <= MAX_BYTES:
        try:
            text = path.read_text(encoding="utf-8-sig", errors="replace")
            tree = ast.parse(text, filename=str(path))
            rel = name.replace(".", "/") + ("/__init__.py" if is_pkg else ".py")
            mod = build_module(name, rel, tree, text, is_package=is_pkg)
            mod.external = True
        except (SyntaxError, ValueError, RecursionError, OSError):
            mod = None
    _CACHE[key] = mod
    return mod
