"""soak: load oscillating around the threshold for ``soak_seconds``; switches counted; the server's
host RSS (its whole process group) and GPU memory (its processes) must stay flat."""
from __future__ import annotations

import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

from ..run import StageFailed, generate, prompt_set
from ..server import descendants, group_members

STAGE = "soak"


def rss_mib(pids: list[int]) -> float:
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for ln in f:
                    if ln.startswith("VmRSS:"):
                        total += int(ln.split()[1])
        except OSError:
            continue
    return total / 1024.0


def gpu_mib(pids: list[int]) -> Optional[float]:
    try:
        r = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode != 0:
        return None
    want, total = set(pids), 0.0
    for ln in r.stdout.strip().splitlines():
        parts = [x.strip() for x in ln.split(",")]
        if len(parts) == 2 and parts[0].isdigit() and int(parts[0]) in want:
            try:
                total += float(parts[1])
            except ValueError:
                pass
    return total


def soak(ctx):
    cfg = ctx.cfg
    srv = ctx.server
    pids = lambda: sorted(set(group_members(srv.proc.pid)) | set(descendants(srv.proc.pid)) | {srv.proc.pid})  # noqa: E731
    high, low = cfg.threshold + 3, max(1, cfg.threshold - 1)
    before = ctx.report()
    samples: list[tuple[float, float, Optional[float]]] = []
    stop = threading.Event()
    errors: list[str] = []

    def client(k: int, active: threading.Event):
        i = 0
        while not stop.is_set():
            if not active.is_set():
                time.sleep(0.01)
                continue
            try:
                r = generate(ctx.base, prompt_set(1, seed=60_000 + k * 1000 + i)[0], 24, 300)
                if len(r.get("output_ids") or []) != 24:
                    errors.append(f"client {k}: {len(r.get('output_ids') or [])} tokens (asked 24)")
            except Exception as exc:  # the server died: report it through the stage
                errors.append(f"client {k}: {type(exc).__name__}: {exc}")
                stop.set()
            i += 1

    gates = [threading.Event() for _ in range(high)]
    t0 = time.monotonic()
    cycles = 0
    with ThreadPoolExecutor(high) as ex:
        for k in range(high):
            ex.submit(client, k, gates[k])
        while time.monotonic() - t0 < cfg.soak_seconds and not stop.is_set():
            n = high if cycles % 2 == 0 else low
            for k, g in enumerate(gates):
                (g.set if k < n else g.clear)()
            time.sleep(1.0)
            samples.append((time.monotonic() - t0, rss_mib(pids()), gpu_mib(pids())))
            cycles += 1
        stop.set()
    if errors:
        msg, loc = ctx._server_failure(errors[0])
        raise StageFailed(STAGE, msg, loc)
    after = ctx.report()
    off, on = after.switches_off - before.switches_off, after.switches_on - before.switches_on
    detail = {"seconds": round(time.monotonic() - t0, 1), "cycles": cycles, "switches_off": off, "switches_on": on}
    if cfg.flag_on and min(off, on) < max(1, cycles // 4):
        raise StageFailed(STAGE, f"{cycles} load cycles around the threshold but only OFF={off} ON={on} switches")
    q = max(1, len(samples) // 4)
    if len(samples) >= 4:
        first, last = samples[1:1 + q], samples[-q:]
        rss_growth = sum(s[1] for s in last) / len(last) - sum(s[1] for s in first) / len(first)
        detail["rss_mib_start"], detail["rss_mib_end"] = round(first[0][1], 1), round(last[-1][1], 1)
        detail["rss_growth_mib"] = round(rss_growth, 1)
        if rss_growth > cfg.rss_tolerance_mib:
            raise StageFailed(STAGE, f"host memory grew {rss_growth:.0f} MiB over the soak "
                                     f"(tolerance {cfg.rss_tolerance_mib:.0f} MiB; {on + off} switches)")
        gpus = [s[2] for s in samples if s[2] is not None]
        if len(gpus) >= 4:
            g_growth = sum(gpus[-q:]) / q - sum(gpus[1:1 + q]) / q
            detail["gpu_growth_mib"] = round(g_growth, 1)
            if g_growth > cfg.gpu_tolerance_mib:
                raise StageFailed(STAGE, f"GPU memory grew {g_growth:.0f} MiB over the soak "
                                         f"(tolerance {cfg.gpu_tolerance_mib:.0f} MiB)")
    return detail
