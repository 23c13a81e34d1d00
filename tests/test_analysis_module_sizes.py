"""Issue 16's structure: each job of the analyzer has its own module, each under 400 lines (a rule
with nowhere natural to live gets a new module, not a longer one). The rules' example corpora
(rules/examples/: valid and invalid snippets, data) are not logic and are not counted."""
from __future__ import annotations

from pathlib import Path

ANALYSIS = Path(__file__).resolve().parent.parent / "patchkit" / "analysis"
LIMIT = 400


def test_every_analyzer_module_is_under_the_limit():
    sizes = {p.relative_to(ANALYSIS).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in sorted(ANALYSIS.rglob("*.py")) if "examples" not in p.relative_to(ANALYSIS).parts}
    assert len(sizes) > 40  # the walk found the package
    over = {k: n for k, n in sizes.items() if n >= LIMIT}
    assert not over, f"split these modules (lines): {over}"
