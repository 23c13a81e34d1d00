"""What `pip install .` ships: every Python package of the source tree is listed in pyproject.toml
(a non-editable install once left out patchkit.smoke.stages, so `patchkit smoke` could not import its
stages outside the checkout), and the smoke weight hook travels as package data."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_of_the_tree_is_installed():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    dirs = cfg["package-dir"]
    found = set()
    for pkg, folder in dirs.items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            if any(part.startswith((".", "__")) for part in rel.parts):
                continue
            name = ".".join([pkg, *rel.parts]) if rel.parts else pkg
            # fixture trees are data of patchkit.fixtures (package-data), not packages of their own
            if name.startswith("patchkit.fixtures."):
                continue
            found.add(name)
    assert found - listed == set(), f"packages missing from pyproject.toml: {sorted(found - listed)}"


def test_the_weight_hook_is_package_data():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert {"serverhooks/*.py", "models/*.json"} <= set(data.get("patchkit.smoke", []))
    assert (ROOT / "patchkit" / "smoke" / "serverhooks" / "sitecustomize.py").is_file()
