"""The smoke server wrapper (patchkit/smoke/server.py) against real child processes and a tiny
in-thread HTTP server, fast enough for bench/mutation.py to run per mutant. GPU readings are
injected (no GPU here); the clock is faked where the code waits."""
from __future__ import annotations

import http.server
import itertools
import json
import subprocess
import sys
import threading
import types

import pytest

from patchkit.smoke import server as S


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"path": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        got = json.loads(self.rfile.read(n) or b"{}")
        body = json.dumps({"echo": got, "type": self.headers.get("Content-Type")}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


@pytest.fixture
def http_server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def test_http_json_gets_and_posts(http_server):
    assert S.http_json(f"{http_server}/get_model_info") == {"path": "/get_model_info"}
    assert S.http_json(f"{http_server}/generate", {"a": [1]}) == {"echo": {"a": [1]}, "type": "application/json"}


def test_wait_ready_returns_once_the_server_answers(tmp_path, http_server):
    srv = S.Server([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path / "logs" / "s.log", http_server)
    srv.start()
    try:
        assert srv.alive()
        assert srv.wait_ready(30) >= 0
        assert srv.tail().startswith(f"$ {sys.executable} -c")  # the log starts with the exact command
    finally:
        rep = srv.stop(grace=5)
    assert not srv.alive() and rep["leftover_pids"] == []


def test_wait_ready_tells_an_exit_from_a_timeout(tmp_path):
    code = "import sys; print('boom line'); sys.stdout.flush(); sys.exit(3)"
    srv = S.Server([sys.executable, "-c", code], tmp_path / "s.log", "http://127.0.0.1:9")
    srv.start()
    srv.proc.wait(30)
    with pytest.raises(S.ServerExited) as info:
        srv.wait_ready(30)
    assert info.value.code == 3 and "boom line" in info.value.tail
    assert str(info.value) == "server exited with code 3 before it was ready"
    srv.stop()


def test_wait_ready_times_out_and_ticks(tmp_path, monkeypatch):
    clock = itertools.count(start=100.0, step=1.0)
    monkeypatch.setattr(S, "time", types.SimpleNamespace(monotonic=lambda: next(clock), sleep=lambda s: None))
    srv = S.Server([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path / "s.log", "http://127.0.0.1:9")
    srv.start()
    ticks = []
    try:
        with pytest.raises(S.ServerTimeout, match="server not ready after 6s"):
            srv.wait_ready(6, ticks.append)
    finally:
        monkeypatch.undo()
        srv.stop(grace=5)
    assert ticks and all(t > 0 for t in ticks)


def test_tail_keeps_the_last_lines_and_survives_a_missing_log(tmp_path):
    srv = S.Server(["x"], tmp_path / "s.log", "")
    assert srv.tail() == ""
    (tmp_path / "s.log").write_text("".join(f"l{i}\n" for i in range(50)))
    assert srv.tail(3) == "l47\nl48\nl49"
    assert srv.tail().splitlines()[0] == "l10"
    assert not srv.alive()


def test_process_tree_helpers_follow_a_real_tree(tmp_path):
    code = ("import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']); "
            "print('up', flush=True); time.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "up"
        kids = S.descendants(proc.pid)
        assert len(kids) == 1 and S._alive(kids[0]) and S._alive(proc.pid)
        assert sorted(S.group_members(proc.pid)) == sorted([proc.pid] + kids)
        assert any(p == proc.pid for p, _pp, _g in S._proc_table())
    finally:
        import os
        import signal
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    import time
    for _ in range(200):  # the orphaned grandchild dies asynchronously after the SIGKILL
        if not S.group_members(proc.pid):
            break
        time.sleep(0.05)
    assert not S._alive(proc.pid) and S.group_members(proc.pid) == []
    assert S._alive(2 ** 22 + 12345) is False


def test_gpu_memory_is_parsed_from_nvidia_smi(monkeypatch):
    seen = {}

    def fake_run(cmd, **kw):
        seen["cmd"] = cmd
        return subprocess.CompletedProcess(cmd, 0, stdout="1024\n 2048 \n\nN/A\n", stderr="")

    monkeypatch.setattr(S.subprocess, "run", fake_run)
    assert S.gpu_memory_used_mib() == [1024, 2048]
    assert seen["cmd"][0] == "nvidia-smi" and "--query-gpu=memory.used" in seen["cmd"]
    monkeypatch.setattr(S.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 9, "", ""))
    assert S.gpu_memory_used_mib() is None

    def missing(cmd, **kw):
        raise FileNotFoundError("nvidia-smi")

    monkeypatch.setattr(S.subprocess, "run", missing)
    assert S.gpu_memory_used_mib() is None


def test_wait_gpu_released_compares_with_the_baseline(monkeypatch):
    assert S.wait_gpu_released(None) == (True, None)
    readings = iter([[5000], [3000], [1500]])
    monkeypatch.setattr(S, "gpu_memory_used_mib", lambda: next(readings))
    clock = itertools.count(start=0.0, step=1.0)
    monkeypatch.setattr(S, "time", types.SimpleNamespace(monotonic=lambda: next(clock), sleep=lambda s: None))
    assert S.wait_gpu_released([1000], timeout=60, slack_mib=600) == (True, [1500])
    monkeypatch.setattr(S, "gpu_memory_used_mib", lambda: [9000])
    ok, now = S.wait_gpu_released([1000], timeout=5, slack_mib=1024)
    assert ok is False and now == [9000]
    monkeypatch.setattr(S, "gpu_memory_used_mib", lambda: [2024])
    assert S.wait_gpu_released([1000], timeout=5) == (True, [2024])  # within the default slack
    monkeypatch.setattr(S, "gpu_memory_used_mib", lambda: None)
    assert S.wait_gpu_released([1000], timeout=5) == (True, None)


def test_wait_gpu_released_with_no_time_left_reports_the_reading(monkeypatch):
    monkeypatch.setattr(S, "gpu_memory_used_mib", lambda: [7000])
    assert S.wait_gpu_released([1000], timeout=0) == (False, [7000])


def test_the_process_table_reads_names_with_a_parenthesis(tmp_path):
    """/proc/<pid>/stat holds ``pid (comm) state ppid pgid``; a command name may itself hold ')'."""
    import os
    import signal
    odd = tmp_path / "py)x"
    odd.symlink_to(sys.executable)  # the kernel names the process after the path it was started by
    proc = subprocess.Popen([str(odd), "-c", "import time; print('up', flush=True); time.sleep(30)"],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "up"
        with open(f"/proc/{proc.pid}/stat") as f:
            assert "(py)x)" in f.read()
        assert (proc.pid, os.getpid(), proc.pid) in S._proc_table()
        assert S.group_members(proc.pid) == [proc.pid] and proc.pid in S.descendants(os.getpid())
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
