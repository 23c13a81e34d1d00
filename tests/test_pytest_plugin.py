"""The pytest plugin on sample projects (pytester, in subprocesses)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import SOURCES, release, toy_or_release

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    # the inner pytest is its own run, not an xdist worker of ours (pytest-benchmark warns on these
    # variables, and -W error would make that warning fatal)
    for var in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(var, raising=False)
    return pytester


def _installed() -> bool:
    from importlib.metadata import entry_points
    return any(ep.value == "patchkit.pytest_plugin" for ep in entry_points(group="pytest11"))


def run(p, *args):
    load = () if _installed() else ("-p", "patchkit.pytest_plugin")
    return p.runpytest_subprocess(*load, "-p", "no:cacheprovider", *args)


def test_check_items_pass_fail_and_show_only_the_finding(project):
    project.makepyfile(good="class A:\n    def __init__(self):\n        self.x = 1\n    def f(self):\n        return self.x\n",
                       bad="class A:\n    def __init__(self, c):\n        if c:\n            self.x = 1\n    def f(self):\n        return self.x\n")
    # bad.py's finding is a warning (a split on a parameter): it fails with fail-on = "warning" only, as in `check`
    r = run(project, "--patchkit-check", "good.py", "--patchkit-check", "bad.py", "--patchkit-no-cache", "-q")
    r.assert_outcomes(passed=3)
    project.makepyprojecttoml('[tool.patchkit]\nfail-on = "warning"\n')
    r = run(project, "--patchkit-check", "good.py", "--patchkit-check", "bad.py", "--patchkit-no-cache", "-q")
    r.assert_outcomes(passed=2, failed=1)
    out = r.stdout.str()
    assert "bad.py:6:16: PK001 self.x may be unassigned when A is used" in out
    assert "Traceback" not in out and "raise PatchkitFailure" not in out


def test_status_item_fails_on_a_file_the_tool_cannot_read(project):
    project.makepyfile(broken="def (:\n")
    r = run(project, "--patchkit-check", "broken.py", "--patchkit-no-cache")
    r.assert_outcomes(failed=2)
    assert "syntax error" in r.stdout.str()


def test_plugin_is_inactive_unless_asked(project):
    project.makepyfile(test_x="def test_ok():\n    assert True\n")
    r = run(project)
    r.assert_outcomes(passed=1)


@pytest.mark.network
def test_patch_items_against_real_releases_and_cache(project):
    release("0.5.12"), release("0.5.16")  # skip (with the reason) where the registry does not answer
    project.makepyprojecttoml('[tool.patchkit]\npatches = ["dynamic-spec-disable"]\nversions = ["0.5.12", "0.5.16"]\n')
    from patchkit.fsutil import cache_dir
    started = time.time_ns()
    r = run(project, "--patchkit", "-v", "--patchkit-no-cache")
    r.assert_outcomes(passed=12)
    out = r.stdout.str()
    assert "patchkit/dynamic-spec-disable::idempotent[0.5.12] PASSED" in out
    assert "patchkit/dynamic-spec-disable::reverts[0.5.16] PASSED" in out
    cached = {f: f.stat().st_mtime_ns for f in (cache_dir() / "pytest").rglob("*") if f.is_file()}
    assert cached, "the first run cached nothing"
    assert sum(m >= started for m in cached.values()) >= 2, "the first run did not write the cache this test reads"
    r2 = run(project, "--patchkit")
    r2.assert_outcomes(passed=12)
    # the second run was served from the cache: nothing recomputed, nothing rewritten
    assert {f: f.stat().st_mtime_ns for f in (cache_dir() / "pytest").rglob("*") if f.is_file()} == cached


@SOURCES
def test_wrong_class_patch_fails_the_checks_item(project, monkeypatch, toy_cache, source):
    toy_or_release(toy_cache, source, "0.5.12")
    monkeypatch.setenv("PATCHKIT_PATCH_PATH", str(ROOT / "fixtures" / "broken_patches"))
    project.makepyprojecttoml('[tool.patchkit]\npatches = ["dynamic-spec-disable-wrong-class"]\nversions = ["0.5.12"]\n')
    r = run(project, "--patchkit", "-v", "--patchkit-no-cache")
    r.assert_outcomes(passed=5, failed=1)
    out = r.stdout.str()
    assert "::checks[0.5.12] FAILED" in out
    assert "PK003 self.spec_disable_batch_threshold is read but never assigned in EAGLEWorkerV2" in out


@SOURCES
def test_drifted_anchor_fails_the_anchor_item(project, toy_cache, source):
    toy_or_release(toy_cache, source, "0.5.11", refused=True)
    project.makepyprojecttoml('[tool.patchkit]\npatches = ["dynamic-spec-disable"]\nversions = ["0.5.11"]\n')
    r = run(project, "--patchkit", "-v", "--patchkit-no-cache")
    out = r.stdout.str()
    assert "::anchors[0.5.11] FAILED" in out and "build_adaptive_runtime_state" in out
    r.assert_outcomes(passed=0, failed=6)  # the later steps say they were not reached
    assert "not reached: an earlier step failed" in out


@pytest.mark.network
def test_xdist_gives_the_same_outcomes(project, sglang_release):
    pytest.importorskip("xdist")
    sglang_release("0.5.12")
    project.makepyprojecttoml('[tool.patchkit]\npatches = ["dynamic-spec-disable"]\nversions = ["0.5.12"]\n')
    r = run(project, "--patchkit", "-n", "2", "--patchkit-no-cache")
    r.assert_outcomes(passed=6)


# ------------------------------------------------------------------ a toy release (offline): every step item, the result cache
def test_patch_items_on_a_toy_release_and_cache(project, toy_cache):
    toy_cache("0.5.12")
    project.makepyprojecttoml('[tool.patchkit]\npatches = ["dynamic-spec-disable"]\nversions = ["0.5.12"]\n')
    r = run(project, "--patchkit", "-v", "--patchkit-no-cache")
    r.assert_outcomes(passed=6)
    out = r.stdout.str()
    for step in ("anchors", "applies", "compiles", "checks", "idempotent", "reverts"):
        assert f"patchkit/dynamic-spec-disable::{step}[0.5.12] PASSED" in out
    r2 = run(project, "--patchkit")
    r2.assert_outcomes(passed=6)
    cached = list((Path(os.environ["PATCHKIT_CACHE_DIR"]) / "pytest").glob("*.json"))
    assert len(cached) == 1 and '"cached"' not in cached[0].read_text()  # one result file, reused


def test_a_mistyped_check_path_is_a_usage_error_not_a_pass(project):
    project.makepyfile(test_x="def test_ok():\n    assert True\n")
    r = run(project, "--patchkit-check", "src/typo.py")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "--patchkit-check src/typo.py: no such file or folder" in r.stderr.str()
    (project.path / "empty").mkdir()
    r = run(project, "--patchkit-check", "empty")
    assert r.ret == pytest.ExitCode.USAGE_ERROR and "no Python files" in r.stderr.str()


def test_marker_is_registered_under_strict_markers_and_warnings_as_errors(project):
    project.makepyfile(good="class A:\n    def __init__(self):\n        self.x = 1\n")
    r = run(project, "--patchkit-check", "good.py", "--strict-markers", "-W", "error", "--patchkit-no-cache")
    r.assert_outcomes(passed=2)
    assert "INTERNALERROR" not in r.stdout.str() + r.stderr.str()
    r = run(project, "--markers")
    assert "@pytest.mark.patchkit:" in r.stdout.str()


def test_node_ids_are_readable_and_the_collected_count_is_what_runs(project):
    (project.path / "src" / "mypkg").mkdir(parents=True)
    (project.path / "src" / "mypkg" / "buggy.py").write_text(
        "class A:\n    def __init__(self):\n        self.x = 1\n    def f(self):\n        return self.y\n")
    project.makepyfile(test_x="def test_ok():\n    assert True\n")
    r = run(project, "--patchkit-check", "src", "-v", "--patchkit-no-cache")
    out = r.stdout.str()
    r.assert_outcomes(passed=2, failed=1)
    assert "src/mypkg/buggy.py::patchkit-check FAILED" in out
    assert "buggy::py" not in out and "::patchkit-check/" not in out
    assert "collected 3 items" in out


# ---------------------------------------------------------------- patch items on a toy release (offline)
def test_patch_items_on_a_toy_release(project, monkeypatch, tmp_path):
    """The six items per (patch, version), a broken patch failing its checks item, and the fail-on
    policy of `check`, with no registry: toy releases in a private cache, toy patches by `patchkit new`."""
    from toytarget import toy_patch, toy_release
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PATCHKIT_PATCH_PATH", str(tmp_path / "patches"))
    for v in ("0.5.12", "0.5.16"):
        toy_release(tmp_path / "cache", v)
    toy_patch(tmp_path / "patches")
    toy_patch(tmp_path / "patches", "toy-broken", "self.toy_c = self.toy_a\n")
    project.makepyprojecttoml('[tool.patchkit]\npatches = ["toy-mark", "toy-broken"]\nversions = ["0.5.12", "0.5.16"]\n')
    r = run(project, "--patchkit", "-v", "--patchkit-no-cache")
    r.assert_outcomes(passed=22, failed=2)
    out = r.stdout.str()
    for v in ("0.5.12", "0.5.16"):
        assert f"patchkit/toy-mark::reverts[{v}] PASSED" in out and f"patchkit/toy-broken::checks[{v}] FAILED" in out
    assert "PK002 self.toy_a is read during construction of ServerArgs before it is assigned" in out
