"""attr-init: every ``self.x`` read has an assignment on all construction paths.

The examples below are the check's own valid/invalid cases; tests/test_check_examples.py turns
each into a test and ``patchkit check`` runs the same analyzer.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional

from patchkit.analysis import analyse_source
from patchkit.checks_api import Check
from patchkit.ftypes import Finding

from .attr_init_examples import INVALID, VALID


def files(paths, settings, use_cache: bool):
    """The analyzer over whole files: cached by content hash, bases followed across the package."""
    from patchkit.analysis.runner import analyse_paths
    return analyse_paths(paths, settings, use_cache=use_cache)


def run(rel: str, source: str, root: Optional[Path], overlay: Mapping[str, str]) -> list[Finding]:
    return analyse_source(rel, source, root, overlay)


CHECK = Check(
    name="attr-init",
    description="self.x reads need an assignment on every construction path (catches the wrong-class field bug)",
    run=run,
    valid=VALID,
    invalid=INVALID,
    files=files,
)
