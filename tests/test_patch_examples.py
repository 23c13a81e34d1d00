"""Each patch's own before/after examples (LibCST CodemodTest style), plus after -> after.

Set PATCHKIT_UPDATE_GOLDENS=1 to rewrite the *_after.py files after an intended change."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from patchkit import engine, registry
from patchkit.ftypes import Outcome, Target, TargetKind

CASES = [(p, ex.strategy, ex.files) for p in registry.patches().values() for ex in p.examples]


def _examples_dir(patch) -> Path:
    import importlib
    mod = importlib.import_module(f"patchkit.patches.{patch.name.replace('-', '_')}")
    return Path(mod.__file__).parent / "examples"


@pytest.mark.parametrize("patch,strategy,files", CASES, ids=[f"{p.name}:{s}" for p, s, _ in CASES])
def test_before_after_and_idempotent(tmp_path, patch, strategy, files):
    ex = _examples_dir(patch)
    for rel, stem in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes((ex / f"{stem}_before.py").read_bytes())
    t = Target(patch.distribution, "0.5.12", tmp_path, TargetKind.DIRECTORY)
    r = engine.apply(patch, t)
    assert r.outcome is Outcome.APPLIED and r.strategy == strategy
    for rel, stem in files.items():
        got = (tmp_path / rel).read_text()
        golden = ex / f"{stem}_after.py"
        if os.environ.get("PATCHKIT_UPDATE_GOLDENS"):
            golden.write_text(got)
        assert got == golden.read_text(), f"{rel} differs from {golden.name}"
        compile(got, rel, "exec")
    again = engine.apply(patch, t)
    assert again.outcome is Outcome.ALREADY_APPLIED
    assert all((tmp_path / rel).read_text() == (ex / f"{stem}_after.py").read_text() for rel, stem in files.items())
