"""The attribute-initialization analyzer (``ast``-based; libcst stays the rewriting tool)."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional

from ..ftypes import Finding
from .settings import Settings

__all__ = ["Analyzer", "Settings", "Project", "analyse_source"]


def __getattr__(name: str):
    """``Analyzer`` and ``Project`` load on first use: a run answered from the cache, and the
    report's rule table, never import the analyzer itself."""
    if name == "Analyzer":
        from .checker import Analyzer
        return Analyzer
    if name == "Project":
        from .project import Project
        return Project
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def analyse_source(rel: str, source: str, root: Optional[Path] = None,
                   overlay: Optional[Mapping[str, str]] = None,
                   settings: Settings = Settings()) -> list[Finding]:
    """Findings for one module's source. ``root`` lets bases in other modules resolve; with a
    root, the classes of other modules that inherit from this module's classes (the impact set)
    are judged too, so an edit that breaks a subclass elsewhere is seen here."""
    from .checker import Analyzer
    from .impact import impact_set
    from .injection import new_chunk
    from .project import Project
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
