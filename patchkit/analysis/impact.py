"""The impact set of an edit: every class of the tree whose MRO contains an edited class (the
edited classes themselves included), found through the project's class index."""
from __future__ import annotations

from typing import Iterable

from .model import ClassInfo
from .project import Project, module_name_for


def impact_set(project: Project, edited: Iterable[tuple[str, str]]) -> dict[tuple[str, str], ClassInfo]:
    """(rel path, class qualname) of each edited class -> the same key for every class that
    inherits from one of them, anywhere in the project's tree, mapped to its ClassInfo."""
    out: dict[tuple[str, str], ClassInfo] = {}
    todo: list[ClassInfo] = []
    for rel, qual in edited:
        m = project.module(module_name_for(rel), external=False)
        c = m.classes.get(qual) if m is not None else None
        if c is not None:
            todo.append(c)
    while todo:
        c = todo.pop()
        key = (c.module.rel, c.qualname)
        if key in out:
            continue
        out[key] = c
        todo += project.subclasses(c)
    return out
