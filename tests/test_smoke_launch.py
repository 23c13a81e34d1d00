"""`patchkit launch --require-signoff` demands a passing cell of the matrix sign-off with the options
of the server command, and names the option that had none (the toy tree, and the real 0.5.12
release, patched)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from patchkit import engine, registry, signoff

ROOT = Path(__file__).resolve().parent.parent
CELL = ["--load-format", "dummy", "--speculative-num-steps", "3", "--speculative-algorithm", "EAGLE3",
        "--speculative-draft-model-path", "{draft}", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4", "--speculative-disable-batch-threshold", "{threshold}",
        "--mem-fraction-static", "0.2"]


def launch(t, so: Path, *server_args):
    # `echo` stands in for the server: launch execs it only when the gate and the cell match pass
    cmd = [sys.executable, "-m", "patchkit", "launch", "--target-dir", str(t.root), "--require-signoff",
           "--signoff", str(so), "--", "echo", "sglang.launch_server", "--model-path", "/models/x", *server_args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})


def test_launch_demands_a_passing_cell_with_the_same_options(sglang_tree, tmp_path):
    t = sglang_tree.make()
    engine.apply(registry.patch("dynamic-spec-disable"), t)
    rec = signoff.build(t, True, {}, {"tp": 1}, [], {}, None)
    # a passing matrix whose cells never ran with --page-size 16 (a record with a failing cell is
    # not a passing sign-off at all: signoff.validate refuses 'passed: true' with one)
    rec["cells"] = [{"name": "eagle3-on", "verdict": "pass", "server_args": CELL},
                    {"name": "eagle3-on-topk2", "verdict": "refused",
                     "server_args": CELL + ["--speculative-eagle-topk", "2"]}]
    so = tmp_path / "signoff.json"
    signoff.write(rec, so)
    ok = launch(t, so, "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "/models/d",
                "--speculative-disable-batch-threshold", "48", "--tp", "1")
    assert ok.returncode == 0, ok.stderr[-1500:]
    assert ok.stdout.startswith("sglang.launch_server --model-path /models/x")
    bad = launch(t, so, "--speculative-algorithm", "EAGLE3", "--speculative-disable-batch-threshold", "48",
                 "--page-size", "16")
    assert bad.returncode == 1 and bad.stdout == ""
    assert "not launching: no passing cell was run with --page-size 16" in " ".join(bad.stderr.split())
    flag_off = launch(t, so, "--speculative-algorithm", "EAGLE3")
    assert flag_off.returncode == 1
    assert "every passing cell sets --speculative-disable-batch-threshold, this launch does not" in \
        " ".join(flag_off.stderr.split())
