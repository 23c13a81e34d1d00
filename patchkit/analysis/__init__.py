"""The attribute-initialization analyzer (``ast``-based; libcst stays the rewriting tool)."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional

from ..ftypes import Finding
from .checker import Analyzer, Settings
from .project import Project

__all__ = ["Analyzer", "Settings", "Project", "analyse_source"]


def analyse_source(rel: str, source: str, root: Optional[Path] = None,
                   overlay: Optional[Mapping[str, str]] = None,
                   settings: Settings = Settings()) -> list[Finding]:
    """Findings for one module's source. ``root`` lets bases in other modules resolve."""
    project = Project(root, dict(overlay or {}))
    mod = project.add_source(rel, source)
    return Analyzer(project, settings).analyse([mod])
