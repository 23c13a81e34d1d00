"""The smoke sequence. ``run()`` returns a sign-off record (dict) and never prints; progress goes
to the ``progress`` callback."""
from __future__ import annotations

import random
import shlex
import socket
import sys
import time
import urllib.error
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .. import signoff
from ..ftypes import Target
from . import logscan
from .server import Server, ServerExited, ServerTimeout, gpu_memory_used_mib, http_json, wait_gpu_released

Progress = Callable[[str], None]


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


class StageFailed(Exception):
    def __init__(self, stage: str, message: str, location: str = ""):
        super().__init__(message)
        self.stage, self.message, self.location = stage, message, location


def free_port() -> int:
    """A free port in 20000-45000: SGLang derives further ports from it (gRPC at port + 10000,
    which must stay below 65536), so the kernel's high ephemeral ports do not do."""
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20000, 45000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError("no free port in 20000-45000")


def launch_command(cfg: SmokeConfig, port: int, speculative: bool = True) -> list[str]:
    cmd = [cfg.python, "-m", "sglang.launch_server", "--model-path", cfg.model_path,
           "--host", cfg.host, "--port", str(port), "--tp-size", str(cfg.tp)]
    extra = list(cfg.server_args)
    if speculative:
        cmd += ["--speculative-algorithm", "EAGLE3"]
        if cfg.draft_model_path:
            cmd += ["--speculative-draft-model-path", cfg.draft_model_path]
        cmd += ["--speculative-disable-batch-threshold", str(cfg.threshold)]
    else:
        skip = {"--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens"}
        out, i = [], 0
        while i < len(extra):
            if extra[i] in skip:
                i += 2
                continue
            out.append(extra[i])
            i += 1
        extra = out
    return cmd + extra


def _prompt_set(n: int, seed: int = 1234) -> list[list[int]]:
    rng = random.Random(seed)
    return [[1] + [rng.randrange(100, 31000) for _ in range(rng.randrange(6, 24))] for _ in range(n)]


def generate(base: str, ids: list[int], n: int, timeout: float, temperature: float = 0.0) -> dict:
    return http_json(f"{base}/generate", {"input_ids": ids, "sampling_params": {
        "max_new_tokens": n, "temperature": temperature, "ignore_eos": True}}, timeout=timeout)


def _first_divergence(a: list[int], b: list[int]) -> Optional[int]:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


class Smoke:
    def __init__(self, cfg: SmokeConfig, target: Target, progress: Progress = lambda s: None):
        self.cfg, self.target, self.progress = cfg, target, progress
        self.stages: list[dict] = []
        self.timings: dict = {}
        self.server: Optional[Server] = None

    def stage(self, name: str, fn):
        t0 = time.monotonic()
        self.progress(f"[{name}] ...")
        try:
            detail = fn()
        except StageFailed:
            self.stages.append({"name": name, "passed": False, "seconds": round(time.monotonic() - t0, 2)})
            raise
        except (urllib.error.URLError, ConnectionError, OSError, TimeoutError, ValueError) as exc:
            self.stages.append({"name": name, "passed": False, "seconds": round(time.monotonic() - t0, 2)})
            raise StageFailed(name, *self._server_failure(f"request failed: {exc}")) from None
        self.stages.append({"name": name, "passed": True, "detail": detail, "seconds": round(time.monotonic() - t0, 2)})
        shown = {k: v for k, v in detail.items() if not k.startswith("_")} if isinstance(detail, dict) else detail
        self.progress(f"[{name}] ok: {shown}")
        return detail

    def _server_failure(self, default: str) -> tuple[str, str]:
        """(message, location) from the server log: the exception that killed it, if any."""
        time.sleep(2.0)
        rep = logscan.scan(self.server.log_path.read_text(errors="replace")) if self.server else logscan.LogReport()
        state = "" if self.server is None or self.server.alive() else f"server exited with code {self.server.proc.poll()}; "
        if rep.exception:
            return f"{state}{rep.exception}", rep.location
        return f"{state}{default}", ""

    # ------------------------------------------------------------------ stages
    def run(self) -> dict:
        cfg = self.cfg
        t_start = time.monotonic()
        failure = None
        teardown: dict = {}
        baseline = gpu_memory_used_mib()
        port = cfg.port or free_port()
        base = f"http://{cfg.host}:{port}"
        cmd = launch_command(cfg, port)
        self.server = Server(cmd, cfg.log_dir / "server.log", base)
        outputs_spec: dict = {}
        try:
            self.progress("$ " + " ".join(shlex.quote(c) for c in cmd))
            self.server.start()
            self.stage("ready", lambda: self._ready())
            self.stage("first-decode", lambda: self._first_decode(base))
            self.stage("threshold-crossings", lambda: self._crossings(base))
            self.stage("sampled-decode", lambda: self._sampled(base))
            outputs_spec = self.stage("greedy-equivalence", lambda: self._equivalence(base))
            self.stage("log-scan", lambda: self._log_scan())
        except StageFailed as exc:
            failure = {"stage": exc.stage, "message": exc.message, "location": exc.location}
            self.progress(f"[{exc.stage}] FAILED: {exc.message} {exc.location}")
        finally:
            teardown = self._teardown(baseline)
        if failure is None and cfg.compare_no_spec and isinstance(outputs_spec, dict):
            try:
                self.stage("no-spec-equivalence", lambda: self._no_spec(outputs_spec, baseline))
            except StageFailed as exc:
                failure = {"stage": exc.stage, "message": exc.message, "location": exc.location}
        if failure is None and not teardown.get("clean"):
            failure = {"stage": "teardown", "message": teardown.get("message", "teardown left processes or GPU memory"),
                       "location": ""}
        self.timings["total_s"] = round(time.monotonic() - t_start, 2)
        return signoff.build(self.target, failure is None, environment(), self._config(), self.stages,
                             self.timings, failure)

    def _ready(self):
        def tick(s: float) -> None:
            if int(s) % 15 == 0:
                self.progress(f"waiting for the server ({s:.0f}s)")
            text = self.server.log_path.read_text(errors="replace")
            if "hit an exception" in text or "Traceback (most recent call last)" in text:
                rep = logscan.scan(text)
                if rep.exception:  # a scheduler died: do not wait for the launcher to notice
                    raise StageFailed("ready", f"server failed during start-up: {rep.exception}", rep.location)
        try:
            t = self.server.wait_ready(self.cfg.timeout, tick)
        except ServerExited as exc:
            rep = logscan.scan(exc.tail)
            raise StageFailed("ready", f"server exited with code {exc.code}: {rep.exception or exc.tail[-400:]}",
                              rep.location) from None
        except ServerTimeout as exc:
            raise StageFailed("ready", str(exc)) from None
        self.timings["time_to_ready_s"] = round(t, 2)
        return f"ready in {t:.1f}s"

    def _first_decode(self, base):
        t0 = time.monotonic()
        out = generate(base, [1, 100, 200], self.cfg.new_tokens, self.cfg.first_request_timeout)
        self.timings["first_request_latency_s"] = round(time.monotonic() - t0, 3)
        ids = out.get("output_ids") or []
        meta = out.get("meta_info", {})
        if len(ids) != self.cfg.new_tokens:
            raise StageFailed("first-decode", f"expected {self.cfg.new_tokens} tokens, got {len(ids)}")
        verify = meta.get("spec_verify_ct", 0)
        if not verify:
            raise StageFailed("first-decode", f"speculation did not run (spec_verify_ct={verify}) below the threshold")
        return {"tokens": len(ids), "spec_verify_ct": verify, "spec_accept_length": meta.get("spec_accept_length"),
                "latency_s": self.timings["first_request_latency_s"]}

    def _switches(self) -> logscan.LogReport:
        return logscan.scan(self.server.log_path.read_text(errors="replace"))

    def _crossings(self, base):
        cfg = self.cfg
        rng = random.Random(7)
        burst = max(cfg.threshold * 2 + 2, cfg.threshold + 6)
        before = self._switches()
        singles_spec = 0
        with ThreadPoolExecutor(burst) as ex:
            for i in range(cfg.crossings):
                lens = [rng.choice((24, 40, 64, 96)) for _ in range(burst)]
                futs = [ex.submit(generate, base, _prompt_set(1, seed=i * 100 + k)[0], n, 300) for k, n in enumerate(lens)]
                for f, n in zip(futs, lens):
                    got = len(f.result().get("output_ids") or [])
                    if got != n:
                        raise StageFailed("threshold-crossings", f"burst {i}: asked {n} tokens, got {got}")
                one = generate(base, _prompt_set(1, seed=10_000 + i)[0], rng.choice((16, 32)), 300)
                if one.get("meta_info", {}).get("spec_accept_length", 0) and \
                        one["meta_info"].get("spec_verify_ct", 0) < len(one.get("output_ids") or []):
                    singles_spec += 1  # fewer verify steps than tokens: drafts were accepted
        time.sleep(1.0)
        after = self._switches()
        off = after.switches_off - before.switches_off
        on = after.switches_on - before.switches_on
        if off < cfg.crossings or on < cfg.crossings:
            raise StageFailed("threshold-crossings",
                              f"expected >= {cfg.crossings} switches each way, the log shows OFF={off} ON={on}")
        return {"bursts": cfg.crossings, "burst_size": burst, "switches_off": off, "switches_on": on,
                "singles_with_accepted_drafts": singles_spec}

    def _sampled(self, base):
        """Temperature sampling on both paths: the verify kernels for sampling differ from the greedy
        ones (on 0.5.12 the disabled path once handed them int32 tokens and the server died)."""
        burst = self.cfg.threshold + 4
        before = self._switches().switches_off
        with ThreadPoolExecutor(burst) as ex:
            futs = [ex.submit(generate, base, _prompt_set(1, seed=700 + k)[0], 48, 300, 1.0) for k in range(burst)]
            got = [len(f.result().get("output_ids") or []) for f in futs]
        one = generate(base, _prompt_set(1, seed=799)[0], 16, 300, 1.0)
        if any(g != 48 for g in got) or len(one.get("output_ids") or []) != 16:
            raise StageFailed("sampled-decode", f"sampled requests returned {got} and {len(one.get('output_ids') or [])} tokens "
                                                f"(asked 48 each, then 16)")
        if self._switches().switches_off <= before:
            raise StageFailed("sampled-decode", "the sampled burst never took the disabled path")
        return {"burst": burst, "temperature": 1.0, "tokens": sum(got) + 16}

    def _equivalence(self, base):
        prompts = _prompt_set(6)
        n = 32
        alone = [generate(base, p, n, 300).get("output_ids") for p in prompts]
        filler = [_prompt_set(1, seed=500 + k)[0] for k in range(self.cfg.threshold + 4)]
        before = self._switches().switches_off
        with ThreadPoolExecutor(len(prompts) + len(filler)) as ex:
            futs = [ex.submit(generate, base, p, n, 300) for p in prompts]
            fill = [ex.submit(generate, base, p, n + 64, 300) for p in filler]
            batched = [f.result().get("output_ids") for f in futs]
            for f in fill:
                f.result()
        if self._switches().switches_off <= before:
            raise StageFailed("greedy-equivalence", "the batched run never took the disabled path")
        divergences = []
        for i, (a, b) in enumerate(zip(alone, batched)):
            d = _first_divergence(a or [], b or [])
            if d is not None:
                divergences.append({"prompt": i, "first_divergent_position": d})
        if any(x["first_divergent_position"] == 0 for x in divergences):
            raise StageFailed("greedy-equivalence", f"first token differs between the speculative and disabled paths: {divergences}")
        return {"prompts": len(prompts), "identical": len(prompts) - len(divergences), "divergences": divergences,
                "note": "later divergences are bf16 near-ties between batch shapes" if divergences else "",
                "_outputs": alone}

    def _log_scan(self):
        rep = self._switches()
        if not rep.ready:
            raise StageFailed("log-scan", "the patch never logged 'patchkit-spec-disable: ready' (threshold not active?)")
        if rep.errors:
            raise StageFailed("log-scan", f"{len(rep.errors)} error line(s) in the server log, first: {rep.errors[0]}",
                              rep.location)
        detail = {"errors": 0, "switch_lines": rep.switches_off + rep.switches_on}
        if rep.decode_attention:
            detail["decode_attention"] = rep.decode_attention
        return detail

    def _teardown(self, baseline):
        rep = self.server.stop() if self.server else {}
        ok_mem, now = wait_gpu_released(baseline)
        clean = not rep.get("leftover_pids") and ok_mem
        detail = {"leftover_pids": rep.get("leftover_pids", []), "exit_code": rep.get("exit_code"),
                  "gpu_mem_baseline_mib": baseline, "gpu_mem_after_mib": now, "clean": clean}
        if not clean:
            detail["message"] = (f"leftover processes {rep.get('leftover_pids')}" if rep.get("leftover_pids")
                                 else f"GPU memory not released: {now} MiB vs {baseline} MiB before")
        self.stages.append({"name": "teardown", "passed": clean, "detail": detail, "seconds": 0})
        self.progress(f"[teardown] {'ok' if clean else 'FAILED'}: {detail}")
        return detail

    def _no_spec(self, spec_stage, baseline):
        port = free_port()
        base = f"http://{self.cfg.host}:{port}"
        srv = Server(launch_command(self.cfg, port, speculative=False), self.cfg.log_dir / "server-nospec.log", base)
        srv.start()
        try:
            srv.wait_ready(self.cfg.timeout)
            prompts = _prompt_set(6)
            plain = [generate(base, p, 32, 300).get("output_ids") for p in prompts]
        finally:
            rep = srv.stop()
            wait_gpu_released(baseline)
        divs = []
        for i, (a, b) in enumerate(zip(spec_stage.get("_outputs", []), plain)):
            d = _first_divergence(a or [], b or [])
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
                "threshold": self.cfg.threshold, "server_args": self.cfg.server_args}


def environment() -> dict:
    env = {"python": sys.version.split()[0]}
    try:
        import importlib.metadata as md
        env["torch"] = md.version("torch")
    except Exception:
        env["torch"] = None
    try:
        import subprocess
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=20)
        rows = [x.strip() for x in r.stdout.strip().splitlines() if x.strip()] if r.returncode == 0 else []
        env["gpu_model"] = rows[0].split(",")[0] if rows else None
        env["gpu_count"] = len(rows)
        env["driver"] = rows[0].split(",")[1].strip() if rows else None
        r2 = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=20)
        env["cuda"] = r2.stdout.strip().splitlines()[-1] if r2.returncode == 0 else None
    except (OSError, Exception):
        env.setdefault("gpu_model", None)
        env.setdefault("gpu_count", 0)
    return env
