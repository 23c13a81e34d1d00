"""One helper for the analyzer tests that need a package on disk (the class model and the
injection index read a tree, not one source): write the files, analyse the package, return its
findings."""
from __future__ import annotations

import textwrap
from pathlib import Path

from patchkit.analysis.runner import analyse_paths


def package_findings(tmp_path: Path, files: dict[str, str], name: str = "pkg") -> list:
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for rel, text in files.items():
        (pkg / rel).write_text(text)
    return [f for rep in analyse_paths([pkg], use_cache=False, jobs=1) for f in rep.findings]


def package_errors(tmp_path: Path, files: dict[str, str]) -> set[tuple[str, str]]:
    """(class, attribute) of the error findings."""
    return {(f.cls, f.attr) for f in package_findings(tmp_path, files) if f.severity == "error"}


def package_keys(tmp_path: Path, files: dict[str, str]) -> set[tuple[str, str, str, str]]:
    """(class, attribute, code, severity) of every finding; the sources are dedented first."""
    return {(f.cls, f.attr, f.code, f.severity.value)
            for f in package_findings(tmp_path, {k: textwrap.dedent(v) for k, v in files.items()})}
