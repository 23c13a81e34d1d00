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


def test_merge_joins_side_by_side_jobs_in_table_order(tmp_path):
    """Mutant jobs run side by side on one GPU, each on its own copy of the target; one table results."""
    from patchkit.smoke import mutants as MU
    names = [m.name for m in MU.load_table(ROOT / "fixtures" / "broken_patches" / "spec_disable_mutants" /
                                           "mutants.toml")]
    assert len(names) >= 3
    tgt = {"distribution": "sglang", "version": "0.5.16"}
    a = {"target": tgt, "standin": False, "parallel": 2,
         "rows": [{"mutant": names[2], "verdict": "CAUGHT", "stage": "ready"}]}
    b = {"target": tgt, "standin": False, "parallel": 2,
         "rows": [{"mutant": names[0], "verdict": "CAUGHT", "stage": "soak"},
                  {"mutant": names[1], "verdict": "SURVIVED"}]}
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "smoke_mutants.py"), "--merge", str(pa), str(pb),
                        "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr  # one survivor
    doc = json.loads((tmp_path / "o" / "bench" / "results" / "smoke-mutants-0.5.16.json").read_text())
    assert [x["mutant"] for x in doc["rows"]] == names[:3] and doc["jobs"] == 2
    pb.write_text(json.dumps({**b, "rows": b["rows"][:1]}))
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "smoke_mutants.py"), "--merge", str(pa), str(pb),
                        "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0
    other = {**a, "target": {"distribution": "sglang", "version": "0.5.12"}}
    pa.write_text(json.dumps(other))
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "smoke_mutants.py"), "--merge", str(pa), str(pb),
                        "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "one target version" in r.stderr


def test_a_memory_setup_failure_is_a_harness_error_not_a_catch(tmp_path):
    """On the H200 a mutant's cell died with "Loaded weights leave no GPU memory for the KV cache" (the
    servers of four mutant jobs shared one GPU): that says nothing about the mutant and must not be
    counted as CAUGHT; the table's exit code is 1 until it is re-run."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("smoke_mutants", ROOT / "bench" / "smoke_mutants.py")
    sm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sm)
    assert sm.harness_failure("ready: server exited with code -9: ValueError: Loaded weights leave no GPU memory "
                              "for the KV cache under --mem-fraction-static=0.1.")
    assert not sm.harness_failure("resume-equivalence: request 0 diverges at token 1")
    assert not sm.harness_failure("ready: AttributeError: 'StandaloneWorkerV2' object has no attribute 'x'")
    doc = {"target": {"distribution": "sglang", "version": "0.5.16"}, "standin": False, "parallel": 3,
           "rows": [{"mutant": "a", "verdict": "CAUGHT"}, {"mutant": "b", "verdict": "HARNESS ERROR"}]}
    assert sm.write_table(doc, tmp_path) == 1
    doc["rows"] = doc["rows"][:1]
    assert sm.write_table(doc, tmp_path) == 0
