"""Schema 2, extended compatibly: a full-size record's config (weights, model_shape, num_layers) and
its ``gpu_memory`` are checked strictly when present, records without them still read; the gate
shows the shape, accepts the record for a launch with the same tp and refuses another tp, naming both
(a tp 2 record built on CPU, signed as the smoke host signs it)."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from patchkit import engine, registry, signoff
from patchkit.ftypes import SignoffError
from patchkit.smoke import fullsize

from test_signoff import ENV, STAGES, good, toy  # noqa: F401  (toy: fixture)

ROOT = Path(__file__).resolve().parent.parent


def gpu_memory(released=True) -> dict:
    return {"source": "nvidia-smi", "interval_s": 0.5, "samples": 120, "released": released,
            "gpus": [{"index": 0, "rank": 0, "baseline_mib": 3, "peak_mib": 121000, "after_mib": 3, "total_mib": 143771},
                     {"index": 1, "rank": 1, "baseline_mib": 3, "peak_mib": 120500, "after_mib": 4, "total_mib": 143771}]}


def full_size(t, tp=2, **kw) -> dict:
    cfg = {"tp": tp, **fullsize.record(fullsize.shape("llama3-70b", 40), tp)}
    rec = signoff.build(t, True, kw.get("env", dict(ENV)), cfg, copy.deepcopy(STAGES),
                        {"time_to_ready_s": 212.4, "first_request_latency_s": 0.61}, None)
    rec["gpu_memory"] = gpu_memory()
    return rec


def test_records_without_the_new_fields_still_read(toy, tmp_path):
    rec = good(toy)
    assert "gpu_memory" not in rec and "weights" not in rec["config"]
    path = tmp_path / "so.json"
    signoff.write(rec, path)
    assert signoff.read(path) == rec and signoff.shape_note(rec) is None


def test_a_full_size_record_round_trips(toy, tmp_path):
    rec = full_size(toy)
    path = tmp_path / "so.json"
    signoff.write(rec, path, key="k")
    back = signoff.read(path)
    assert back["gpu_memory"] == rec["gpu_memory"] and back["config"]["model_shape"] == "llama3-70b"
    assert signoff.shape_note(back) == "dummy weights, full-size shape llama3-70b (40 of 80 layers)"
    assert signoff.mismatch(back, toy, tp=2, key="k", environment=ENV) is None


@pytest.mark.parametrize("mutate, message", [
    (lambda r: r["config"].pop("num_layers"), "'config.weights' needs 'config.num_layers'"),
    (lambda r: r["config"].pop("weights"), "'config.model_shape' needs 'config.weights'"),
    (lambda r: r["config"].update(num_layers="40"), "'config.num_layers' must be int"),
    (lambda r: r["config"].update(num_layers=81), "'config.num_layers' 81 must be 1..80"),
    (lambda r: r["config"].update(weights=None), "'config.weights' must be str"),
    (lambda r: r["gpu_memory"]["gpus"][1].update(peak_mib="120500"), r"'gpu_memory.gpus\[1\].peak_mib' must be int"),
    (lambda r: r["gpu_memory"]["gpus"][1].update(index=0), r"'gpu_memory.gpus\[1\].index' 0 appears twice"),
    (lambda r: r["gpu_memory"]["gpus"][0].update(rank=True), r"'gpu_memory.gpus\[0\].rank' must be int or null"),
    (lambda r: r["gpu_memory"].update(released="yes"), "'gpu_memory.released' must be bool or null"),
    (lambda r: r["gpu_memory"].update(released=False), "'passed' is true but 'gpu_memory.released' is false"),
    (lambda r: r.update(gpu_memory=[]), "'gpu_memory' must be dict"),
])
def test_each_malformed_full_size_field_is_named(toy, mutate, message):
    rec = full_size(toy)
    signoff.validate(copy.deepcopy(rec))
    mutate(rec)
    with pytest.raises(SignoffError, match=message):
        signoff.validate(rec)


def test_a_failed_record_may_say_memory_was_not_released(toy):
    rec = full_size(toy)
    rec.update(passed=False, failure={"stage": "teardown", "message": "GPU memory not released", "location": ""})
    rec["gpu_memory"]["released"] = False
    assert signoff.validate(rec) is rec


# ------------------------------------------------------------------ the gate on a tp 2 record
@pytest.fixture
def patched(sglang_scratch):
    t = sglang_scratch("0.5.12")
    engine.apply(registry.patch("dynamic-spec-disable"), t)
    return t


def _launch(t, so: Path, *server_args, key="s3cret"):
    cmd = [sys.executable, "-m", "patchkit", "launch", "--target-dir", str(t.root), "--require-signoff",
           "--verify-signature", "--signoff", str(so), "--", "echo", "sglang.launch_server", "--model-path",
           "/models/llama-3-70b", *server_args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, signoff.KEY_ENV: key,
                               "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})


@pytest.mark.network
def test_gate_accepts_a_tp2_record_for_tp2_and_refuses_another_tp_naming_both(patched, tmp_path):
    so = tmp_path / "signoff.json"
    signoff.write(full_size(patched, env=signoff.environment_now()), so, key="s3cret")
    ok = _launch(patched, so, "--tp-size", "2")
    assert ok.returncode == 0, ok.stderr[-1500:]
    assert ok.stdout.startswith("sglang.launch_server --model-path /models/llama-3-70b --tp-size 2")
    shown = " ".join(ok.stderr.split())
    assert "tp 2 (signature verified)" in shown
    assert "dummy weights, full-size shape llama3-70b (40 of 80 layers): not a quality check" in shown
    for args, tp in ((("--tp-size", "1"), 1), (("--tp", "8"), 8), ((), 1), (("--tensor-parallel-size=4",), 4)):
        bad = _launch(patched, so, *args)
        err = " ".join(bad.stderr.split())
        assert bad.returncode == 1 and bad.stdout == "", (args, bad.stderr)
        assert f"the sign-off was made with --tp 2, this launch uses --tp {tp}" in err and "not launching" in err
    doc = json.loads(so.read_text())
    doc["config"]["tp"] = 1  # edited after signing to pass a tp 1 launch: the signature catches it
    so.write_text(json.dumps(doc))
    bad = _launch(patched, so, "--tp-size", "1")
    assert bad.returncode == 1 and "does not match the record" in bad.stderr
