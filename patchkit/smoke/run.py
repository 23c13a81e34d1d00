"""The smoke sequence of one cell. ``Smoke.run()`` returns a sign-off record (dict) and never prints;
progress goes to the ``progress`` callback. What is launched and which log lines count come from
the patch's smoke spec (``patchkit.smoke.spec``); the stages live in ``patchkit.smoke.stages``."""
from __future__ import annotations

import os
import http.client
import random
import shlex
import socket
import sys
import threading
import time
import urllib.error
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .. import signoff
from ..ftypes import Target
from . import bootgate, logscan
from .bootgate import BootGate, Hold
from .server import Server, ServerExited, ServerTimeout, gpu_memory_used_mib, http_json, wait_gpu_released
from .spec import LEGACY_STAGES, SmokeSpec

Progress = Callable[[str], None]


#: SGLang's last start-up line
READY_MARKER = "The server is fired up and ready to roll"


@dataclass
class SmokeConfig:
    model_path: str
    draft_model_path: Optional[str] = None
    tp: int = 1
    threshold: int = 4
    crossings: int = 20
    server_args: list[str] = field(default_factory=list)
    timeout: float = 600.0
    first_request_timeout: float = 300.0
    host: str = "127.0.0.1"
    port: int = 0
    log_dir: Path = Path("smoke-logs")
    python: str = sys.executable
    compare_no_spec: bool = False
    new_tokens: int = 16
    #: the patch's smoke spec (None: the registered patch that declares one)
    spec: Optional[SmokeSpec] = None
    #: the stages to run after "ready" (default: the 1.x sequence)
    stages: tuple[str, ...] = LEGACY_STAGES
    #: whether the cell sets the patch's flag (the 1.x sequence always does)
    flag_on: bool = True
    #: environment for the server (SGLang's checkers)
    env: dict = field(default_factory=dict)
    #: {name: path} of the model folders the spec's ``{target}``/``{draft}``/... placeholders name
    models: dict = field(default_factory=dict)
    #: resume-equivalence: tokens per long request, OFF->ON transitions it must live through
    long_tokens: int = 3000
    transitions: int = 10
    #: a divergence is explained when both servers' log-prob margin between the two tokens is below
    #: min(near_tie, near_tie_rel x (top-1 minus top-20 log-prob)) (bf16 near-tie)
    near_tie: float = 0.05
    near_tie_rel: float = 0.25
    soak_seconds: float = 30.0
    #: soak: allowed growth of the server's host RSS and GPU memory (MiB)
    rss_tolerance_mib: float = 256.0
    gpu_tolerance_mib: float = 512.0
    #: regex / JSON-schema requests: a reason to skip them ("" runs them)
    grammar_skip: str = "skipped: no grammar backend"
    #: forced-acceptance pass: env for its server ({} : skipped, with ``forced_skip`` as reason)
    forced_env: dict = field(default_factory=dict)
    forced_skip: str = ""
    #: the speculation-off reference server's base URL (resume-equivalence)
    reference: Optional["Reference"] = None
    #: the cell expects a clean start-up refusal instead of a server
    expect_refusal: str = ""
    #: teardown waits for the GPU memory to fall back to what it was (off when cells share the GPU)
    gpu_check: bool = True
    #: set by another cell's failure when the run stops at the first failing stage
    cancel: Optional[threading.Event] = None
    #: cells sharing a GPU pass SGLang's memory profiling one server at a time (bootgate.py)
    boot_gate: Optional[BootGate] = None
    #: seconds teardown waits for the GPU memory to come back
    release_timeout: float = 60.0
    #: a built-in full-size shape's record fields (``fullsize.record``): dummy weights, not a quality check
    shape: dict = field(default_factory=dict)


class StageFailed(Exception):
    def __init__(self, stage: str, message: str, location: str = ""):
        super().__init__(message)
        self.stage, self.message, self.location = stage, message, location


class Cancelled(StageFailed):
    """The run stopped at another cell's first failure before this stage."""


def free_port(low: int = 20000, high: int = 32000) -> int:
    """A free port in ``low``-``high``: SGLang derives further ports from it (gRPC at port + 10000,
    which must stay below 65536), so the kernel's high ephemeral ports do not do. Ports in the
    kernel's ephemeral range are skipped when the range allows: a port found free there can be taken
    by any outgoing connection (the smoke test's own HTTP clients) before the server binds it, and
    the launch then dies with "Address already in use"."""
    lo_eph, hi_eph = ephemeral_ports()
    outside = [p for p in range(low, high) if not lo_eph <= p <= hi_eph]
    pool = outside or list(range(low, high))
    rng = random.Random()
    for _ in range(400):
        port = rng.choice(pool)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError(f"no free port in {low}-{high}")


def ephemeral_ports() -> tuple[int, int]:
    """The kernel's range for outgoing connections' local ports (Linux; elsewhere IANA's)."""
    try:
        lo, hi = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
        return lo, hi
    except (OSError, ValueError):
        return 49152, 65535


def spec_of_cfg(cfg: SmokeConfig) -> SmokeSpec:
    if cfg.spec is None:
        from .spec import default
        cfg.spec = default()
    return cfg.spec


def fill(args, cfg: SmokeConfig) -> list[str]:
    """Replace ``{threshold}``, ``{target}``, ``{draft}``, ... in launch arguments."""
    values = {"threshold": str(cfg.threshold), "target": cfg.model_path,
              "draft": cfg.draft_model_path or cfg.models.get("draft", ""), **cfg.models}
    out = []
    for a in args:
        try:
            out.append(a.format(**values))
        except (KeyError, IndexError):
            out.append(a)
    return out


def merge_args(base: list[str], override: list[str], bool_options=()) -> list[str]:
    """``base`` with every option that ``override`` sets removed, then ``override``."""
    from .matrix import parse_options
    set_by = set(parse_options(list(override), tuple(bool_options)))
    out, i = [], 0
    while i < len(base):
        a = base[i]
        takes = a.startswith("--") and "=" not in a and a not in bool_options and i + 1 < len(base) \
            and not base[i + 1].startswith("--")
        if a.split("=", 1)[0] in set_by:
            i += 2 if takes else 1
            continue
        out += base[i:i + (2 if takes else 1)]
        i += 2 if takes else 1
    return out + list(override)


def drop_options(args: list[str], prefixes, bool_options=()) -> list[str]:
    out, i = [], 0
    while i < len(args):
        a = args[i]
        takes = a.startswith("--") and "=" not in a and a not in bool_options and i + 1 < len(args) \
            and not args[i + 1].startswith("--")
        if any(a.startswith(p) for p in prefixes):
            i += 2 if takes else 1
            continue
        out += args[i:i + (2 if takes else 1)]
        i += 2 if takes else 1
    return out


def launch_command(cfg: SmokeConfig, port: int, speculative: bool = True) -> list[str]:
    """The server command. 1.x form: the spec's first algorithm with the draft model and the flag,
    then ``server_args``; ``speculative=False`` drops the spec's speculative options."""
    spec = spec_of_cfg(cfg)
    cmd = [cfg.python, "-m", "sglang.launch_server", "--model-path", cfg.model_path,
           "--host", cfg.host, "--port", str(port), "--tp-size", str(cfg.tp)]
    extra = list(cfg.server_args)
    if not speculative:
        return cmd + drop_options(extra, spec.reference_drop, spec.bool_options)
    algo = list(spec.algorithms[0].args)
    if not cfg.draft_model_path and "{draft}" in algo:
        i = algo.index("{draft}")
        del algo[i - 1:i + 1]
    cmd += fill(algo, cfg)
    if cfg.flag_on:
        cmd += fill(spec.flag_args, cfg)
    return cmd + extra


def cell_command(cfg: SmokeConfig, port: int) -> list[str]:
    """A matrix cell: ``server_args`` already hold everything (placeholders are filled here)."""
    return [cfg.python, "-m", "sglang.launch_server", "--model-path", cfg.model_path,
            "--host", cfg.host, "--port", str(port), "--tp-size", str(cfg.tp)] + fill(cfg.server_args, cfg)


def prompt_set(n: int, seed: int = 1234) -> list[list[int]]:
    rng = random.Random(seed)
    return [[1] + [rng.randrange(100, 31000) for _ in range(rng.randrange(6, 24))] for _ in range(n)]


_prompt_set = prompt_set


def generate(base: str, ids: list[int], n: int, timeout: float, temperature: float = 0.0, **extra) -> dict:
    sp = {"max_new_tokens": n, "temperature": temperature, "ignore_eos": True}
    sp.update(extra.pop("sampling", {}))
    return http_json(f"{base}/generate", {"input_ids": ids, "sampling_params": sp, **extra}, timeout=timeout)


def first_divergence(a: list[int], b: list[int]) -> Optional[int]:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


_first_divergence = first_divergence


class Reference:
    """The speculation-off server of the same release: greedy outputs, cached per request. It may
    still be starting: ``base`` and ``greedy`` wait until ``set_ready`` or ``set_failed``."""

    def __init__(self, base: str = ""):
        self._base = base
        self._cache: dict = {}
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self.error = ""
        if base:
            self._ready.set()

    def set_ready(self, base: str) -> None:
        self._base = base
        self._ready.set()

    def set_failed(self, error: str) -> None:
        self.error = error
        self._ready.set()

    @property
    def base(self) -> str:
        self._ready.wait()
        if self.error:
            raise StageFailed("resume-equivalence", f"the speculation-off reference server failed: {self.error}")
        return self._base

    def greedy(self, ids: list[int], n: int) -> list[int]:
        base = self.base
        key = (tuple(ids), n)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        out = generate(base, ids, n, 600).get("output_ids") or []
        with self._lock:
            self._cache[key] = out
        return out


class Smoke:
    def __init__(self, cfg: SmokeConfig, target: Target, progress: Progress = lambda s: None, cell: str = ""):
        self.cfg, self.target, self.progress = cfg, target, progress
        self.spec = spec_of_cfg(cfg)
        self.cell = cell
        self.stages: list[dict] = []
        self.timings: dict = {}
        self.server: Optional[Server] = None
        self.base = ""
        self.command: list[str] = []
        self.boot_holds: list[Hold] = []

    # ------------------------------------------------------------------ plumbing for stages
    def say(self, msg: str) -> None:
        self.progress(f"[{self.cell}] {msg}" if self.cell else msg)

    def switch_tail(self) -> logscan.SwitchTail:
        """The served cell's switch lines, read incrementally (see logscan.SwitchTail)."""
        tail = self.__dict__.get("_tail")
        if tail is None or tail.path != self.server.log_path:
            tail = self._tail = logscan.SwitchTail(self.server.log_path, self.spec.patterns)
        return tail.poll()

    def report(self, server: Optional[Server] = None) -> logscan.LogReport:
        srv = server or self.server
        text = srv.log_path.read_text(errors="replace") if srv else ""
        return logscan.scan(text, self.spec.patterns)

    def stage(self, name: str, fn):
        t0 = time.monotonic()
        self.say(f"[{name}] ...")
        try:
            detail = fn()
        except StageFailed:
            self.stages.append({"name": name, "passed": False, "seconds": round(time.monotonic() - t0, 2)})
            raise
        # a server that dies mid-response leaves http.client's IncompleteRead / RemoteDisconnected
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, OSError, TimeoutError, ValueError,
                KeyError, TypeError) as exc:
            self.stages.append({"name": name, "passed": False, "seconds": round(time.monotonic() - t0, 2)})
            raise StageFailed(name, *self._server_failure(f"request failed: {type(exc).__name__}: {exc}")) from None
        kept = {k: v for k, v in detail.items() if not k.startswith("_")} if isinstance(detail, dict) else detail
        self.stages.append({"name": name, "passed": True, "detail": kept, "seconds": round(time.monotonic() - t0, 2)})
        shown = {k: v for k, v in detail.items() if not k.startswith("_")} if isinstance(detail, dict) else detail
        self.say(f"[{name}] ok: {shown}")
        return detail

    def _server_failure(self, default: str, server: Optional[Server] = None) -> tuple[str, str]:
        """(message, location) from the server log: the exception that killed it, if any."""
        srv = server or self.server
        time.sleep(2.0)
        rep = self.report(srv) if srv else logscan.LogReport()
        state = "" if srv is None or srv.alive() else f"server exited with code {srv.proc.poll()}; "
        if rep.exception:
            return f"{state}{rep.exception}", rep.location
        return f"{state}{default}", ""

    def start_server(self, cmd: list[str], log_name: str, env: dict) -> Server:
        port = int(cmd[cmd.index("--port") + 1])
        srv = Server(cmd, self.cfg.log_dir / log_name, f"http://{self.cfg.host}:{port}", env=dict(env))
        self.say("$ " + " ".join(f"{k}={v}" for k, v in env.items()) + (" " if env else "")
                 + " ".join(shlex.quote(c) for c in cmd))
        gate = self.cfg.boot_gate
        if gate is None:
            srv.start()
            return srv
        needed = bootgate.markers_needed("--speculative-algorithm" in cmd, self.cfg.tp)
        handle = gate.pass_through(srv.start, srv.log_path, needed, srv.alive,
                                   lambda: READY_MARKER in srv.tail(5))
        self.boot_holds.append(handle.hold)
        return srv

    # ------------------------------------------------------------------ the sequence
    def run(self) -> dict:
        """The sign-off record of one configuration, with the GPU memory sampled while it ran."""
        from . import gpumem
        ranks = gpumem.rank_gpus(self.cfg.tp, self.cfg.server_args, {**os.environ, **self.cfg.env})
        sampler = gpumem.Sampler(gpus=ranks or None).start() if self.cfg.gpu_check else None
        try:
            rec = self.run_cell()
        finally:
            if sampler is not None:
                sampler.stop()
        memory = None
        if sampler is not None:
            released = sampler.settle(self.cfg.release_timeout)
            memory = sampler.summary(ranks, released)
            why = gpumem.not_released(memory)
            if why and rec["failure"] is None:
                rec = {**rec, "passed": False, "failure": {"stage": "teardown", "message": why, "location": ""}}
        out = signoff.build(self.target, rec["passed"], environment(), self._config(), self.stages,
                            self.timings, rec["failure"])
        if memory is not None:
            out["gpu_memory"] = memory
        return out

    def run_cell(self, command: Optional[list[str]] = None) -> dict:
        """Run the stages; {"passed", "failure", "verdict"} (the stages and timings are on self)."""
        from . import stages as S
        cfg = self.cfg
        t_start = time.monotonic()
        failure = None
        verdict = "fail"
        baseline = gpu_memory_used_mib() if cfg.gpu_check else None
        port = cfg.port or free_port()
        self.base = f"http://{cfg.host}:{port}"
        self.command = command or launch_command(cfg, port)
        if command:
            self.command[self.command.index("--port") + 1] = str(port)
        teardown: dict = {}
        outputs_spec = None
        try:
            self.server = self.start_server(self.command, "server.log", cfg.env)
            if cfg.expect_refusal:
                self.stage("refusal", lambda: S.refusal(self))
                verdict = "refused"
            else:
                self.stage("ready", lambda: S.ready(self))
                for name in cfg.stages:
                    if name == "ready":
                        continue
                    if cfg.cancel is not None and cfg.cancel.is_set():
                        raise Cancelled(name, "cancelled: another cell failed first")
                    got = self.stage(name, lambda n=name: (dict(self.spec.own_stages).get(n) or S.STAGES[n])(self))
                    if name == "greedy-equivalence":
                        outputs_spec = got
                verdict = "pass"
        except Cancelled as exc:
            failure = {"stage": exc.stage, "message": exc.message, "location": ""}
            verdict = "cancelled"
        except StageFailed as exc:
            failure = {"stage": exc.stage, "message": exc.message, "location": exc.location}
            self.say(f"[{exc.stage}] FAILED: {exc.message} {exc.location}")
        finally:
            teardown = self._teardown(self.server, baseline)
        if failure is None and cfg.compare_no_spec and isinstance(outputs_spec, dict):
            try:
                self.stage("no-spec-equivalence", lambda: self._no_spec(outputs_spec, baseline))
            except StageFailed as exc:
                failure = {"stage": exc.stage, "message": exc.message, "location": exc.location}
        if failure is None and not teardown.get("clean"):
            failure = {"stage": "teardown", "message": teardown.get("message", "teardown left processes or GPU memory"),
                       "location": ""}
        if failure is not None and verdict != "cancelled":
            verdict = "fail"
        self.timings["total_s"] = round(time.monotonic() - t_start, 2)
        return {"passed": failure is None, "failure": failure, "verdict": verdict}

    def _teardown(self, server: Optional[Server], baseline, name: str = "teardown"):
        rep = server.stop() if server else {}
        ok_mem, now = wait_gpu_released(baseline, self.cfg.release_timeout) if server else (True, None)
        clean = not rep.get("leftover_pids") and ok_mem
        detail = {"leftover_pids": rep.get("leftover_pids", []), "exit_code": rep.get("exit_code"),
                  "gpu_mem_baseline_mib": baseline, "gpu_mem_after_mib": now, "clean": clean}
        if not clean:
            detail["message"] = (f"leftover processes {rep.get('leftover_pids')}" if rep.get("leftover_pids")
                                 else f"GPU memory not released: {now} MiB vs {baseline} MiB before")
        self.stages.append({"name": name, "passed": clean, "detail": detail, "seconds": 0})
        self.say(f"[{name}] {'ok' if clean else 'FAILED'}: {detail}")
        return detail

    def _no_spec(self, spec_stage, baseline):
        port = free_port()
        base = f"http://{self.cfg.host}:{port}"
        srv = Server(launch_command(self.cfg, port, speculative=False), self.cfg.log_dir / "server-nospec.log", base)
        srv.start()
        try:
            srv.wait_ready(self.cfg.timeout)
            prompts = prompt_set(6)
            plain = [generate(base, p, 32, 300).get("output_ids") for p in prompts]
        finally:
            rep = srv.stop()
            wait_gpu_released(baseline)
        divs = []
        for i, (a, b) in enumerate(zip(spec_stage.get("_outputs", []), plain)):
            d = first_divergence(a or [], b or [])
            if d is not None:
                divs.append({"prompt": i, "first_divergent_position": d})
        if rep.get("leftover_pids"):
            raise StageFailed("no-spec-equivalence", f"leftover processes {rep['leftover_pids']}")
        return {"identical": 6 - len(divs), "divergences": divs}

    def _config(self) -> dict:
        return {"tp": self.cfg.tp, "model_path": self.cfg.model_path,
                "model_config_sha256": signoff.config_sha(self.cfg.model_path),
                "draft_model_path": self.cfg.draft_model_path,
                "draft_config_sha256": signoff.config_sha(self.cfg.draft_model_path),
                "threshold": self.cfg.threshold, "server_args": self.cfg.server_args,
                "patch": self.spec.patch, **self.cfg.shape}


def wait_ready(ctx: Smoke, server: Server, stage: str) -> float:
    """Seconds to ready; a scheduler traceback or a refusal in the log fails ``stage`` at once."""
    def tick(s: float) -> None:
        if int(s) % 15 == 0:
            ctx.say(f"waiting for the server ({s:.0f}s)")
        text = server.log_path.read_text(errors="replace")
        if "hit an exception" in text or "Traceback (most recent call last)" in text:
            rep = logscan.scan(text, ctx.spec.patterns)
            if rep.exception:  # a scheduler died: do not wait for the launcher to notice
                raise StageFailed(stage, f"server failed during start-up: {rep.exception}", rep.location)
    try:
        return server.wait_ready(ctx.cfg.timeout, tick)
    except ServerExited as exc:
        rep = logscan.scan(server.log_path.read_text(errors="replace"), ctx.spec.patterns)
        what = rep.exception or rep.refused or exc.tail[-400:]
        raise StageFailed(stage, f"server exited with code {exc.code}: {what}", rep.location) from None
    except ServerTimeout as exc:
        raise StageFailed(stage, str(exc)) from None


def environment() -> dict:
    """The sign-off's environment: what the gate compares (torch, GPU model) and what a reader wants."""
    import subprocess
    found = signoff.gpus()
    env = {"python": sys.version.split()[0], **signoff.environment_now(),
           "gpu_count": len(found), "driver": found[0][1] if found else None}
    try:
        r = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=20)
        env["cuda"] = r.stdout.strip().splitlines()[-1] if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, IndexError):
        env["cuda"] = None
    return env
