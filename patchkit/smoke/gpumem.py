"""GPU memory during a smoke run, per GPU index, from nvidia-smi: the baseline before the first
server, the peak while it ran (a sampling thread), and what is left after teardown. The record's
``gpu_memory`` field (schema 2, optional; ``patchkit.signoff.validate`` checks it). Never prints."""
from __future__ import annotations

import os
import subprocess
import threading
import time
from typing import Callable, Iterable, Optional

#: one row per GPU: (index, used MiB, total MiB)
Rows = list[tuple[int, int, int]]


def query() -> Optional[Rows]:
    """(index, used MiB, total MiB) of every GPU nvidia-smi lists; None without nvidia-smi."""
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=index,memory.used,memory.total",
                            "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    rows = []
    for line in r.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3 and all(p.isdigit() for p in parts):
            rows.append((int(parts[0]), int(parts[1]), int(parts[2])))
    return rows or None


def rank_gpus(tp: int, server_args: list[str] = (), env: Optional[dict] = None) -> dict[int, int]:
    """{GPU index (as nvidia-smi numbers it): tensor-parallel rank} for a server of ``tp`` ranks:
    rank r runs on visible device ``--base-gpu-id`` + r, mapped through CUDA_VISIBLE_DEVICES when it
    lists indices (the PCI order nvidia-smi uses; a list of UUIDs is not mapped)."""
    env = os.environ if env is None else env
    args = list(server_args)
    base = 0
    for i, a in enumerate(args):
        if a == "--base-gpu-id" and i + 1 < len(args) and args[i + 1].isdigit():
            base = int(args[i + 1])
        elif a.startswith("--base-gpu-id=") and a.split("=", 1)[1].isdigit():
            base = int(a.split("=", 1)[1])
    visible = [v.strip() for v in (env.get("CUDA_VISIBLE_DEVICES") or "").split(",") if v.strip()]
    out = {}
    for r in range(max(1, tp)):
        dev = base + r
        if visible:
            if dev >= len(visible) or not visible[dev].isdigit():
                continue
            dev = int(visible[dev])
        out[dev] = r
    return out


class Sampler:
    """Samples used memory every ``interval`` seconds between ``start()`` and ``stop()`` on
    ``gpus`` (nvidia-smi indices, as ``rank_gpus`` gives them; None: every GPU), so a job on
    another GPU of the host never counts as this run's leak; ``summary()`` is the record's
    ``gpu_memory`` value (None when no watched GPU answered)."""

    def __init__(self, interval: float = 0.5, source: Callable[[], Optional[Rows]] = query,
                 gpus: Optional[Iterable[int]] = None):
        self.interval = interval
        watched = None if gpus is None else frozenset(gpus)
        self.source = source if watched is None else \
            (lambda: [r for r in (source() or []) if r[0] in watched] or None)
        self.baseline: dict[int, int] = {}
        self.peak: dict[int, int] = {}
        self.total: dict[int, int] = {}
        self.after: dict[int, int] = {}
        self.samples = 0
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def _take(self) -> Optional[Rows]:
        rows = self.source()
        if rows:
            self.samples += 1
            for i, used, total in rows:
                self.peak[i] = max(self.peak.get(i, used), used)
                self.total[i] = total
        return rows

    def start(self) -> "Sampler":
        rows = self._take()
        self.baseline = {i: used for i, used, _t in rows or []}
        if rows:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self._take()

    def stop(self) -> None:
        """Stop sampling (the servers are gone: call ``settle`` for the memory after teardown)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def settle(self, timeout: float = 60.0, slack_mib: int = 1024) -> bool:
        """Wait until every GPU is back within ``slack_mib`` of its baseline; True when it is."""
        if not self.baseline:
            return True
        end = time.monotonic() + timeout
        while True:
            rows = self.source() or []
            self.after = {i: used for i, used, _t in rows}
            if all(self.after.get(i, 0) <= b + slack_mib for i, b in self.baseline.items()):
                return True
            if time.monotonic() >= end:
                return False
            time.sleep(1.0)

    def summary(self, ranks: Optional[dict[int, int]] = None, released: Optional[bool] = None) -> Optional[dict]:
        """{source, interval_s, samples, released, gpus: [{index, rank, baseline_mib, peak_mib,
        after_mib, total_mib}]}; ``rank`` is the tensor-parallel rank on that GPU or null."""
        if not self.baseline:
            return None
        ranks = ranks or {}
        gpus = [{"index": i, "rank": ranks.get(i), "baseline_mib": self.baseline[i],
                 "peak_mib": self.peak.get(i, self.baseline[i]), "after_mib": self.after.get(i),
                 "total_mib": self.total.get(i)} for i in sorted(self.baseline)]
        return {"source": "nvidia-smi", "interval_s": self.interval, "samples": self.samples,
                "released": released, "gpus": gpus}


def left_over(gpus: list[dict], slack_mib: int = 1024) -> str:
    """``GPU i: A MiB vs B MiB before`` for each GPU not back within ``slack_mib`` of its
    baseline after teardown ("" when every one is)."""
    bad = [g for g in gpus if g.get("after_mib") is None or g["after_mib"] > g["baseline_mib"] + slack_mib]
    return ", ".join(f"GPU {g['index']}: {g.get('after_mib')} MiB vs {g['baseline_mib']} MiB before" for g in bad)


def not_released(summary: Optional[dict], slack_mib: int = 1024) -> Optional[str]:
    """The teardown failure of ``summary`` (None: every GPU is back near its baseline)."""
    if not summary or summary.get("released") is not False:
        return None
    return f"GPU memory not released after teardown ({left_over(summary['gpus'], slack_mib)})"
