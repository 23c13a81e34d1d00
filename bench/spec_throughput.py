#!/usr/bin/env python3
"""Throughput of the dynamic-spec-disable patch against its peers, measured in one run.

On a GPU host with the patched SGLang importable (see bench/gpu/bench_on_host.sh):
    python3 bench/spec_throughput.py --out results.json [--threshold 8] [--levels 1,4,16,64]

Configurations (same server flags otherwise):
  nospec        no speculation (baseline)
  eagle         EAGLE-3, patch present but no threshold (the unpatched code path)
  eagle+T       EAGLE-3 with --speculative-disable-batch-threshold T
Closed-loop load: at concurrency C, C workers each send the next request as soon as the last
returns (fixed input/output lengths, greedy, ignore_eos) for --seconds per level.
Prints output tok/s per level and the ratio of eagle+T to max(nospec, eagle).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from patchkit.smoke import tiny  # noqa: E402
from patchkit.smoke.run import SmokeConfig, free_port, generate, launch_command  # noqa: E402
from patchkit.smoke.server import Server, gpu_memory_used_mib, wait_gpu_released  # noqa: E402


def closed_loop(base: str, conc: int, seconds: float, in_len: int, out_len: int) -> dict:
    stop = time.monotonic() + seconds
    lat: list[float] = []
    toks = [0]
    lock = threading.Lock()

    def worker(seed: int):
        rng = random.Random(seed)
        while time.monotonic() < stop:
            ids = [1] + [rng.randrange(100, 31000) for _ in range(in_len - 1)]
            t0 = time.monotonic()
            out = generate(base, ids, out_len, 600)
            dt = time.monotonic() - t0
            with lock:
                lat.append(dt)
                toks[0] += len(out.get("output_ids") or [])

    t0 = time.monotonic()
    ths = [threading.Thread(target=worker, args=(i,)) for i in range(conc)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    wall = time.monotonic() - t0
    lat.sort()
    pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] if lat else None  # noqa: E731
    return {"concurrency": conc, "requests": len(lat), "output_tok_s": round(toks[0] / wall, 1),
            "p50_s": pct(0.5), "p90_s": pct(0.9), "p99_s": pct(0.99),
            "mean_s": statistics.mean(lat) if lat else None}


def run_config(name, spec, threshold, args, folder) -> dict:
    mt, md = tiny.write(folder / "model")
    extra = tiny.TINY_ARGS + args.server_arg
    cfg = SmokeConfig(str(mt), str(md) if spec else None, 1, threshold or 0, server_args=extra)
    port = free_port()
    cmd = launch_command(cfg, port, speculative=spec)
    if spec and threshold is None:
        i = cmd.index("--speculative-disable-batch-threshold")
        del cmd[i:i + 2]
    srv = Server(cmd, folder / f"server-{name}.log", f"http://127.0.0.1:{port}")
    base_mem = gpu_memory_used_mib()
    srv.start()
    out = {"config": name, "command": " ".join(cmd), "levels": []}
    try:
        out["ready_s"] = round(srv.wait_ready(900), 1)
        generate(srv.base_url, [1, 2, 3], 8, 600)  # warm-up (kernels compile on first use)
        closed_loop(srv.base_url, max(args.levels), 5, args.in_len, args.out_len)
        for c in args.levels:
            r = closed_loop(srv.base_url, c, args.seconds, args.in_len, args.out_len)
            print(f"{name:>10} conc={c:4d} {r['output_tok_s']:10.1f} tok/s  p50={r['p50_s']:.3f}s", flush=True)
            out["levels"].append(r)
        log = (folder / f"server-{name}.log").read_text(errors="replace")
        out["switch_lines"] = log.count("patchkit-spec-disable: OFF") + log.count("patchkit-spec-disable: ON")
    finally:
        srv.stop()
        wait_gpu_released(base_mem)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--threshold", type=int, default=8)
    ap.add_argument("--levels", default="1,4,16,64")
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--in-len", type=int, default=128)
    ap.add_argument("--out-len", type=int, default=128)
    ap.add_argument("--server-arg", action="append", default=[])
    ap.add_argument("--workdir", default="/tmp/bench")
    args = ap.parse_args()
    args.levels = [int(x) for x in args.levels.split(",")]
    folder = Path(args.workdir)
    folder.mkdir(parents=True, exist_ok=True)
    results = [run_config("nospec", False, None, args, folder),
               run_config("eagle", True, None, args, folder),
               run_config(f"eagle+T{args.threshold}", True, args.threshold, args, folder)]
    by = {r["config"]: {lv["concurrency"]: lv["output_tok_s"] for lv in r["levels"]} for r in results}
    summary = []
    for c in args.levels:
        best_peer = max(by["nospec"][c], by["eagle"][c])
        mine = by[f"eagle+T{args.threshold}"][c]
        summary.append({"concurrency": c, "nospec": by["nospec"][c], "eagle": by["eagle"][c],
                        "patched": mine, "ratio_vs_best_peer": round(mine / best_peer, 3),
                        "ratio_vs_eagle": round(mine / by["eagle"][c], 3)})
        print(f"conc={c:4d} patched/max(nospec,eagle) = {mine / best_peer:.3f}   patched/eagle = {mine / by['eagle'][c]:.3f}")
    Path(args.out).write_text(json.dumps({"results": results, "summary": summary, "args": vars(args)}, indent=2))


if __name__ == "__main__":
    main()
