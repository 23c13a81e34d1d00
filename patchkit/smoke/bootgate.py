"""One server at a time through SGLang's memory profiling.

SGLang sizes the KV pool from two readings of free GPU memory: one before the weights load
(``pre``) and one after. A second server that allocates between those readings makes the first
one see its memory as gone ("Loaded weights leave no GPU memory for the KV cache under
--mem-fraction-static=..."). Cells that share a GPU therefore pass through a gate: a server
holds it from launch until its log shows every KV pool allocated (``Memory pool end``, once per
model runner: target, and draft when it speculates, per tensor-parallel rank), until it is ready,
or until it exits; whichever comes first.

The gate is a ``flock`` on a file, so separate processes (several matrix runs, mutant jobs) that
share one GPU queue at the same gate."""
from __future__ import annotations

import fcntl
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

#: the log line each model runner prints once its KV pool exists (SGLang 0.5.x)
POOL_MARKER = "Memory pool end"
#: the longest one server may hold the gate (a hung start-up must not stall the matrix)
HOLD_LIMIT_S = 240.0


def default_path() -> Path:
    return Path(os.environ.get("PATCHKIT_BOOT_GATE", "/tmp/patchkit-boot-gate.lock"))


def markers_needed(speculative: bool, tp: int) -> int:
    """How many ``Memory pool end`` lines mean every runner has sized its pool."""
    return (2 if speculative else 1) * max(1, tp)


@dataclass
class Hold:
    """One server's pass through the gate; ``reason`` says what released it."""
    waited_s: float = 0.0
    held_s: float = 0.0
    reason: str = ""


class BootGate:
    def __init__(self, path: Optional[Path] = None, hold_limit_s: float = HOLD_LIMIT_S, poll_s: float = 0.5):
        self.path = Path(path) if path else default_path()
        self.hold_limit_s, self.poll_s = hold_limit_s, poll_s

    def enter(self) -> int:
        """Block until this process holds the gate; the file descriptor to release."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    @staticmethod
    def leave(fd: int) -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def pass_through(self, launch: Callable[[], None], log_path: Path, needed: int,
                     alive: Callable[[], bool], ready: Callable[[], bool] = lambda: False) -> "HoldHandle":
        """Wait for the gate, ``launch`` the server, and release the gate in the background once
        ``needed`` pool markers are in ``log_path`` (or the server is ready, or gone, or the hold
        limit passed)."""
        t0 = time.monotonic()
        fd = self.enter()
        hold = Hold(waited_s=round(time.monotonic() - t0, 2))
        try:
            launch()
        except BaseException:
            self.leave(fd)
            raise
        started = time.monotonic()
        done = threading.Event()

        def watch() -> None:
            reason = "hold limit"
            while time.monotonic() - started < self.hold_limit_s:
                try:
                    text = log_path.read_text(errors="replace")
                except OSError:
                    text = ""
                if text.count(POOL_MARKER) >= needed:
                    reason = "pools allocated"
                    break
                if not alive():
                    reason = "server exited"
                    break
                if ready():
                    reason = "server ready"
                    break
                time.sleep(self.poll_s)
            hold.held_s, hold.reason = round(time.monotonic() - started, 2), reason
            self.leave(fd)
            done.set()

        threading.Thread(target=watch, daemon=True).start()
        return HoldHandle(hold, done)


@dataclass
class HoldHandle:
    hold: Hold
    done: threading.Event

    def wait(self, timeout: Optional[float] = None) -> bool:
        return self.done.wait(timeout)
