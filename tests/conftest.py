"""Shared fixtures: real SGLang releases from the package registry (cached), scratch copies."""
from __future__ import annotations

from pathlib import Path

import pytest

from patchkit import target as tgt
from patchkit.ftypes import Target
from patchkit.pipeline import scratch_copy

ROOT = Path(__file__).resolve().parent.parent
#: the patch touches these; the analyzer resolves bases in the speculative package
SUBSET = ("sglang/srt/speculative", "sglang/srt/server_args.py", "sglang/srt/arg_groups")


def release(version: str) -> Target:
    """A real SGLang release, fetched (no dependencies) into the patchkit cache once."""
    try:
        return tgt.fetch(f"sglang=={version}")
    except Exception as exc:  # no registry: say so, do not fake
        pytest.skip(f"cannot fetch sglang=={version} from the package registry: {exc}")


def scratch(rel: Target, dest: Path) -> Target:
    """A writable copy of the parts of a release the patch and its checks read."""
    return scratch_copy(rel, dest, SUBSET, dist_info=True)


@pytest.fixture
def sglang_scratch(tmp_path):
    def make(version: str) -> Target:
        return scratch(release(version), tmp_path / f"sglang-{version}")
    return make


@pytest.fixture
def sglang_release():
    """The read-only release itself (for checks that read files outside the scratch subset)."""
    return release


@pytest.fixture
def broken_patches(monkeypatch):
    monkeypatch.setenv("PATCHKIT_PATCH_PATH", str(ROOT / "fixtures" / "broken_patches"))
    return "dynamic-spec-disable-wrong-class"
