"""Launch a server the way SGLang's own tests do (``popen_launch_server``): log the exact
command, poll readiness while watching ``proc.poll()``, tell "exited with code N" from a
timeout, and tear the whole process tree down, checking nothing of it survives."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional


class ServerExited(Exception):
    def __init__(self, code: int, tail: str):
        super().__init__(f"server exited with code {code} before it was ready")
        self.code, self.tail = code, tail


class ServerTimeout(Exception):
    pass


def http_json(url: str, payload: Optional[dict] = None, timeout: float = 60.0) -> dict:
    data = json.dumps(payload).encode() if payload is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        body = r.read()
    return json.loads(body) if body else {}


@dataclass
class Server:
    cmd: list[str]
    log_path: Path
    base_url: str
    env: dict = field(default_factory=dict)
    proc: Optional[subprocess.Popen] = None
    started: float = 0.0
    _log = None

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")  # a stale log from an earlier run must not be read as this one
        self._log.write(("$ " + " ".join(self.cmd) + "\n").encode())
        self._log.flush()
        self.started = time.monotonic()
        self.proc = subprocess.Popen(self.cmd, stdout=self._log, stderr=subprocess.STDOUT,
                                     env=server_env({**os.environ, **self.env}), start_new_session=True)

    def tail(self, n: int = 40) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def wait_ready(self, timeout: float, on_tick: Optional[Callable[[float], None]] = None) -> float:
        """Seconds until ``/health`` answers and a model-info request works; raises
        ServerExited (with the log tail) or ServerTimeout."""
        assert self.proc is not None
        deadline = self.started + timeout
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                raise ServerExited(code, self.tail())
            try:
                http_json(f"{self.base_url}/get_model_info", timeout=5)
                return time.monotonic() - self.started
            except (urllib.error.URLError, ConnectionError, OSError, ValueError):
                pass
            if on_tick:
                on_tick(time.monotonic() - self.started)
            time.sleep(1.0)
        raise ServerTimeout(f"server not ready after {timeout:.0f}s")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, grace: float = 15.0) -> dict:
        """Kill the process group (and any process that escaped it); report what remains."""
        report = {"pgid": None, "leftover_pids": [], "exit_code": None}
        if self.proc is None:
            return report
        pgid = self.proc.pid
        report["pgid"] = pgid
        members = set(group_members(pgid)) | set(descendants(self.proc.pid))
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                pass
            for pid in list(members):
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
            end = time.monotonic() + wait
            while time.monotonic() < end:
                if self.proc.poll() is not None and not [p for p in members if _alive(p)] \
                        and not group_members(pgid):
                    break
                time.sleep(0.2)
            if self.proc.poll() is not None and not [p for p in members if _alive(p)] and not group_members(pgid):
                break
        report["exit_code"] = self.proc.poll()
        report["leftover_pids"] = sorted({p for p in members if _alive(p)} | set(group_members(pgid)))
        if self._log:
            self._log.close()
        return report


#: the folder whose sitecustomize holds the smoke servers' hooks (serverhooks/sitecustomize.py):
#: seeded random weights, and the KV-allocation check of every speculative decode step
HOOK_DIR = Path(__file__).resolve().parent / "serverhooks"
WEIGHTS_ENV = "PATCHKIT_SMOKE_WEIGHTS"
KV_CHECK_ENV = "PATCHKIT_SMOKE_KV_CHECK"
#: what ``--load-format dummy`` servers get unless PATCHKIT_SMOKE_WEIGHTS says otherwise ("dummy": SGLang's
#: own near-constant weights). On H200s (0.5.12, 0.5.16) only seeded random weights let the smoke test
#: catch the one-token-off-by-one mutant; the unmutated matrices pass with them (bench/results/smoke2/).
DEFAULT_WEIGHTS = "random"


def weights_setting(env: dict) -> str:
    """The weights smoke servers load under ``--load-format dummy``: 'random:STD' or 'dummy'."""
    value = (env.get(WEIGHTS_ENV) or DEFAULT_WEIGHTS).strip()
    kind, _, std = value.partition(":")
    return f"random:{std or '0.02'}" if kind == "random" else "dummy"


def kv_check_setting(env: dict) -> str:
    """'on' (the default) or 'off' (``PATCHKIT_SMOKE_KV_CHECK=0``): whether smoke servers check each
    speculative decode step against the KV slots allocated for it (serverhooks/_pk_kvcheck.py)."""
    return "off" if (env.get(KV_CHECK_ENV) or "1").strip().lower() in ("0", "off", "false", "no") else "on"


def server_env(env: dict) -> dict:
    """The server's environment: the hook folder goes first on PYTHONPATH with the hooks' settings.
    Random weights (the default; ``PATCHKIT_SMOKE_WEIGHTS=random[:STD]``) reach every server of a
    run (patched, reference, no-spec), so they all get the same weights; ``PATCHKIT_SMOKE_WEIGHTS=dummy``
    keeps SGLang's. Real checkpoints are not touched (the hook only replaces SGLang's dummy
    initialiser). The KV-allocation check is on unless ``PATCHKIT_SMOKE_KV_CHECK=0``."""
    weights, kv = weights_setting(env), kv_check_setting(env)
    if not weights.startswith("random") and kv == "off":
        return env
    env = {**env, KV_CHECK_ENV: "1" if kv == "on" else "0"}
    if weights.startswith("random"):
        env[WEIGHTS_ENV] = weights
    rest = env.get("PYTHONPATH", "")
    return {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(HOOK_DIR), rest]))}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _proc_table() -> list[tuple[int, int, int]]:
    """(pid, ppid, pgid) of every live process."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                rest = f.read().rsplit(")", 1)[1].split()
            if rest[0] == "Z":
                continue
            out.append((int(d), int(rest[1]), int(rest[2])))
        except (OSError, IndexError, ValueError):
            continue
    return out


def group_members(pgid: int) -> list[int]:
    return [p for p, _pp, g in _proc_table() if g == pgid]


def descendants(pid: int) -> list[int]:
    table = _proc_table()
    kids: dict[int, list[int]] = {}
    for p, pp, _g in table:
        kids.setdefault(pp, []).append(p)
    out, todo = [], [pid]
    while todo:
        cur = todo.pop()
        for k in kids.get(cur, []):
            out.append(k)
            todo.append(k)
    return out


def gpu_memory_used_mib() -> Optional[list[int]]:
    """Used memory per GPU from nvidia-smi, or None when there is no nvidia-smi."""
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode != 0:
        return None
    return [int(x.strip()) for x in r.stdout.strip().splitlines() if x.strip().isdigit()]


def wait_gpu_released(baseline: Optional[list[int]], timeout: float = 60.0, slack_mib: int = 1024) -> tuple[bool, Optional[list[int]]]:
    if baseline is None:
        return True, None
    end = time.monotonic() + timeout
    now = gpu_memory_used_mib()
    while time.monotonic() < end:
        now = gpu_memory_used_mib()
        if now is None or all(n <= b + slack_mib for n, b in zip(now, baseline)):
            return True, now
        time.sleep(1.0)
    return False, now
