"""The attribute-initialization analyzer (``ast``-based; libcst stays the rewriting tool)."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional

from ..ftypes import Finding
from .checker import Analyzer, Settings
from .impact import impact_set
from .project import Project

__all__ = ["Analyzer", "Settings", "Project", "analyse_source"]


def analyse_source(rel: str, source: str, root: Optional[Path] = None,
                   overlay: Optional[Mapping[str, str]] = None,
                   settings: Settings = Settings()) -> list[Finding]:
    """Findings for one module's source. ``root`` lets bases in other modules resolve; with a
    root, the classes of other modules that inherit from this module's classes (the impact set)
    are judged too, so an edit that breaks a subclass elsewhere is seen here."""
    from .injection import new_chunk
    new_chunk()  # the tree may have changed since the last call (apply, then check)
    overlay = dict(overlay or {})
    overlay[rel] = source
    project = Project(root, overlay)
    mod = project.add_source(rel, source)
    modules = [mod]
    if root is not None:
        seen = {mod.rel}
        for (r, _q), c in impact_set(project, [(rel, q) for q in mod.classes]).items():
            if r not in seen:
                seen.add(r)
                modules.append(c.module)
    return Analyzer(project, settings).analyse(modules)
