"""Where a file's imports are rooted: the folder above the outermost package holding it (installed
layouts, namespace packages, ``src`` layouts), resolved once per folder."""
from __future__ import annotations

import functools
import os
from pathlib import Path


def import_root(path) -> tuple[Path, str]:
    """The folder above the outermost package holding ``path`` (a Path or a string) and the path
    relative to it."""
    path = os.fspath(path)
    if os.path.islink(path):
        real = Path(path).resolve()
        root = _root_of_folder(real.parent)
        return root, real.relative_to(root).as_posix()
    folder, name = os.path.split(path)
    root, prefix = _folder_root(folder or ".")  # resolved once per folder, not per file
    return root, prefix + name


@functools.lru_cache(maxsize=4096)
def _folder_root(folder: str) -> tuple[Path, str]:
    real = Path(folder).resolve()
    root = _root_of_folder(real)
    rel = real.relative_to(root).as_posix()
    return root, "" if rel == "." else rel + "/"


@functools.lru_cache(maxsize=4096)
def _root_of_folder(folder: Path) -> Path:
    """import_root for every file of ``folder`` (one lookup per folder, not per file)."""
    path = folder / "__pk_probe__.py"
    d = path.parent
    while (d / "__init__.py").is_file() and d.parent != d:
        d = d.parent
    # namespace packages (no __init__.py, as in SGLang's wheels): the nearest folder above that
    # is named site-packages or holds a *.dist-info (an installed layout: every folder between is
    # a namespace package) marks the root; a pyproject.toml does only for a top folder right below
    # it (``repo/sglang/``), never for a src layout (``repo/src/pkg/``: the root is ``src``) or a
    # package deeper in someone's repository
    up = path.parent
    for _ in range(8):
        if up.parent == up:
            break
        installed, project = _marks(up)
        if installed or project:
            parts = path.parent.relative_to(up).parts
            if all(p.isidentifier() for p in parts) and len(parts) >= len(path.parent.relative_to(d).parts) and \
                    (installed or d.parent == up and d.name not in NOT_PACKAGES):
                d = up
            break
        up = up.parent
    return d


@functools.lru_cache(maxsize=4096)
def _marks(folder: Path) -> tuple[bool, bool]:
    """(an installed layout: named site-packages or holding a *.dist-info, holds a pyproject.toml),
    asked once per folder: every package folder below one asks about the same ancestors."""
    try:
        names = os.listdir(folder)
    except OSError:
        return folder.name == "site-packages", False
    return (folder.name == "site-packages" or any(n.endswith(".dist-info") for n in names),
            "pyproject.toml" in names and os.path.isfile(os.path.join(folder, "pyproject.toml")))


#: folders right below a pyproject.toml that hold packages rather than being one
NOT_PACKAGES = frozenset({"src", "lib", "python", "tests", "test", "scripts", "examples", "docs", "benchmarks",
                          "bench", "tools"})
