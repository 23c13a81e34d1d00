"""`patchkit new NAME`: the scaffold's patch applies to a real release and its own tests pass."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from patchkit.cli import main
from patchkit.pipeline import scratch_copy

ROOT = Path(__file__).resolve().parent.parent


def test_new_writes_a_package_with_a_true_example_pair(tmp_path, monkeypatch):
    monkeypatch.setenv("PATCHKIT_PATCH_PATH", str(tmp_path / "mine"))
    r = CliRunner().invoke(main, ["new", "log-args"])
    assert r.exit_code == 0, r.output
    pkg = tmp_path / "mine" / "log_args"
    assert sorted(p.relative_to(pkg).as_posix() for p in pkg.rglob("*.py")) == [
        "__init__.py", "examples/example_after.py", "examples/example_before.py", "test_log_args.py"]
    after = (pkg / "examples" / "example_after.py").read_text()
    assert "self.patchkit_log_args = True" in after and '"""An example method' in after.split("self.patchkit_log_args")[0]
    r = CliRunner().invoke(main, ["list", "--json"])
    import json
    assert "log-args" in [p["name"] for p in json.loads(r.stdout)["patches"]]
    r = CliRunner().invoke(main, ["new", "log-args"])
    assert r.exit_code == 2 and "already exists" in r.stderr
    r = CliRunner().invoke(main, ["new", "Bad_Name"])
    assert r.exit_code == 2 and "use lower-case words joined by '-'" in r.stderr
    assert not (tmp_path / "mine" / "bad_name").exists()


@pytest.mark.network
def test_scaffolded_patch_applies_to_a_real_release_and_its_tests_pass(tmp_path, sglang_release):
    rel = sglang_release("0.5.16")
    env = {**os.environ, "PATCHKIT_PATCH_PATH": str(tmp_path / "mine"),
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    run = lambda *a, **kw: subprocess.run([sys.executable, *a], capture_output=True, text=True, env=env,  # noqa: E731
                                          cwd=tmp_path, **kw)
    r = run("-m", "patchkit", "new", "mark-args")
    assert r.returncode == 0, r.stderr
    site = tmp_path / "site"
    scratch_copy(rel, site)
    r = run("-m", "patchkit", "apply", "mark-args", "--target-dir", str(site))
    assert r.returncode == 0 and "mark-args: applied on sglang 0.5.16 [insert-at-start]" in r.stdout, r.stderr
    text = (site / "sglang/srt/server_args.py").read_text()
    compile(text, "server_args.py", "exec")
    assert text.count("self.patchkit_mark_args = True") == 1
    r = run("-m", "patchkit", "apply", "mark-args", "--target-dir", str(site))
    assert "already-applied" in r.stdout
    r = run("-m", "patchkit", "revert", "mark-args", "--target-dir", str(site))
    assert r.returncode == 0 and (site / "sglang/srt/server_args.py").read_bytes() == rel.file(
        "sglang/srt/server_args.py").read_bytes()
    r = run("-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "mine" / "mark_args"))
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout[-2000:]
