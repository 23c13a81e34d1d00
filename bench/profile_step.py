#!/usr/bin/env python3
"""Where does a decode step's time go? One torch-profiler window per configuration, under load.

On a GPU host (same trees and checkpoint as bench/spec_throughput.py):

    python3 bench/profile_step.py --model-path M/target --draft-model-path M/draft \
        --site /tmp/site --patched-site /tmp/site-patched --concurrency 128 \
        --configs nospec,patched0,eagle --out profile.json

``patched0`` is the patched server with threshold 0, so every decode step takes the disabled path;
``patched0-skip`` the same with ``PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND=skip`` (no draft extend on them).
For each configuration it boots the server, holds a closed loop at --concurrency, asks the
server's own ``/start_profile`` for --steps steps (CPU + GPU), and reduces the chrome trace to:
wall time per step, GPU kernel time per step (total and by kernel, top 25), and the CPU-side
runtime calls that block (synchronizations), and the GPU time split into attention / GEMM / draft /
other (``split_ms_per_step``: draft = kernels launched inside SGLang's ``draft`` or ``draft_extend``
profiler spans, the rest by kernel name). A step whose wall time is far above its kernel
time is bound by the CPU (scheduler/bookkeeping); one whose kernel time is high is bound by the GPU.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from spec_throughput import add_server_args, closed_loop, request, serve  # noqa: E402


def summarize_trace(path: Path, steps: int, top: int = 25) -> dict:
    """Reduce one chrome trace (torch profiler) to per-step figures."""
    with gzip.open(path, "rt") if path.suffix == ".gz" else open(path) as f:
        doc = json.load(f)
    events = [e for e in doc.get("traceEvents", []) if e.get("ph") == "X"]
    kernels = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    by_name: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for e in kernels:
        slot = by_name[e.get("name", "?")[:120]]
        slot[0] += float(e.get("dur", 0))
        slot[1] += 1
    runtime = defaultdict(lambda: [0.0, 0])
    for e in events:
        if e.get("cat") == "cuda_runtime":
            slot = runtime[e.get("name", "?")]
            slot[0] += float(e.get("dur", 0))
            slot[1] += 1
    if kernels:
        first = min(float(e["ts"]) for e in kernels)
        last = max(float(e["ts"]) + float(e.get("dur", 0)) for e in kernels)
        span = last - first
    else:
        span = 0.0
    kernel_total = sum(v[0] for v in by_name.values())
    per = max(1, steps)
    syncs = sync_sites(events)
    # where the host side of a step goes: which code launches kernels and copies
    launches = sync_sites(events, depth=3, calls=LAUNCH_CALLS)
    split = stage_split(events, kernels)
    host = host_functions(events)
    return {
        "trace": path.name,
        "steps": steps,
        "gpu_span_ms_per_step": round(span / per / 1000, 3),
        "kernel_ms_per_step": round(kernel_total / per / 1000, 3),
        "gpu_busy_fraction": round(kernel_total / span, 3) if span else None,
        "split_ms_per_step": {k: round(v / per / 1000, 3) for k, v in split.items()},
        "top_kernels": [
            {"name": n, "ms_per_step": round(v[0] / per / 1000, 3), "calls_per_step": round(v[1] / per, 1)}
            for n, v in sorted(by_name.items(), key=lambda kv: -kv[1][0])[:top]],
        "runtime_calls": [
            {"name": n, "ms_per_step": round(v[0] / per / 1000, 3), "calls_per_step": round(v[1] / per, 1)}
            for n, v in sorted(runtime.items(), key=lambda kv: -kv[1][0])[:12]],
        "launch_sites": [
            {"stack": list(k), "calls_per_step": round(v[1] / per, 2), "ms_per_step": round(v[0] / per / 1000, 3)}
            for k, v in sorted(launches.items(), key=lambda kv: -kv[1][1])[:top]],
        # inclusive wall time of each Python function of our libraries, per step (nested ones count
        # in their callers too): where the host side of a step goes, beyond its runtime calls
        "host_functions": [
            {"function": n, "ms_per_step": round(v[0] / per / 1000, 3), "calls_per_step": round(v[1] / per, 2)}
            for n, v in sorted(host.items(), key=lambda kv: -kv[1][0])[:top * 2]],
        "sync_sites": [
            {"stack": list(k), "calls_per_step": round(v[1] / per, 2), "ms_per_step": round(v[0] / per / 1000, 3)}
            for k, v in sorted(syncs.items(), key=lambda kv: -kv[1][1])[:top]],
    }


#: record_function spans (SGLang's ``spec_stage_span``) whose kernels are the draft model's work
DRAFT_SPANS = ("draft", "draft_extend")
ATTENTION_MARKS = ("attention", "attn", "fmha", "flash", "batchprefill", "batchdecode", "prefillwith",
                   "decodewith", "_fwd_kernel", "_fwd_grouped_kernel", "mla", "paged")
GEMM_MARKS = ("gemm", "nvjet", "cutlass", "xmma", "matmul", "cublas", "splitk", "sm90_", "sm100_")
SPLIT_KEYS = ("attention", "gemm", "draft", "other")


def kernel_family(name: str) -> str:
    """attention / gemm / other, from a kernel's name (FlashInfer, Triton, cuBLAS/nvjet, CUTLASS)."""
    low = name.lower()
    if any(m in low for m in ATTENTION_MARKS):
        return "attention"
    if any(m in low for m in GEMM_MARKS):
        return "gemm"
    return "other"


def stage_split(events: list, kernels: list) -> dict:
    """GPU time (us, whole window) by attention / gemm / draft / other. A kernel is the draft's when
    the runtime call that launched it (same ``correlation``; a CUDA-graph launch counts for all its
    kernels) ran inside a ``draft`` or ``draft_extend`` span on its thread; the rest is split by
    kernel name. ``draft_<family>`` keys break the draft's share down the same way."""
    spans: dict = defaultdict(list)
    launches: dict = {}
    for e in events:
        cat = e.get("cat")
        if cat == "user_annotation" and e.get("name") in DRAFT_SPANS:
            t0 = float(e["ts"])
            spans[(e.get("pid"), e.get("tid"))].append((t0, t0 + float(e.get("dur", 0))))
        elif cat in ("cuda_runtime", "cuda_driver"):
            corr = (e.get("args") or {}).get("correlation")
            if corr is not None:
                launches[corr] = ((e.get("pid"), e.get("tid")), float(e["ts"]))
    split = {k: 0.0 for k in SPLIT_KEYS}
    split.update({f"draft_{k}": 0.0 for k in ("attention", "gemm", "other")})
    for k in kernels:
        dur = float(k.get("dur", 0))
        family = kernel_family(k.get("name", ""))
        launch = launches.get((k.get("args") or {}).get("correlation"))
        if launch and any(t0 <= launch[1] <= t1 for t0, t1 in spans.get(launch[0], ())):
            split["draft"] += dur
            split[f"draft_{family}"] += dur
        else:
            split[family] += dur
    return split


#: runtime calls that put work on the GPU from the host: a step that issues many is bound by the host
LAUNCH_CALLS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaGraphLaunch")
SYNC_CALLS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy")
#: python frames worth naming in a sync's stack (the rest is torch and stdlib plumbing)
OWN_FRAMES = ("sglang", "flashinfer", "patchkit", "sgl_kernel")


def sync_sites(events: list, depth: int = 5, calls: tuple = None) -> dict:
    """Which Python code issued each blocking runtime call (or each of ``calls``): the innermost
    ``depth`` frames of our libraries (the profiler's ``python_function`` events, recorded with
    ``with_stack``) that enclose the call on its thread. Returns {stack tuple: [total us, calls]};
    "<no python stack>" when the trace has no frames around it. One sweep per thread over frames
    and calls in time order (a step launches hundreds of kernels; the trace holds ~10^5 frames)."""
    wanted = calls or SYNC_CALLS
    frames: dict = defaultdict(list)
    hits: dict = defaultdict(list)
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if e.get("cat") == "python_function" and any(k in e.get("name", "") for k in OWN_FRAMES):
            frames[key].append((float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0)), e["name"]))
        elif e.get("cat") == "cuda_runtime" and e.get("name") in wanted:
            hits[key].append((float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0)), e))
    sites: dict = defaultdict(lambda: [0.0, 0])
    for key, found in hits.items():
        fl = sorted(frames.get(key, ()), key=lambda f: (f[0], -f[1]))  # outermost first at a tie
        stack: list = []
        i = 0
        for t0, t1, e in sorted(found, key=lambda h: h[0]):
            while i < len(fl) and fl[i][0] <= t0:
                while stack and stack[-1][1] < fl[i][0]:
                    stack.pop()  # ended before this one began
                stack.append(fl[i])
                i += 1
            around = [f for f in stack if f[0] <= t0 and f[1] >= t1]
            stack_names = tuple(_short(f[2]) for f in around[-depth:]) or ("<no python stack>",)
            slot = sites[(e["name"],) + stack_names]
            slot[0] += t1 - t0
            slot[1] += 1
    return dict(sites)


def host_functions(events: list) -> dict:
    """{function: [inclusive us, calls]} over the ``python_function`` events of our libraries
    (SGLang, FlashInfer, patchkit, sgl-kernel). A recursive call counts once per frame."""
    out: dict = defaultdict(lambda: [0.0, 0])
    for e in events:
        if e.get("cat") == "python_function" and any(k in e.get("name", "") for k in OWN_FRAMES):
            slot = out[_short(e["name"])]
            slot[0] += float(e.get("dur", 0))
            slot[1] += 1
    return dict(out)


def _short(frame: str) -> str:
    """'…/site-packages/sglang/srt/x/y.py(12): f' -> 'sglang/srt/x/y.py(12): f'."""
    for key in OWN_FRAMES:
        at = frame.find(key + "/")
        if at >= 0:
            return frame[at:]
    return frame


def start_profile(base: str, body: dict) -> str:
    """POST /start_profile; the server answers in plain text, not JSON."""
    import urllib.request
    req = urllib.request.Request(f"{base}/start_profile", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        return r.read().decode(errors="replace")


#: profile configurations beyond spec_throughput's: the patched server with every decode step disabled
ZERO_T = {"patched0": "patched", "patched0-skip": "patched-skip-above-t"}


def profile_window(srv, args, name: str, concurrency: int, trace_dir: Path) -> dict:
    """Hold a closed loop at ``concurrency`` on a ready server, take one ``/start_profile`` window of
    ``args.steps`` steps in the middle of it, and reduce the trace. Returns {load, profile}."""
    stagger = getattr(args, "stagger", 0.0) or 0.0
    closed_loop(srv.base_url, concurrency, 4, args.in_len, args.out_len, args.temperature)
    trace_dir.mkdir(parents=True, exist_ok=True)
    load: dict = {}
    t = threading.Thread(target=lambda: load.update(closed_loop(
        srv.base_url, concurrency, args.load_seconds, args.in_len, args.out_len, args.temperature, stagger)))
    t.start()
    # with staggered arrivals the window opens once every worker has started (prefills arrive one
    # by one between decode steps, as in bench/spec_throughput.py --stagger)
    time.sleep(3 + stagger)
    t0 = time.monotonic()
    start_profile(srv.base_url, {"output_dir": str(trace_dir), "num_steps": args.steps,
                                 "activities": ["CPU", "GPU"], "with_stack": True})
    traces = []
    while time.monotonic() - t0 < 240 and not traces:
        traces = sorted(trace_dir.glob("*.trace.json*"))
        time.sleep(1)
    t.join()
    if not traces:
        raise RuntimeError(f"no trace written to {trace_dir}")
    time.sleep(3)  # let the writer finish
    p = summarize_trace(traces[-1], args.steps)
    print(f"{name:>13} conc={concurrency} tok/s={load.get('output_tok_s')} accept={load.get('accept_length')} "
          f"span/step={p['gpu_span_ms_per_step']} ms kernels/step={p['kernel_ms_per_step']} ms "
          f"busy={p['gpu_busy_fraction']}", flush=True)
    print("    split ms/step: " + "  ".join(f"{k}={v}" for k, v in p["split_ms_per_step"].items()), flush=True)
    for k in p["top_kernels"][:12]:
        print(f"    {k['ms_per_step']:8.3f} ms x{k['calls_per_step']:6.1f}  {k['name']}", flush=True)
    for k in p["runtime_calls"][:5]:
        print(f"    cpu {k['ms_per_step']:8.3f} ms x{k['calls_per_step']:6.1f}  {k['name']}", flush=True)
    for k in p["launch_sites"][:10]:
        print(f"    launch x{k['calls_per_step']:5.2f}  " + "  <  ".join(reversed(k["stack"])), flush=True)
    for k in p["host_functions"][:25]:
        print(f"    host {k['ms_per_step']:8.3f} ms x{k['calls_per_step']:6.2f}  {k['function']}", flush=True)
    for k in p["sync_sites"][:8]:
        print(f"    sync x{k['calls_per_step']:5.2f} {k['ms_per_step']:7.3f} ms  " + "  <  ".join(reversed(k["stack"])), flush=True)
    return {"load": load, "profile": p}


def profile_config(args, name: str, folder: Path) -> dict:
    threshold = 0 if name in ZERO_T else args.threshold
    cfg = ZERO_T.get(name, name)
    out: dict = {"config": name, "threshold": threshold if cfg.startswith("patched") else None,
                 "concurrency": args.concurrency}

    def profile(srv) -> None:
        request(srv.base_url, [1, 5, 6, 7], 8, args.temperature, 900)
        out.update(profile_window(srv, args, name, args.concurrency, folder / f"trace-{name}"))

    return serve(args, cfg, threshold, folder, out, profile)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_server_args(ap, workdir="/tmp/profile")
    ap.add_argument("--configs", default="nospec,patched0,eagle")
    ap.add_argument("--threshold", type=int, default=0)
    ap.add_argument("--concurrency", type=int, default=128)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--load-seconds", type=float, default=14)
    ap.add_argument("--stagger", type=float, default=0.0,
                    help="worker i starts i/c*S seconds late (spec_throughput.py --stagger); the window opens after S")
    args = ap.parse_args()
    if args.stagger and args.stagger + 3 >= args.load_seconds:
        ap.error(f"--stagger {args.stagger}: must end before the load does (--load-seconds {args.load_seconds} - 3 s)")
    args.levels = [args.concurrency]
    folder = Path(args.workdir)
    folder.mkdir(parents=True, exist_ok=True)
    results = []
    for name in args.configs.split(","):
        results.append(profile_config(args, name, folder))
        Path(args.out).write_text(json.dumps({"results": results}, indent=1))


if __name__ == "__main__":
    main()
