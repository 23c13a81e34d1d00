"""Shared fixtures: real SGLang releases from the package registry (cached), scratch copies."""
from __future__ import annotations

from pathlib import Path

import pytest

from patchkit import target as tgt
from patchkit.ftypes import Target
from patchkit.pipeline import scratch_copy

ROOT = Path(__file__).resolve().parent.parent
#: the patch touches these; the analyzer resolves bases in the speculative package
SUBSET = ("sglang/srt/speculative", "sglang/srt/server_args.py", "sglang/srt/arg_groups",
          "sglang/srt/managers/overlap_utils.py")


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


#: the patch's own miniatures of the files it edits (patches/dynamic_spec_disable/examples): the
#: toy target is built from them, so it needs no network
TOY_FILES = {"sglang/srt/speculative/eagle_worker_v2.py": "worker_argparse",
             "sglang/srt/server_args.py": "server_args_argparse"}
EXAMPLES = ROOT / "patches" / "dynamic_spec_disable" / "examples"


def toy_release(dest: Path, version: str = "0.5.12") -> Target:
    """A tiny fake sglang tree in ``dest`` (no network): the miniature worker and server
    arguments, the package ``__init__`` files and a ``sglang-<version>.dist-info`` naming the
    version. dynamic-spec-disable applies to it (strategy bring-zero-step) and the gate passes."""
    for rel, stem in TOY_FILES.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes((EXAMPLES / f"{stem}_before.py").read_bytes())
    for pkg in ("sglang", "sglang/srt", "sglang/srt/speculative"):
        (dest / pkg / "__init__.py").write_text("")
    info = dest / f"sglang-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sglang\nVersion: {version}\n")
    return tgt.directory(dest, "sglang")


class Tree:
    """A source of fresh writable sglang trees: the toy (offline) or a real release (registry)."""

    def __init__(self, kind: str, tmp_path: Path):
        self.kind, self._tmp, self._n = kind, tmp_path, 0

    def make(self) -> Target:
        """A fresh, unpatched, writable tree."""
        self._n += 1
        dest = self._tmp / f"tree-{self.kind}-{self._n}"
        return toy_release(dest) if self.kind == "toy" else scratch(release(self.kind), dest)

    def pristine(self, rel: str) -> bytes:
        """The unpatched bytes of ``rel`` (what a reinstall of the package puts back)."""
        if self.kind == "toy":
            return (EXAMPLES / f"{TOY_FILES[rel]}_before.py").read_bytes()
        return release(self.kind).file(rel).read_bytes()


@pytest.fixture(params=["toy", pytest.param("0.5.12", marks=pytest.mark.network)])
def sglang_tree(request, tmp_path) -> Tree:
    """Fresh sglang trees to patch: the toy tree (runs offline) and release 0.5.12 (skips
    without the registry)."""
    return Tree(request.param, tmp_path)


@pytest.fixture
def toy_cache(tmp_path, monkeypatch):
    """A patchkit cache of toy releases: ``add("0.5.12")`` makes it this test's
    ``PATCHKIT_CACHE_DIR`` (subprocesses included) and puts a toy tree where ``target.fetch``
    finds it without the registry; ``refused=True`` makes it a release the patch refuses (no
    runtime-state switching)."""
    cache = tmp_path / "cache"

    def add(version: str, refused: bool = False) -> Target:
        monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(cache))
        dest = cache / "releases" / f"sglang-{version}"
        t = toy_release(dest, version)
        if refused:
            w = t.file("sglang/srt/speculative/eagle_worker_v2.py")
            w.write_text(w.read_text().replace("def build_adaptive_runtime_state", "def build_other_state"))
        (dest / ".complete").write_text("toy\n")
        return tgt.fetch(f"sglang=={version}")

    return add


def toy_or_release(toy_cache, source: str, version: str, refused: bool = False) -> Target:
    """``source`` "toy": a toy release of ``version`` in a test cache; otherwise the real release
    (skips without the registry)."""
    return toy_cache(version, refused) if source == "toy" else release(version)


#: parametrize a test over the toy release (offline) and the real one (registry)
SOURCES = pytest.mark.parametrize("source", ["toy", pytest.param("release", marks=pytest.mark.network)])
