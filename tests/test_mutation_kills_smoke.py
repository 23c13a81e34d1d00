"""Kills the smoke-harness mutant the suite let live (issue 21, item 7): a server process that
survives the teardown must fail the teardown stage and the run. The fault is injected: the kill
signals have no effect (as for a process stuck in the kernel or owned by another user), with a
clock that runs ahead so the teardown's grace periods pass at once."""
from __future__ import annotations

import itertools
import os
import shutil
import signal
import sys
import types
from pathlib import Path

import pytest

from patchkit.ftypes import Target, TargetKind
from patchkit.smoke import server as server_mod
from patchkit.smoke.run import Smoke, SmokeConfig
from patchkit.smoke.server import Server, group_members

STANDIN = Path(__file__).resolve().parent.parent / "fixtures" / "standin_sglang"


@pytest.fixture
def unkillable(monkeypatch):
    """While active: os.kill / os.killpg do nothing and the server module's clock jumps 1 s per read."""
    clock = itertools.count(start=1_000_000.0, step=1.0)
    fake_time = types.SimpleNamespace(monotonic=lambda: next(clock), sleep=lambda s: None)
    sent: list[tuple[int, int]] = []

    def on():
        monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))
        monkeypatch.setattr(os, "killpg", lambda pgid, sig: sent.append((-pgid, sig)))
        monkeypatch.setattr(server_mod, "time", fake_time)

    return types.SimpleNamespace(on=on, off=monkeypatch.undo, sent=sent)


def _really_kill(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _sleeper(tmp_path) -> Server:
    srv = Server([sys.executable, "-c", "import time; time.sleep(120)"], tmp_path / "s.log", "http://127.0.0.1:1")
    srv.start()
    return srv


def test_stop_reports_a_process_that_survives_the_kill(tmp_path, unkillable):
    srv = _sleeper(tmp_path)
    pid = srv.proc.pid
    try:
        unkillable.on()
        rep = srv.stop(grace=5.0)
        unkillable.off()
        assert rep["pgid"] == pid and rep["exit_code"] is None
        assert pid in rep["leftover_pids"]
        assert (-pid, signal.SIGTERM) in unkillable.sent and (-pid, signal.SIGKILL) in unkillable.sent
    finally:
        unkillable.off()
        _really_kill(pid)
        srv.proc.wait(10)
    assert group_members(pid) == []


def test_stop_of_a_killable_process_leaves_nothing(tmp_path):
    srv = _sleeper(tmp_path)
    try:
        rep = srv.stop(grace=5.0)
    finally:
        _really_kill(srv.proc.pid)
    assert rep["leftover_pids"] == [] and rep["exit_code"] == -signal.SIGTERM
    assert Server([], tmp_path / "x.log", "").stop() == {"pgid": None, "leftover_pids": [], "exit_code": None}


def _smoke(target: Target, tmp_path) -> Smoke:
    cfg = SmokeConfig(str(target.root), None, 1, 4, 3, [], timeout=20, log_dir=tmp_path / "logs",
                      stages=("ready",), gpu_check=False)
    return Smoke(cfg, target)


@pytest.fixture
def standin(tmp_path, monkeypatch) -> Target:
    root = tmp_path / "site"
    shutil.copytree(STANDIN, root)
    monkeypatch.setenv("PYTHONPATH", f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return Target("sglang", "0.5.12", root, TargetKind.DIRECTORY)


def test_teardown_stage_fails_on_leftover_processes(tmp_path, standin, unkillable):
    """Kills: leftover server processes not failing the smoke teardown (run.py ``_teardown``)."""
    smoke = _smoke(standin, tmp_path)
    srv = _sleeper(tmp_path)
    pid = srv.proc.pid
    try:
        unkillable.on()
        detail = smoke._teardown(srv, None)
        unkillable.off()
    finally:
        unkillable.off()
        _really_kill(pid)
        srv.proc.wait(10)
    assert detail["clean"] is False and pid in detail["leftover_pids"]
    assert detail["message"] == f"leftover processes {detail['leftover_pids']}"
    assert smoke.stages[-1]["name"] == "teardown" and smoke.stages[-1]["passed"] is False


def test_a_run_whose_server_survives_teardown_fails_at_teardown(tmp_path, standin, unkillable, monkeypatch):
    real_stop = Server.stop
    groups = []

    def stop(self, grace=15.0):
        groups.append(self.proc.pid)
        unkillable.on()
        try:
            return real_stop(self, grace)
        finally:
            unkillable.off()

    monkeypatch.setattr(Server, "stop", stop)
    try:
        smoke = _smoke(standin, tmp_path)
        out = smoke.run_cell()
    finally:
        for g in groups:
            _really_kill(g)
    assert groups, "the run never stopped its server"
    assert out["passed"] is False and out["verdict"] == "fail"
    assert out["failure"]["stage"] == "teardown" and "leftover processes" in out["failure"]["message"]
    assert [s["name"] for s in smoke.stages] == ["ready", "teardown"]
    assert smoke.stages[0]["passed"] is True and smoke.stages[1]["passed"] is False


def test_a_clean_run_passes_its_teardown_and_builds_the_record(tmp_path, standin):
    smoke = _smoke(standin, tmp_path)
    rec = smoke.run()
    assert rec["passed"] is True and rec["failure"] is None
    assert [s["name"] for s in rec["stages"]] == ["ready", "teardown"]
    td = rec["stages"][-1]
    assert td["passed"] is True and td["detail"]["leftover_pids"] == [] and td["detail"]["clean"] is True
    assert rec["config"]["tp"] == 1 and rec["config"]["threshold"] == 4 and rec["config"]["model_path"] == str(standin.root)
    assert rec["target"] == {"distribution": "sglang", "version": "0.5.12"}
    assert {"time_to_ready_s", "total_s"} <= set(rec["timings"])  # recorded for the reader; speed lives in bench/
    assert smoke.command[smoke.command.index("--port") + 1] == smoke.base.rsplit(":", 1)[1]
    assert (tmp_path / "logs" / "server.log").read_text().startswith("$ ")


def test_a_server_that_exits_at_start_fails_ready_with_its_code(tmp_path, standin):
    smoke = _smoke(standin, tmp_path)
    smoke.cfg.env = {"STANDIN_EXIT_AT_START": "2"}
    out = smoke.run_cell()
    assert out["passed"] is False and out["verdict"] == "fail"
    assert out["failure"]["stage"] == "ready" and out["failure"]["message"].startswith("server exited with code 2")
    assert "failing at start on purpose" in out["failure"]["message"]


def test_a_cancelled_cell_stops_before_its_next_stage(tmp_path, standin):
    import threading
    smoke = _smoke(standin, tmp_path)
    smoke.cfg.stages = ("ready", "first-decode")
    smoke.cfg.cancel = threading.Event()
    smoke.cfg.cancel.set()
    out = smoke.run_cell()
    assert out["verdict"] == "cancelled" and out["passed"] is False
    assert out["failure"] == {"stage": "first-decode", "message": "cancelled: another cell failed first", "location": ""}
    assert [s["name"] for s in smoke.stages] == ["ready", "teardown"] and smoke.stages[-1]["passed"] is True


def test_a_given_command_gets_the_cell_port(tmp_path, standin):
    smoke = _smoke(standin, tmp_path)
    smoke.cfg.port = _free_port()
    cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path", str(standin.root), "--host", "127.0.0.1",
           "--port", "1", "--tp-size", "1"]
    out = smoke.run_cell(list(cmd))
    assert out["passed"] is True
    assert smoke.command[smoke.command.index("--port") + 1] == str(smoke.cfg.port)
    assert smoke.base == f"http://127.0.0.1:{smoke.cfg.port}"


def _free_port() -> int:
    from patchkit.smoke.run import free_port
    return free_port()


def test_compare_no_spec_runs_a_reference_server_and_compares(tmp_path, standin):
    smoke = _smoke(standin, tmp_path)
    smoke.cfg.stages = ("ready", "greedy-equivalence")
    smoke.cfg.compare_no_spec = True
    out = smoke.run_cell()
    names = [s["name"] for s in smoke.stages]
    assert names == ["ready", "greedy-equivalence", "teardown", "no-spec-equivalence"], smoke.stages
    nospec = smoke.stages[-1]
    assert out["passed"] is True and nospec["passed"] is True
    assert nospec["detail"]["identical"] + len(nospec["detail"]["divergences"]) == 6
    assert (tmp_path / "logs" / "server-nospec.log").read_text().startswith("$ ")
    assert "--speculative-algorithm" not in (tmp_path / "logs" / "server-nospec.log").read_text().splitlines()[0]
