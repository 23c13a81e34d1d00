"""Command-line behaviour a new user meets in the first hour: config errors, revert wording, the
shared release cache, reversed ranges, smoke without a GPU, the cache command."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from patchkit.cli import main

ROOT = Path(__file__).resolve().parent.parent
WORKER = "sglang/srt/speculative/eagle_worker_v2.py"
SRC = "class A:\n    def __init__(self):\n        self.x = 1\n    def f(self):\n        return self.x\n"


def cli(*args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], **kw)


# ------------------------------------------------------------------------------------ config
@pytest.mark.parametrize("toml,expect", [
    ('[tool.patchkit]\ninitialisers = ["setup"]\n', "has no key 'initialisers'; did you mean 'initializers'?"),
    ('[tool.patchkit]\nunknown-bases = "loud"\n', 'unknown-bases = "loud": expected \'quiet\' or \'strict\''),
    ('[tool.patchkit]\nstrict-two-phase = "yes"\n', 'strict-two-phase = "yes": expected true or false'),
    ('[tool.patchkit]\ninitializers = "setup"\n', "initializers = \"setup\": expected a list of method names"),
    ('[tool.patchkit]\nfail-on = "never"\n', "fail-on = \"never\": expected 'error' or 'warning'"),
    ('[tool.patchkit\ninitializers = []\n', "invalid TOML"),
])
def test_config_errors_are_one_line_with_exit_2(tmp_path, toml, expect):
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "m.py").write_text(SRC)
    r = cli("check", tmp_path / "m.py", "--no-cache")
    assert r.exit_code == 2, r.output
    assert expect in r.stderr and "Traceback" not in r.output
    assert len(r.stderr.strip().splitlines()) == 1 and str(tmp_path / "pyproject.toml") in r.stderr


def test_missing_config_file_and_a_file_without_the_table(tmp_path):
    (tmp_path / "m.py").write_text(SRC)
    r = cli("check", tmp_path / "m.py", "--config", tmp_path / "nope.toml")
    assert r.exit_code == 2 and "--config" in r.stderr and "nope.toml: no such file" in r.stderr
    (tmp_path / "other.toml").write_text('[project]\nname = "x"\n')
    r = cli("check", tmp_path / "m.py", "--config", tmp_path / "other.toml")
    assert r.exit_code == 2 and "has no [tool.patchkit] table" in r.stderr


def test_config_select_and_exclude_apply(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.patchkit]\nignore = ["PK003"]\nexclude = ["gen"]\n')
    (tmp_path / "gen").mkdir()
    bad = "class B:\n    def __init__(self):\n        self.y = 1\n    def g(self):\n        return self.z\n"
    (tmp_path / "gen" / "g.py").write_text(bad.replace("self.z", "self.w + self.y"))
    (tmp_path / "m.py").write_text(bad)
    r = cli("check", tmp_path, "--no-cache")
    assert r.exit_code == 0 and "PK003" not in r.stdout and "1 file(s) excluded" in r.stderr


def test_pytest_plugin_rejects_a_misspelled_key(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.patchkit]\nversion = ["0.5.12"]\n')
    (tmp_path / "m.py").write_text(SRC)
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--patchkit-check", "m.py"],
                       cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert r.returncode == 4 and "has no key 'version'; did you mean 'versions'?" in r.stderr


# ------------------------------------------------------------------------------------ apply / revert
@pytest.mark.network
def test_revert_wording(sglang_scratch):
    t = sglang_scratch("0.5.16")
    r = cli("revert", "dynamic-spec-disable", "--target-dir", t.root)
    assert r.exit_code == 0
    assert r.stdout.strip() == "dynamic-spec-disable: nothing-to-revert on sglang 0.5.16 (no journal entry)"
    assert cli("apply", "dynamic-spec-disable", "--target-dir", t.root).exit_code == 0
    r = cli("revert", "dynamic-spec-disable", "--target-dir", t.root, "--dry-run")
    assert r.exit_code == 1 and "dynamic-spec-disable: would-revert on sglang 0.5.16" in r.stdout
    assert "would-apply" not in r.stdout
    doc = json.loads(cli("revert", "dynamic-spec-disable", "--target-dir", t.root, "--dry-run", "--json").stdout)
    assert doc["outcome"] == "would-revert"
    r = cli("revert", "dynamic-spec-disable", "--target-dir", t.root)
    assert r.exit_code == 0 and r.stdout.startswith("dynamic-spec-disable: reverted on sglang 0.5.16")


@pytest.mark.network
def test_release_cache_is_never_patched_in_place(sglang_release):
    rel = sglang_release("0.5.12")
    before = rel.file(WORKER).read_bytes()
    for cmd in ("apply", "revert"):
        r = cli(cmd, "dynamic-spec-disable", "--release", "sglang==0.5.12")
        assert r.exit_code == 2
        assert "is the shared release cache and is never patched in place" in r.stderr
        assert f"cp -r {rel.root} /tmp/site" in r.stderr
    assert rel.file(WORKER).read_bytes() == before and not (rel.root / ".patchkit").exists()
    r = cli("apply", "dynamic-spec-disable", "--release", "sglang==0.5.12", "--dry-run")
    assert r.exit_code == 1 and "would-apply" in r.stdout  # a dry run only reads
    assert rel.file(WORKER).read_bytes() == before


def test_refused_patch_lists_every_finding(monkeypatch, tmp_path):
    """An apply refused by the check prints the one-line error and then each finding on its own line."""
    import patchkit.api as c
    import patchkit.engine
    from patchkit.ftypes import CheckFailed
    monkeypatch.setattr(c, "all_findings", lambda p, t: ["a.py:1:1: PK003 one", "a.py:2:1: PK003 two"])

    class FakeEngine:
        @staticmethod
        def apply(*a, **k):
            raise CheckFailed("patch x: check failed on the patched code, nothing written: a.py:1:1: PK003 one (+1 more)")
    monkeypatch.setattr(patchkit.engine, "apply", FakeEngine.apply)
    (tmp_path / "sglang").mkdir()
    r = cli("apply", "dynamic-spec-disable", "--target-dir", tmp_path, "--target-version", "0.5.12")
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert lines[0].endswith("(+1 more)") and lines[1:] == ["  a.py:1:1: PK003 one", "  a.py:2:1: PK003 two"]


# ------------------------------------------------------------------------------------ matrix
def test_reversed_version_range_is_an_error():
    r = cli("matrix", "dynamic-spec-disable", "--versions", "0.5.23..0.5.6")
    assert r.exit_code == 2 and "--versions 0.5.23..0.5.6: the range is reversed; write 0.5.6..0.5.23" in r.stderr


@pytest.mark.network
def test_matrix_jobs_give_the_same_rows_as_one_job(sglang_release):
    for v in ("0.5.11", "0.5.12", "0.5.16"):
        sglang_release(v)
    one = json.loads(cli("matrix", "dynamic-spec-disable", "--versions", "0.5.11,0.5.12,0.5.16", "--json").stdout)
    two = json.loads(cli("matrix", "dynamic-spec-disable", "--versions", "0.5.11,0.5.12,0.5.16", "--json", "-j", "2").stdout)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]  # noqa: E731
    assert strip(one) == strip(two) and [r["verdict"] for r in one] == ["refused", "applies", "applies"]


@pytest.mark.network
def test_fetch_hides_pip_output_unless_verbose(tmp_path):
    env = {**os.environ, "PATCHKIT_CACHE_DIR": str(tmp_path / "c"),
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    r = subprocess.run([sys.executable, "-m", "patchkit", "fetch", "sglang==0.5.10"], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        pytest.skip(f"registry unreachable: {r.stderr.strip()[-200:]}")
    assert "Saved" not in r.stderr + r.stdout and "Downloading" not in r.stderr + r.stdout
    assert "downloading sglang==0.5.10" in r.stderr
    (tmp_path / "c" / "releases").rename(tmp_path / "gone")
    for w in (tmp_path / "c" / "wheels").iterdir():
        w.unlink()
    r = subprocess.run([sys.executable, "-m", "patchkit", "fetch", "-v", "sglang==0.5.10"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "Saved" in r.stderr + r.stdout


# ------------------------------------------------------------------------------------ smoke
def test_smoke_without_a_gpu_exits_2_and_writes_nothing(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "sglang" / "srt" / "entrypoints").mkdir(parents=True)  # what a real SGLang has
    (site / "sglang" / "version.py").write_text('__version__ = "0.5.16"\n')
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no nvidia-smi
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    r = cli("smoke", "--target-dir", site, "--tiny", "--no-gate")
    assert r.exit_code == 2
    assert "no NVIDIA GPU on this machine (nvidia-smi not found); nothing booted" in r.stderr
    assert not (site / ".patchkit").exists() and not (work / "smoke-logs").exists()
    assert not (tmp_path / "cache" / "smoke-logs").exists()


# ------------------------------------------------------------------------------------ cache
def test_cache_info_and_clean(tmp_path, monkeypatch):
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "c"))
    rel = tmp_path / "c" / "releases" / "sglang-0.5.12"
    (rel / "sglang").mkdir(parents=True)
    (rel / ".complete").write_text("w\n")
    (rel / "sglang" / "a.py").write_bytes(b"x" * 3000)
    (tmp_path / "c" / "analysis").mkdir()
    (tmp_path / "c" / "analysis" / "p.json").write_bytes(b"{}" * 500)
    doc = json.loads(cli("cache", "info", "--json").stdout)
    parts = {p["part"]: p for p in doc["parts"]}
    assert doc["path"] == str(tmp_path / "c")
    assert parts["releases"]["bytes"] == 3002 and parts["releases"]["releases"] == ["sglang-0.5.12"]
    assert parts["analysis"]["bytes"] == 1000 and doc["bytes"] == 4002
    r = cli("cache", "info")
    assert r.exit_code == 0 and "3.9 KB" in r.stdout and str(tmp_path / "c") in r.stdout
    r = cli("cache", "clean", "analysis")
    assert r.exit_code == 0 and "freed 1000 B" in r.stdout and not (tmp_path / "c" / "analysis").exists() and rel.exists()
    r = cli("cache", "clean", "analyses")
    assert r.exit_code == 2 and "did you mean 'analysis'?" in r.stderr
    assert cli("cache", "clean").exit_code == 0 and not rel.exists()


def test_xdg_cache_home_is_used_when_patchkit_cache_dir_is_unset(tmp_path, monkeypatch):
    monkeypatch.delenv("PATCHKIT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    doc = json.loads(cli("cache", "info", "--json").stdout)
    assert doc["path"] == str(tmp_path / "xdg" / "patchkit")


@pytest.mark.network
def test_field_bug_lists_every_finding_after_the_error(sglang_scratch, broken_patches):
    t = sglang_scratch("0.5.12")
    r = cli("apply", broken_patches, "--target-dir", t.root)
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert lines[0].startswith("error: patch dynamic-spec-disable-wrong-class: check failed on the patched code")
    assert "PK003 self.spec_disable_batch_threshold is read but never assigned in EAGLEWorkerV2" in lines[0]
    listed = lines[1:]
    assert all(ln.startswith("  sglang/srt/speculative/eagle_worker_v2.py:") for ln in listed)
    if "(+" in lines[0]:  # '+N more' always comes with the list of every finding
        assert listed and (any("also column" in ln for ln in listed) or len(listed) > 1)
