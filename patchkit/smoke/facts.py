"""Facts about a release read from its source (``ast`` and text, nothing imported): which worker
class each speculative algorithm gets, which classes inherit the patched one, which SGLang
checker variables exist."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable, Optional

Reader = Callable[[str], Optional[str]]


def folder_reader(root: Path) -> Reader:
    def read(rel: str) -> Optional[str]:
        p = Path(root) / rel
        try:
            return p.read_text(errors="replace")
        except OSError:
            return None
    return read


def class_bases(root: Path, package_dir: str) -> dict[str, list[str]]:
    """Every class defined under ``package_dir`` (relative to ``root``) -> names of its bases."""
    out: dict[str, list[str]] = {}
    base = Path(root) / package_dir
    for path in sorted(base.rglob("*.py")) if base.is_dir() else []:
        try:
            tree = ast.parse(path.read_text(errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = []
                for b in node.bases:
                    if isinstance(b, ast.Name):
                        names.append(b.id)
                    elif isinstance(b, ast.Attribute):
                        names.append(b.attr)
                out.setdefault(node.name, []).extend(names)
    return out


def subclasses(bases: dict[str, list[str]], root_class: str) -> set[str]:
    """``root_class`` and every class that inherits it (transitively, by name)."""
    found = {root_class}
    changed = True
    while changed:
        changed = False
        for cls, bs in bases.items():
            if cls not in found and any(b in found for b in bs):
                found.add(cls)
                changed = True
    return found


def _is_pred_call(test: ast.expr, predicate: str) -> bool:
    return (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == predicate
            and isinstance(test.func.value, ast.Name) and test.func.value.id == "self" and not test.args)


def _returns(stmts: list[ast.stmt], guarded: Optional[bool] = None) -> list[tuple[Optional[bool], str]]:
    """(overlap guard, class name) of every ``return Name`` in ``stmts``: guard True inside
    ``if enable_overlap:``, False after it in the same block, None when no guard was seen."""
    out: list[tuple[Optional[bool], str]] = []
    seen_guard = False
    for s in stmts:
        if isinstance(s, ast.If) and isinstance(s.test, ast.Name) and "overlap" in s.test.id:
            out += _returns(s.body, True)
            out += _returns(s.orelse, False)
            seen_guard = True
            continue
        if isinstance(s, ast.Return) and isinstance(s.value, ast.Name):
            out.append((False if seen_guard else guarded, s.value.id))
    return out


def worker_classes(text: str, predicate: str) -> dict[str, str]:
    """From the worker factory source: {"overlap": cls, "no-overlap": cls} for the branch whose test
    is exactly ``self.<predicate>()`` (a combined test such as ``is_eagle() and multi_layer`` is a
    different branch). Empty when no such branch is found."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_pred_call(node.test, predicate):
            out: dict[str, str] = {}
            for guard, cls in _returns(node.body):
                if guard in (True, None):
                    out.setdefault("overlap", cls)
                if guard in (False, None):
                    out.setdefault("no-overlap", cls)
            if out:  # another method may test the same predicate without returning a class
                return out
    return {}


def names_env(root: Path, names: tuple[str, ...], under: str = "sglang/srt") -> set[str]:
    """Which of ``names`` occur anywhere in the release's source under ``under``."""
    left = set(names)
    found: set[str] = set()
    base = Path(root) / under
    for path in base.rglob("*.py") if base.is_dir() else []:
        if not left:
            break
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for n in list(left):
            if n in text:
                found.add(n)
                left.discard(n)
    return found
