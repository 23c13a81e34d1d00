"""The CLI end to end (click's CliRunner) against a real release fetched into the cache."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from patchkit.cli import main

WORKER = "sglang/srt/speculative/eagle_worker_v2.py"


def cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.network
def test_dry_run_apply_status_diff_revert(sglang_scratch):
    t = sglang_scratch("0.5.12")
    d = str(t.root)
    before = t.file(WORKER).read_bytes()
    r = cli("apply", "dynamic-spec-disable", "--target-dir", d, "--dry-run")
    assert r.exit_code == 1  # changes pending, like terraform plan -detailed-exitcode
    assert "+        self.spec_disable_batch_threshold = _patchkit_sd.resolve_threshold(server_args)" in r.output
    assert "+++ b/sglang/srt/speculative/patchkit_spec_disable.py" in r.output
    assert t.file(WORKER).read_bytes() == before
    assert cli("apply", "dynamic-spec-disable", "--target-dir", d).exit_code == 0
    r = cli("apply", "dynamic-spec-disable", "--target-dir", d, "--dry-run")
    assert r.exit_code == 0 and "already-applied" in r.output
    r = cli("status", "--target-dir", d, "--json")
    doc = json.loads(r.output)
    assert doc["patches"][0]["state"] == "applied" and doc["patches"][0]["strategy"] == "bring-zero-step"
    r = cli("diff", "dynamic-spec-disable", "--target-dir", d)
    assert r.exit_code == 0 and r.output.startswith("--- a/sglang/srt/")
    assert cli("revert", "dynamic-spec-disable", "--target-dir", d).exit_code == 0
    assert t.file(WORKER).read_bytes() == before


@pytest.mark.network
def test_json_output_is_only_json(sglang_scratch):
    t = sglang_scratch("0.5.16")
    r = CliRunner().invoke(main, ["apply", "dynamic-spec-disable", "--target-dir", str(t.root), "--dry-run", "--json"])
    doc = json.loads(r.stdout)
    assert doc["outcome"] == "would-apply" and doc["strategy"] == "reuse-upstream-zero-step"
    assert "+++ b/sglang/srt/speculative/eagle_worker_v2.py" in doc["diff"]


def test_bad_inputs_are_one_line_errors(tmp_path):
    r = cli("apply", "dynamic-spec-disabl", "--target-dir", str(tmp_path))
    assert r.exit_code == 2 and "no patch named 'dynamic-spec-disabl'; did you mean 'dynamic-spec-disable'?" in r.output
    r = cli("apply", "dynamic-spec-disable", "--target-dir", str(tmp_path / "nope"))
    assert r.exit_code == 2 and "--target-dir" in r.output and "no such folder" in r.output
    r = cli("apply", "dynamic-spec-disable", "--target", "surely-not-installed-dist")
    assert r.exit_code == 2 and "not installed" in r.output
    r = cli("fetch", "sglang>=0.5")
    assert r.exit_code == 2 and "write it as NAME==VERSION" in r.output
    (tmp_path / "sglang").mkdir()
    r = cli("status", "--target-dir", str(tmp_path))
    assert r.exit_code == 2 and "pass --target-version" in r.output
    for res in (r,):
        assert "Traceback" not in res.output


def test_check_formats_and_exit_codes(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("class A:\n    def __init__(self, c):\n        if c:\n            self.x = 1\n    def f(self):\n        return self.x\n")
    good = tmp_path / "good.py"
    good.write_text("class A:\n    def __init__(self):\n        self.x = 1\n")
    r = cli("check", str(good), "--no-cache")
    assert r.exit_code == 0
    r = cli("check", str(bad), "--no-cache", "--fail-on", "warning")
    assert r.exit_code == 1 and f"{bad}:6:16: warning: PK001 self.x may be unassigned when A is used" in r.output
    assert cli("check", str(bad), "--no-cache").exit_code == 0  # a mode-dependent warning; --fail-on error is the default
    r = CliRunner().invoke(main, ["check", str(bad), "--format", "sarif", "--no-cache"])
    doc = json.loads(r.stdout)
    assert doc["version"] == "2.1.0" and doc["runs"][0]["results"][0]["ruleId"] == "PK001"
    assert doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
    r = CliRunner().invoke(main, ["check", str(bad), "--format", "json", "--no-cache"])
    assert json.loads(r.stdout)["findings"][0]["attribute"] == "x"
    # per-line suppression with a code
    bad.write_text(bad.read_text().replace("return self.x", "return self.x  # patchkit: ignore[PK001]"))
    r = cli("check", str(bad), "--no-cache", "--fail-on", "warning")
    assert r.exit_code == 0 and "PK001" not in r.stdout


def test_check_config_initializers(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.patchkit]\ninitializers = ["setup"]\n')
    src = tmp_path / "m.py"
    src.write_text("class A:\n    def setup(self):\n        self.x = 1\n    def f(self):\n        return self.x\n"
                   "class B:\n    def __init__(self):\n        self.y = 1\n    def f(self):\n        return self.y + self.z\n")
    r = cli("check", str(src), "--no-cache")
    assert r.exit_code == 1 and "self.z" in r.output and "self.x" not in r.output
    r = cli("check", str(src), "--no-cache", "--strict")
    assert "self.z" in r.output


def test_list_shows_builtin_patch_and_check():
    doc = json.loads(CliRunner().invoke(main, ["list", "--json"]).stdout)
    assert [p["name"] for p in doc["patches"]] == ["dynamic-spec-disable"]
    assert [c["name"] for c in doc["checks"]] == ["attr-init"]


def test_two_phase_read_is_a_warning_and_only_errors_hides_it(tmp_path):
    src = tmp_path / "client.py"
    src.write_text("class Client:\n    def __init__(self, url):\n        self.url = url\n"
                   "    def connect(self):\n        self.sock = object()\n"
                   "    def close(self):\n        self.sock.close()\n"
                   "    def name(self):\n        return self.nme\n")
    r = CliRunner().invoke(main, ["check", str(src), "--no-cache"])
    assert r.exit_code == 1
    assert "warning: PK004 self.sock is only assigned outside construction of Client" in r.stdout
    assert "PK003 self.nme" in r.stdout
    r = CliRunner().invoke(main, ["check", str(src), "--no-cache", "--only-errors", "--fail-on", "error"])
    assert r.exit_code == 1 and "PK004" not in r.stdout and "PK003 self.nme" in r.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.patchkit]\ninitializers = ["connect"]\n')
    r = CliRunner().invoke(main, ["check", str(src), "--no-cache"])
    assert "PK004" not in r.stdout
