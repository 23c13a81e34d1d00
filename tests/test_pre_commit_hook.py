"""The pre-commit hook definition is well-formed and its entry runs as pre-commit would run it."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_hook_definition():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "patchkit-check"]
    assert hook["language"] == "python" and hook["types"] == ["python"]
    assert hook["entry"].split()[:2] == ["patchkit", "check"]
    assert {"id", "name", "entry", "language"} <= set(hook)


def test_hook_entry_on_staged_files(tmp_path):
    """pre-commit runs `entry [args] file...`: a staged file with an error fails the commit."""
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("class A:\n    def __init__(self):\n        self.x = 1\n    def f(self):\n        return self.x\n")
    bad.write_text("class B:\n    def __init__(self):\n        self.y = 1\n    def g(self):\n        return self.z\n")
    argv = shlex.split(hook["entry"])
    cmd = [sys.executable, "-m", "patchkit", *argv[1:]]
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    r = subprocess.run([*cmd, "good.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([*cmd, "good.py", "bad.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    lines = r.stdout.splitlines()
    assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("bad.py:5:16: error: PK003 self.z")
