"""The smoke harness against a STAND-IN server (fixtures/standin_sglang: not SGLang, a small
HTTP server that speaks the part of the API the harness uses). The real server runs only on
the GPU host (tests/test_gpu_smoke.py)."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from patchkit.ftypes import Target, TargetKind
from patchkit.smoke import logscan
from patchkit.smoke.run import Smoke, SmokeConfig, launch_command
from patchkit.smoke.server import Server, group_members

STANDIN = Path(__file__).resolve().parent.parent / "fixtures" / "standin_sglang"


@pytest.fixture
def standin(tmp_path, monkeypatch) -> Target:
    root = tmp_path / "site"
    shutil.copytree(STANDIN, root)
    monkeypatch.setenv("PYTHONPATH", f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return Target("sglang", "0.5.12", root, TargetKind.DIRECTORY)


def run(standin, tmp_path, crossings=3, **env) -> dict:
    for k, v in env.items():
        os.environ[k] = v
    try:
        cfg = SmokeConfig(str(standin.root), None, 1, 4, crossings, [], timeout=20, log_dir=tmp_path / "logs")
        return Smoke(cfg, standin).run()
    finally:
        for k in env:
            os.environ.pop(k, None)


def test_passing_run_writes_a_complete_record(standin, tmp_path):
    rec = run(standin, tmp_path)
    assert rec["passed"] is True and rec["failure"] is None
    names = [s["name"] for s in rec["stages"]]
    assert names == ["ready", "first-decode", "threshold-crossings", "sampled-decode", "greedy-equivalence",
                     "log-scan", "teardown"]
    cross = next(s for s in rec["stages"] if s["name"] == "threshold-crossings")["detail"]
    assert cross["switches_off"] >= 3 and cross["switches_on"] >= 3
    scan = next(s for s in rec["stages"] if s["name"] == "log-scan")["detail"]
    assert scan["decode_attention"] == "[True, True]"  # the sign-off records which kernels ran
    assert rec["timings"]["time_to_ready_s"] > 0 and rec["timings"]["first_request_latency_s"] > 0
    assert rec["config"]["tp"] == 1 and rec["config"]["threshold"] == 4
    assert (tmp_path / "logs" / "server.log").read_text().startswith("$ ")


def test_crash_at_first_decode_is_reported_with_the_read_location(standin, tmp_path):
    rec = run(standin, tmp_path, STANDIN_CRASH_ON_DECODE="1")
    f = rec["failure"]
    assert rec["passed"] is False and f["stage"] == "first-decode"
    assert "AttributeError: 'EAGLEWorkerV2' object has no attribute 'spec_disable_batch_threshold'" in f["message"]
    assert f["location"].endswith("eagle_worker_v2.py:777 in forward_batch_generation")
    assert next(s for s in rec["stages"] if s["name"] == "teardown")["passed"] is True


def test_crash_on_sampled_disabled_step_fails_sampled_decode(standin, tmp_path):
    # the 0.5.12 dtype bug the H200 benchmark found: greedy stages pass, temperature sampling on
    # the disabled path kills the scheduler
    rec = run(standin, tmp_path, STANDIN_CRASH_ON_SAMPLED_DISABLED="1")
    f = rec["failure"]
    assert f["stage"] == "sampled-decode"
    assert "Expected 'candidates' to be of type long" in f["message"]
    assert f["location"].endswith("eagle_info_v2.py:441 in sample")
    passed = [s["name"] for s in rec["stages"] if s.get("passed")]
    assert "threshold-crossings" in passed and "greedy-equivalence" not in passed


def test_exit_at_start_is_not_a_timeout(standin, tmp_path):
    rec = run(standin, tmp_path, STANDIN_EXIT_AT_START="3")
    assert rec["failure"]["stage"] == "ready"
    assert "exited with code 3" in rec["failure"]["message"]


class WaitDrivenClock:
    """The harness's clock, driven by its own waits: ``sleep(s)`` moves the clock on by ``s`` at
    once (after yielding the CPU for a moment), so a 20 s readiness deadline passes after twenty
    one-second polls of the server instead of twenty seconds of wall time."""

    def __init__(self):
        self.offset = 0.0
        self.slept = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def sleep(self, seconds: float) -> None:
        time.sleep(0.01)
        self.offset += seconds
        self.slept += seconds


def test_never_ready_is_a_timeout(standin, tmp_path, monkeypatch):
    from patchkit.smoke import server as server_mod
    clock = WaitDrivenClock()
    monkeypatch.setattr(server_mod, "time", clock)
    t0 = time.monotonic()
    rec = run(standin, tmp_path, STANDIN_NEVER_READY="1")
    assert clock.slept >= 19  # the harness waited its 20 s on its own clock, polling all along
    assert rec["failure"]["stage"] == "ready" and "not ready after 20s" in rec["failure"]["message"]
    assert time.monotonic() - t0 < 60


def test_disabled_path_never_taken_fails_crossings(standin, tmp_path):
    rec = run(standin, tmp_path, STANDIN_IGNORE_THRESHOLD="1")
    assert rec["failure"]["stage"] == "threshold-crossings"
    assert "OFF=0 ON=0" in rec["failure"]["message"]


def test_teardown_kills_children_that_ignore_sigterm(standin, tmp_path):
    os.environ["STANDIN_SPAWN_CHILD"] = "1"
    try:
        srv = Server(launch_command(SmokeConfig(str(standin.root)), 0)[:3] + ["--port", "0"],
                     tmp_path / "s.log", "http://127.0.0.1:1")
        srv.cmd = [srv.cmd[0], "-m", "sglang.launch_server", "--port", str(_free())]
        srv.start()
        time.sleep(1.5)
        assert len(group_members(srv.proc.pid)) >= 2
        rep = srv.stop(grace=1.0)
    finally:
        os.environ.pop("STANDIN_SPAWN_CHILD")
    assert rep["leftover_pids"] == []
    assert group_members(rep["pgid"]) == []


def _free():
    from patchkit.smoke.run import free_port
    return free_port()


def test_log_scan_finds_the_exception_and_switches():
    text = ("patchkit-spec-disable: ready threshold=4 steps=3\n"
            "patchkit-spec-disable: OFF batch_size=10 threshold=4 switches=1 disabled_steps=0 enabled_steps=3\n"
            "patchkit-spec-disable: ON batch_size=2 threshold=4 switches=2 disabled_steps=5 enabled_steps=3\n"
            "[x] Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/s/scheduler.py", line 10, in run\n'
            '  File "/s/eagle_worker_v2.py", line 790, in forward_batch_generation\n'
            "AttributeError: 'EAGLEWorkerV2' object has no attribute 'x'\n")
    rep = logscan.scan(text)
    assert (rep.switches_off, rep.switches_on, rep.ready) == (1, 1, True)
    assert rep.exception.startswith("AttributeError") and rep.location == "/s/eagle_worker_v2.py:790 in forward_batch_generation"
    assert rep.decode_attention == ""  # a 1.0.x ready line does not say


def test_log_scan_reads_which_kernels_the_disabled_steps_use():
    line = "[t] patchkit-spec-disable: ready threshold=32 steps=3 decode_attention=[True, False]\n"
    assert logscan.scan(line).decode_attention == "[True, False]"
    assert logscan.scan(line.replace("[True, False]", "None")).decode_attention == "None"


def test_launch_command_passes_tp_and_threshold():
    cmd = launch_command(SmokeConfig("/m", "/d", tp=8, threshold=32, server_args=["--x", "1"]), 1234)
    s = " ".join(cmd)
    assert "--tp-size 8" in s and "--speculative-disable-batch-threshold 32" in s
    assert "--speculative-draft-model-path /d" in s and s.endswith("--x 1")
    plain = launch_command(SmokeConfig("/m", server_args=["--speculative-num-steps", "3", "--x", "1"]), 1, speculative=False)
    assert "--speculative-num-steps" not in plain and "--speculative-algorithm" not in plain


def test_cli_smoke_against_the_standin(standin, tmp_path):
    """`patchkit smoke --json` end to end (stand-in server): exit code and record agree."""
    import json as _json
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    so = tmp_path / "so.json"
    r = subprocess.run([sys.executable, "-m", "patchkit", "smoke", "--target-dir", str(standin.root), "--model-path",
                        str(standin.root), "--no-gate", "--crossings", "2", "--threshold", "3", "--timeout", "30",
                        "--log-dir", str(tmp_path / "logs"), "--signoff", str(so), "--json"],
                       capture_output=True, text=True, cwd=root,
                       env={**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert r.returncode == 0, r.stderr[-2000:]
    rec = _json.loads(r.stdout)
    assert rec["passed"] and _json.loads(so.read_text())["created"] == rec["created"]
    assert rec["config"]["threshold"] == 3 and rec["target"] == {"distribution": "sglang", "version": "0.5.12"}
