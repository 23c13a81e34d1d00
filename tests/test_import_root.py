"""Where a checked file's import root is: module names (and so every absolute import, and every
base class across modules) depend on it. A wrong root made the cross-module missing-super bug
silent for a package in a src layout (``repo/src/pkg``, pyproject.toml at ``repo``) and for any
package deeper inside a repository that has a pyproject.toml at its top."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from patchkit.analysis import runner
from patchkit.cli import main

BASE = "class Base:\n    def __init__(self, n):\n        self.t = n\n\n    def run(self):\n        return self.t\n"
SUB = "from {pkg}.base import Base\n\n\nclass Sub(Base):\n    def __init__(self, n):\n        self.k = 3\n"


def package(folder: Path, name: str, init: bool = True) -> Path:
    p = folder / name
    p.mkdir(parents=True)
    if init:
        (p / "__init__.py").write_text("")
    (p / "base.py").write_text(BASE)
    (p / "sub.py").write_text(SUB.format(pkg=name))
    return p


@pytest.mark.parametrize("layout, root_parts", [
    ("src", ("repo", "src")),                     # repo/pyproject.toml, repo/src/mypkg/__init__.py
    ("deep", ("repo", "bench", "cases", "b1")),   # a package checked inside someone's repository
    ("flat", ("repo",)),                          # repo/pyproject.toml, repo/mypkg/__init__.py
    ("flat-namespace", ("repo",)),                # repo/pyproject.toml, repo/mypkg/ without __init__.py
    ("installed-namespace", ("venv", "site-packages")),
])
def test_the_cross_module_missing_super_bug_is_found_in_every_layout(tmp_path, layout, root_parts):
    if layout == "src":
        (tmp_path / "repo").mkdir()
        (tmp_path / "repo" / "pyproject.toml").write_text("")
        pkg = package(tmp_path / "repo" / "src", "mypkg")
    elif layout == "deep":
        (tmp_path / "repo").mkdir()
        (tmp_path / "repo" / "pyproject.toml").write_text("")
        pkg = package(tmp_path / "repo" / "bench" / "cases" / "b1", "mypkg")
    elif layout == "flat":
        (tmp_path / "repo").mkdir()
        (tmp_path / "repo" / "pyproject.toml").write_text("")
        pkg = package(tmp_path / "repo", "mypkg")
    elif layout == "flat-namespace":
        (tmp_path / "repo").mkdir()
        (tmp_path / "repo" / "pyproject.toml").write_text("")
        pkg = package(tmp_path / "repo", "mypkg", init=False)
    else:
        site = tmp_path / "venv" / "site-packages"
        pkg = package(site, "mypkg", init=False)
        (site / "mypkg-1.0.dist-info").mkdir()
    root, rel = runner.import_root(pkg / "sub.py")
    assert root == tmp_path.joinpath(*root_parts).resolve() and rel == "mypkg/sub.py"
    res = CliRunner().invoke(main, ["check", str(pkg), "--format", "concise"])
    assert res.exit_code == 1, res.output
    assert "PK003 self.t is read but never assigned in Sub" in res.output and "missing super().__init__()" in res.output
