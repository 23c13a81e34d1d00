#!/usr/bin/env python3
"""Run the patched server in several configurations ("cells") at once on one GPU and record, per
cell, what a user would see: did it boot (or refuse with the expected one-line message), did the
first decode work, did the mode switch both ways under a burst, did greedy outputs of a fixed
request stay the same across the switches, and did the log stay free of tracebacks.

    python3 bench/gpu/cells.py --cells 0.5.16 --model-dir /tmp/tiny --out $OUT/cells-0.5.16.json --parallel 5

Cells run with SGLang's invariant checkers on where the release has them. The record is JSON,
one entry per cell, with its launch command, timings and the evidence behind each verdict.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from patchkit.smoke import tiny  # noqa: E402
from patchkit.smoke.run import free_port  # noqa: E402
from patchkit.smoke.server import Server, ServerExited, ServerTimeout, http_json  # noqa: E402

BASE = ["--load-format", "dummy", "--skip-tokenizer-init", "--attention-backend", "triton",
        "--sampling-backend", "pytorch", "--grammar-backend", "none", "--host", "127.0.0.1"]
SPEC = ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]
FLAG = ["--speculative-disable-batch-threshold", "4", "--speculative-disable-hysteresis", "2"]
CHECKERS = {"SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_BUSY": "1", "SGLANG_CHECK_KV_PAGE_INVARIANTS": "1"}


def cells(model: Path, release: str = "0.5.16") -> dict[str, dict]:
    t, d = str(model / "target"), str(model / "draft")
    eagle3 = ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", d, *SPEC]
    standalone = ["--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", t, *SPEC]
    refuse = "cannot be used with"
    v1 = release in ("0.5.12", "0.5.13")
    return {
        "eagle3-flag": {"args": eagle3 + FLAG},
        "eagle3-noflag": {"args": eagle3, "switches": False},
        "standalone-noflag": {"args": standalone, "switches": False},
        "standalone-flag": {"args": standalone + FLAG},
        # 0.5.12-0.5.13 run the spec-v1 EAGLEWorker without the overlap scheduler: refused, never silent
        "eagle3-flag-nooverlap": {"args": eagle3 + FLAG + ["--disable-overlap-schedule"],
                                  **({"refused": "which is not a subclass of EAGLEWorkerV2"} if v1 else {})},
        "eagle3-flag-nograph-page16": {"args": eagle3 + FLAG + ["--disable-cuda-graph", "--page-size", "16"]},
        "eagle3-flag-page16": {"args": eagle3 + FLAG + ["--page-size", "16"]},
        "eagle3-flag-nograph": {"args": eagle3 + FLAG + ["--disable-cuda-graph"]},
        "standalone-flag-nooverlap": {"args": standalone + FLAG + ["--disable-overlap-schedule"],
                                      **({"refused": "which is not a subclass of EAGLEWorkerV2"} if v1 else {})},
        "eagle3-flag-hidden-states": {"args": eagle3 + FLAG + ["--enable-return-hidden-states"]},
        "eagle3-flag-topk2": {"args": ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", d,
                                       "--speculative-num-steps", "3", "--speculative-eagle-topk", "2",
                                       "--speculative-num-draft-tokens", "4"] + FLAG,
                              "refused": f"{refuse} --speculative-eagle-topk > 1"},
        "eagle3-flag-adaptive": {"args": eagle3 + FLAG + ["--speculative-adaptive"],
                                 "refused": f"{refuse} --speculative-adaptive"},
        "eagle3-flag-tbo": {"args": eagle3 + FLAG + ["--enable-two-batch-overlap"],
                            "refused": f"{refuse} --enable-two-batch-overlap"},
        "nospec-flag": {"args": FLAG, "refused": "needs --speculative-algorithm"},
    }


def generate(base: str, ids: list[int], n: int, timeout: float = 300) -> list[int]:
    r = http_json(f"{base}/generate", {"input_ids": ids, "sampling_params": {"max_new_tokens": n, "temperature": 0, "ignore_eos": True}},
                  timeout=timeout)
    return list(r["output_ids"])


def run_cell(name: str, spec: dict, model: Path, python: str, logs: Path, mem: float, timeout: float) -> dict:
    port = free_port()
    cmd = [python, "-m", "sglang.launch_server", "--model-path", str(model / "target"), "--port", str(port),
           *BASE, "--mem-fraction-static", str(mem), *spec["args"]]
    srv = Server(cmd, logs / f"{name}.log", f"http://127.0.0.1:{port}", env=dict(CHECKERS))
    rec: dict = {"cell": name, "cmd": " ".join(cmd[1:]), "expect": "refused" if "refused" in spec else "serves"}
    t0 = time.monotonic()
    srv.start()
    try:
        try:
            rec["ready_s"] = round(srv.wait_ready(timeout), 1)
        except ServerExited as exc:
            text = srv.log_path.read_text(errors="replace")
            line = next((ln for ln in reversed(text.splitlines()) if "cannot be used with" in ln or "needs --spec" in ln), "")
            rec["exit"] = exc.code
            rec["refusal"] = line.strip()[-300:]
            want = spec.get("refused")
            rec["passed"] = bool(want and want in text)
            rec["verdict"] = ("refused as expected" if rec["passed"] else
                              f"exited with code {exc.code}: {exc.tail[-600:]}")
            return rec
        if "refused" in spec:
            rec["passed"], rec["verdict"] = False, "booted although it should have been refused"
            return rec
        base = srv.base_url
        probe = [1, 100, 200, 300]
        rec["first_decode"] = first = generate(base, probe, 24)
        outs = []
        with ThreadPoolExecutor(16) as pool:
            for burst in range(3):
                prompts = [[1, 50 + burst * 16 + i, 7, 9] for i in range(12)]
                list(pool.map(lambda p: generate(base, p, 48), prompts))
                outs.append(generate(base, probe, 24))
        rec["probe_identical_after_bursts"] = all(o == first for o in outs)
        text = srv.log_path.read_text(errors="replace")
        rec["off"] = text.count("patchkit-spec-disable: OFF")
        rec["on"] = text.count("patchkit-spec-disable: ON")
        rec["ready_line"] = next((ln.split("patchkit-spec-disable: ", 1)[1] for ln in text.splitlines()
                                  if "patchkit-spec-disable: ready" in ln), None)
        rec["tracebacks"] = text.count("Traceback")
        alive = srv.alive()
        want_switches = spec.get("switches", True)
        ok = alive and rec["tracebacks"] == 0 and rec["probe_identical_after_bursts"] and \
            ((rec["off"] >= 3 and rec["on"] >= 2) if want_switches else (rec["off"] == 0 and rec["ready_line"] is None))
        rec["passed"] = bool(ok)
        rec["verdict"] = "serves" if ok else (f"alive={alive} tracebacks={rec['tracebacks']} off={rec['off']} "
                                              f"on={rec['on']} probe_identical={rec['probe_identical_after_bursts']}")
        return rec
    except (ServerTimeout, urllib.error.URLError, OSError, KeyError, ValueError) as exc:
        rec["passed"], rec["verdict"] = False, f"{type(exc).__name__}: {exc}; log tail: {srv.tail(15)[-800:]}"
        return rec
    finally:
        rec["teardown"] = srv.stop()
        rec["seconds"] = round(time.monotonic() - t0, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--logs", type=Path, default=Path("/tmp/cell-logs"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--release", default="0.5.16", help="the SGLang release under test (sets expectations)")
    ap.add_argument("--parallel", type=int, default=4)
    ap.add_argument("--mem", type=float, default=None, help="--mem-fraction-static per cell")
    ap.add_argument("--timeout", type=float, default=420)
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args()
    tiny.write(a.model_dir)
    todo = {k: v for k, v in cells(a.model_dir, a.release).items() if not a.only or k in a.only}
    # each server profiles free memory while the others hold theirs: a fraction of the whole card
    mem = a.mem or round(0.84 / max(1, min(a.parallel, len(todo))), 3)
    a.logs.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(a.parallel) as pool:
        futs = {k: pool.submit(run_cell, k, v, a.model_dir, a.python, a.logs, mem, a.timeout) for k, v in todo.items()}
        results = []
        for k, f in futs.items():
            r = f.result()
            results.append(r)
            print(f"{'PASS' if r.get('passed') else 'FAIL'}  {k:28s} {r.get('seconds', '?')}s  {r.get('verdict')}", flush=True)
    a.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"{sum(bool(r.get('passed')) for r in results)} passed, {sum(not r.get('passed') for r in results)} failed")
    return 0 if all(r.get("passed") for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
