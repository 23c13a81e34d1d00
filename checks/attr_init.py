"""attr-init: every ``self.x`` read has an assignment on all construction paths.

Its rules (PK001-PK006, PK900, PK901) are units of their own in ``patchkit/analysis/rules/``, each
with its docs, logic and examples; the check carries their examples as its valid/invalid cases
(tests/test_check_examples.py turns each into a test; ``patchkit check`` runs the same analyzer).
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional

from patchkit.analysis import analyse_source
from patchkit.checks_api import Check
from patchkit.ftypes import Finding

from patchkit.analysis import rules as _rules


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
    valid=_rules.VALID,
    invalid=_rules.INVALID,
    rules=_rules.ALL,
    files=files,
)
