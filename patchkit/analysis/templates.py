"""Code-generation templates: a module that another module of its folder says it was generated
from (``This file was automatically generated from .../modular_gemma2.py``, the transformers
modular converter's header). The template is the converter's input, never imported: it uses
markers such as ``nn.Module.__init__()`` (skip the parent's initialiser) and ``del self.x``
(drop an inherited attribute) that mean something to the converter, not to Python. Its classes
are not the classes that run (the generated ones are, and they are judged on their own), so
findings on them are info-level, with the generated file named. Classes declared only under
``if TYPE_CHECKING:`` never run either."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Optional

from .astutil import block_statements, is_type_checking

#: how much of a generated file's head is searched for its source's name
HEAD_BYTES = 4096
_GENERATED_FROM = re.compile(r"generated\s+(?:automatically\s+)?from\s+\S*?([A-Za-z_][\w]*\.py)\b", re.I)


def _generated_from(folder: Path) -> dict[str, str]:
    """{template file name: a generated file that names it} for the .py files of ``folder``."""
    out: dict[str, str] = {}
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".py" and p.is_file())
    except OSError:
        return out
    for p in files:
        try:
            with p.open("rb") as fh:
                head = fh.read(HEAD_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        m = _GENERATED_FROM.search(head)
        if m and m.group(1) != p.name:
            out.setdefault(m.group(1), p.name)
    return out


def template_of(root: Optional[Path], rel: str, cache: dict) -> Optional[str]:
    """Why the tree module at ``rel`` is a code-generation template (None when it is not):
    a sibling file's header says it was generated from it. ``cache`` keeps one scan per folder."""
    if root is None:
        return None
    parts = Path(rel)
    folder = root / parts.parent
    key = str(folder)
    if key not in cache:
        cache[key] = _generated_from(folder)
    gen = cache[key].get(parts.name)
    if gen is None:
        return None
    return f"{parts.name} is a code-generation template ({gen} is generated from it; the template is never imported)"


def type_checking_only(mod, node) -> bool:
    """The class statement ``node`` sits in an ``if TYPE_CHECKING:`` block of ``mod``: a stub for
    the type checker, never executed (its ``def __init__(...) -> None: ...`` is a declaration)."""
    got = mod.__dict__.get("_tc_classes")
    if got is None:
        got = mod.__dict__["_tc_classes"] = set()
        todo = list(mod.tree.body)
        while todo:  # module-level blocks only (classes declared inside functions are not stubs)
            st = todo.pop()
            if isinstance(st, ast.If) and is_type_checking(st.test):
                got |= {id(n) for b in st.body for n in ast.walk(b) if isinstance(n, ast.ClassDef)}
            elif isinstance(st, (ast.If, ast.Try)):
                todo += block_statements(st)
    return id(node) in got
