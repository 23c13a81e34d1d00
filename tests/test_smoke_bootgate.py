"""The boot gate: servers that share a GPU pass SGLang's memory profiling one at a time.

Fake servers log "pre" when they start profiling and "Memory pool end" when their pools exist; under
the gate no server may start profiling while another is between the two lines (the race that made a
0.5.16 matrix cell fail with "Loaded weights leave no GPU memory for the KV cache")."""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from patchkit.smoke import bootgate
from patchkit.smoke.bootgate import BootGate
from patchkit.smoke.server import Server

FAKE = r"""
import sys, time
log = open(sys.argv[1], "a", buffering=1)
runners, step, mode = int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
for r in range(runners):
    log.write(f"{time.time():.6f} pre\n"); time.sleep(step)
    log.write(f"{time.time():.6f} Memory pool end. avail mem=1.00 GB\n")
if mode == "exit":
    sys.exit(3)
time.sleep(30)
"""


def windows(log: Path) -> list[tuple[float, float]]:
    """(first pre, last pool end) of one fake server."""
    rows = [ln.split(" ", 1) for ln in log.read_text().splitlines() if ln[:1].isdigit()]
    pre = [float(t) for t, what in rows if what.startswith("pre")]
    end = [float(t) for t, what in rows if what.startswith("Memory pool end")]
    return [(min(pre), max(end))] if pre and end else []


def start_all(tmp_path: Path, n: int, runners: int, gate, mode: str = "serve"):
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    servers, handles = [], []
    lock = threading.Lock()

    def one(i: int) -> None:
        log = tmp_path / f"s{i}.log"
        srv = Server([sys.executable, str(script), str(log), str(runners), "0.3", mode], log, "http://127.0.0.1:1")
        if gate is None:
            srv.start()
            h = None
        else:
            h = gate.pass_through(srv.start, log, runners, srv.alive)
        with lock:
            servers.append(srv)
            handles.append(h)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return servers, handles


def overlaps(tmp_path: Path, n: int) -> int:
    ws = sorted(w for i in range(n) for w in windows(tmp_path / f"s{i}.log"))
    return sum(1 for a, b in zip(ws, ws[1:]) if b[0] < a[1])


@pytest.fixture()
def gate(tmp_path):
    return BootGate(tmp_path / "gate.lock", poll_s=0.05)


def test_without_the_gate_the_profiling_windows_overlap(tmp_path):
    """The known-bad input: what the matrix did before the gate."""
    servers, _ = start_all(tmp_path, 3, 2, None)
    try:
        time.sleep(2.5)
        assert overlaps(tmp_path, 3) >= 1
    finally:
        for s in servers:
            s.stop(grace=1)


def test_gate_serialises_profiling_and_releases_at_the_pool_markers(tmp_path, gate):
    servers, handles = start_all(tmp_path, 3, 2, gate)
    try:
        assert all(h.wait(30) for h in handles)
        assert overlaps(tmp_path, 3) == 0
        assert all(len(windows(tmp_path / f"s{i}.log")) == 1 for i in range(3))
        assert sorted(h.hold.reason for h in handles) == ["pools allocated"] * 3
        # the gate opens at the markers, not when the server stops: all three still run
        assert all(s.alive() for s in servers)
        assert max(h.hold.waited_s for h in handles) > 0.5
    finally:
        for s in servers:
            s.stop(grace=1)


def test_a_server_that_dies_in_start_up_releases_the_gate(tmp_path, gate):
    servers, handles = start_all(tmp_path, 2, 3, gate, mode="exit")
    try:
        assert all(h.wait(30) for h in handles)
        # each fake prints all its markers before exiting, so "pools allocated" or "server exited"
        assert {h.hold.reason for h in handles} <= {"pools allocated", "server exited"}
    finally:
        for s in servers:
            s.stop(grace=1)
    script = tmp_path / "die.py"
    script.write_text("import sys; sys.exit(4)\n")
    log = tmp_path / "die.log"
    srv = Server([sys.executable, str(script)], log, "http://127.0.0.1:1")
    h = gate.pass_through(srv.start, log, 2, srv.alive)
    assert h.wait(30) and h.hold.reason == "server exited"
    # and the next server gets through at once
    t0 = time.monotonic()
    fd = gate.enter()
    gate.leave(fd)
    assert time.monotonic() - t0 < 5


def test_hold_limit_releases_a_hung_start_up(tmp_path):
    g = BootGate(tmp_path / "gate.lock", hold_limit_s=0.5, poll_s=0.05)
    script = tmp_path / "hang.py"
    script.write_text("import time; time.sleep(30)\n")
    log = tmp_path / "hang.log"
    srv = Server([sys.executable, str(script)], log, "http://127.0.0.1:1")
    h = g.pass_through(srv.start, log, 1, srv.alive)
    try:
        assert h.wait(20) and h.hold.reason == "hold limit"
    finally:
        srv.stop(grace=1)


def test_the_gate_holds_across_processes(tmp_path, gate):
    """Several matrix runs (mutant jobs) on one GPU queue at the same file."""
    fd = gate.enter()
    code = ("import sys,time; sys.path.insert(0, sys.argv[2]); from patchkit.smoke.bootgate import BootGate; "
            "g = BootGate(sys.argv[1]); t = time.monotonic(); g.leave(g.enter()); print(time.monotonic() - t)")
    p = subprocess.Popen([sys.executable, "-c", code, str(gate.path), str(Path(__file__).resolve().parents[1])],
                         stdout=subprocess.PIPE, text=True)
    time.sleep(1.5)
    assert p.poll() is None  # still waiting for the gate this process holds
    gate.leave(fd)
    out, _ = p.communicate(timeout=30)
    assert float(out.strip()) >= 1.0


@pytest.mark.parametrize("spec,tp,n", [(True, 1, 2), (False, 1, 1), (True, 2, 4), (False, 4, 4)])
def test_markers_needed(spec, tp, n):
    assert bootgate.markers_needed(spec, tp) == n
