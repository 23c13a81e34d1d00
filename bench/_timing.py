"""One timing helper for the bench scripts: run a command, return (seconds, CompletedProcess)."""
import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd, env=None, cwd=ROOT):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=cwd)
    return time.perf_counter() - t0, r
