"""bench/smoke_mutants.py end to end on CPU: the stand-in server simulates each mutant with its
fault; the table says which stage and cell caught it, or SURVIVED (and then the exit code is 1)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "fixtures" / "standin_sglang"
ROW = 'name = "{n}"\nfile = "x.py"\nold = "a"\nnew = "b"\ndescription = "d"\ncatches = "{c}"\nstandin_fault = "{f}"\n'


def test_the_bench_writes_the_table_of_what_caught_each_mutant(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(STANDIN, site, ignore=shutil.ignore_patterns("__pycache__"))
    table = tmp_path / "mutants.toml"
    table.write_text("\n".join("[[mutant]]\n" + ROW.format(n=n, c=c, f=f) for n, c, f in (
        ("never-switch", "threshold-crossings", "no_switch"),
        ("no-restore", "forced-acceptance", "no_restore"),
        ("harmless", "ready", "no_such_fault"))))
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "smoke_mutants.py"), "--target-dir", str(site),
                        "--target-version", "0.5.12", "--standin", "--table", str(table), "--parallel", "3",
                        "--out", str(out), "--log-dir", str(tmp_path / "logs"), "--soak-seconds", "2",
                        "--long-tokens", "200", "--transitions", "2", "--crossings", "2", "--timeout", "30"],
                       capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "STANDIN_V1_WITHOUT_OVERLAP": "1",
                            "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert r.returncode == 1, r.stderr[-2000:]  # one mutant survived
    doc = json.loads((out / "bench" / "results" / "smoke-mutants-0.5.12-standin.json").read_text())
    rows = {row["mutant"]: row for row in doc["rows"]}
    assert rows["never-switch"]["verdict"] == "CAUGHT" and rows["never-switch"]["stage"] == "threshold-crossings"
    assert rows["never-switch"]["as_expected"] and rows["never-switch"]["cell"].endswith("flag=on")
    assert rows["no-restore"]["verdict"] == "CAUGHT" and rows["no-restore"]["stage"] == "forced-acceptance"
    assert rows["harmless"]["verdict"] == "SURVIVED"
    md = (out / "bench" / "results" / "smoke-mutants-0.5.12-standin.md").read_text()
    assert "| harmless | SURVIVED |" in md and "| never-switch | CAUGHT | threshold-crossings |" in md
