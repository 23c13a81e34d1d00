"""bench/gpu/smoke_matrix_on_host.sh end to end on CPU: a bundle built from a real cached release
(the files the patch and the matrix read) with the STAND-IN server as sglang.launch_server; the
script unpacks it, applies the patch with patchkit, runs the matrix in the background and packs
the record, the console and one tarball of logs into $OUT."""
from __future__ import annotations

import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest
from bundles import standin_bundle


ROOT = Path(__file__).resolve().parent.parent
CELL_ON = "EAGLE3-overlap=on-cuda-graph=on-topk=1-page=1-draft-extend=keep-flag=on"
CELL_OFF = "EAGLE3-overlap=off-cuda-graph=off-topk=2-page=1-draft-extend=keep-flag=off"


@pytest.mark.network
def test_the_host_script_runs_the_matrix_and_packs_out(sglang_release, tmp_path):
    bundle = standin_bundle(sglang_release("0.5.12"), tmp_path)
    out = tmp_path / "out"
    env = {**os.environ, "OUT": str(out), "WORK_DIR": str(tmp_path / "w"), "SITE_DIR": str(tmp_path / "site"),
           "PARALLEL": "3", "CELLS": f"{CELL_ON} {CELL_OFF}", "WAIT": "300",
           "SMOKE_EXTRA": "--soak-seconds 2 --long-tokens 200 --transitions 2 --crossings 2 --timeout 60"}
    env.pop("PYTHONPATH", None)
    r = subprocess.run(["bash", str(ROOT / "bench" / "gpu" / "smoke_matrix_on_host.sh"), str(bundle)],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=400)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "started matrix on 0.5.12" in r.stdout and "done" in r.stdout
    files = sorted(p.name for p in out.iterdir())
    assert files == ["console-matrix-0.5.12.txt", "logs-matrix-0.5.12.tgz", "signoff-matrix-0.5.12.json"]
    rec = json.loads((out / "signoff-matrix-0.5.12.json").read_text())
    assert rec["passed"] and [c["name"] for c in rec["cells"]] == [CELL_ON, CELL_OFF]
    assert rec["patches"][0]["name"] == "dynamic-spec-disable"  # the journal of the patched site
    assert "smoke rc=0" in (out / "console-matrix-0.5.12.txt").read_text()
    with tarfile.open(out / "logs-matrix-0.5.12.tgz") as tf:
        names = tf.getnames()
    assert any(n.endswith(f"{CELL_ON}/server.log") for n in names)
    assert any(n.endswith("reference/server.log") for n in names)
