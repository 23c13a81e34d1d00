"""Whether code of the tree uses a class other than by subclassing it: a call (``Directory()``,
``cascade.Directory()``, ``Directory.empty()``), a value handed on (``KINDS = [Directory]``,
``{"dir": cascade.Directory}``), an import under another name (``import Directory as D``). What
does not count: the class statements that list it as a base, ``isinstance``/``issubclass``,
``super(Directory, self)``, annotations, comparisons, and prose (read from syntax trees, not text).
A class used only by subclassing is a template its subclasses complete (otherclass.py, localclasses
through project.py)."""
from __future__ import annotations

import ast
import re

from .astutil import memo_on


def used_beyond_subclassing(project, ci) -> bool:
    """True when some module of ``ci``'s tree (its own, the in-memory sources, the files on disk)
    uses ``ci``'s name other than in a base list or a type test; computed once per class."""
    def compute() -> bool:
        from .injection import _index_for
        name = ci.qualname.split(".")[-1]
        word = re.compile(rf"\b{re.escape(name)}\b")
        idx = _index_for(project, ci)
        seen_rels = {ci.module.rel}
        trees = [ci.module.tree]
        for rel, text in list(getattr(project, "overlay", {}).items()):
            if rel not in seen_rels and _in_code(word, text):
                seen_rels.add(rel)
                trees.append(_parse(text))
        for rel, text in idx.naming(name):
            if rel not in seen_rels and _in_code(word, text):
                seen_rels.add(rel)
                trees.append(idx.parsed(rel))
        return any(t is not None and _uses(t, name) for t in trees)
    return memo_on(ci, "_pk_used_beyond_subclassing", compute)


def _in_code(word: re.Pattern, text: str) -> bool:
    """``word`` occurs in ``text`` outside a comment (a file is parsed only then)."""
    for m in word.finditer(text):
        if "#" not in text[text.rfind("\n", 0, m.start()) + 1:m.start()]:
            return True
    return False


def _parse(text: str):
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _uses(tree: ast.AST, name: str) -> bool:
    skip: set = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef):
            skip.update(id(x) for b in n.bases for x in ast.walk(b))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.args:
            if n.func.id in ("isinstance", "issubclass") and len(n.args) == 2:
                skip.update(id(x) for x in ast.walk(n.args[1]))
            elif n.func.id == "super":
                skip.update(id(x) for x in ast.walk(n.args[0]))
        elif isinstance(n, (ast.arg, ast.AnnAssign)) and n.annotation is not None:
            skip.update(id(x) for x in ast.walk(n.annotation))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
            skip.update(id(x) for x in ast.walk(n.returns))
        elif isinstance(n, ast.Compare):
            skip.update(id(x) for x in ast.walk(n))
    for n in ast.walk(tree):
        if id(n) in skip:
            continue
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, (ast.Import, ast.ImportFrom)) and any(
                a.asname and a.asname != name and a.name.split(".")[-1] == name for a in n.names):
            return True  # ``from m import Directory as D``: D may be called
    return False
