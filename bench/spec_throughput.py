#!/usr/bin/env python3
"""Does dynamic-spec-disable give the best of both worlds? Throughput against its peers, one run.

On a GPU host (see bench/gpu/bench_on_host.sh, which builds the agreeing checkpoint and both
SGLang trees):

    python3 bench/spec_throughput.py --model-path M/target --draft-model-path M/draft \
        --site /tmp/site --patched-site /tmp/site-patched --out bench.json

Configurations (identical server flags otherwise; each its own server, one after the other):
  nospec        no speculation (baseline)                              pristine SGLang tree
  eagle         EAGLE-3, unpatched                                     pristine SGLang tree
  patched       EAGLE-3 + --speculative-disable-batch-threshold T      patched tree
  patched-keep  as patched, with PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND=keep (draft extend on every
                disabled step, patch 2.1's behaviour)
  patched-skip-above-t  as patched, with PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND=skip (no draft-model work
                above T: no draft extend on disabled decode steps, no draft prefill of prompts
                admitted there; the run-up to a resume runs the extend)
  patched-skip-decode  as patched, with PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND=skip-decode (decode-step
                extends only: patch 2.4's skip, prompts admitted above T keep their draft prefill)
  patched-kv    as patched, with PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND=kv (decode-step extends and prompt
                prefills above T replaced by a write of the draft's KV cache alone: no holes, no
                draft forward)
  patched-kv-check  as patched-kv, with PATCHKIT_SPEC_DISABLE_KV_CHECK=64: the first 64 such steps, and
                the first 64 such prompt batches, also run the full extend (prefill) and log how
                their KV rows compare with the KV-only ones
  patched-skip  as patched, with upstream's SGLANG_SPEC_SKIP_ZERO_STEP_DRAFT_EXTEND=1 (0.5.14+)
  patched-lens-off  as patched, with PATCHKIT_SPEC_DISABLE_HOST_LENS=off (the scheduler waits for the
                device's lengths after a disabled step, patch 2.2's behaviour)
  adaptive      upstream --speculative-adaptive switching to 0 steps above T (0.5.16+)
  patched-inert the patched tree without the threshold flag (the patch installed, switched off): the
                control for what the patch's presence costs where it never disables
  eagle-again   a second unpatched EAGLE-3 server, launched where it stands in --configs (with
                --threshold auto nospec and eagle run first): the control for run order and host drift
  nospec-again  a second server without speculation, launched where it stands in --configs: the
                drift control above T (``nospec,patched-kv,nospec-again`` brackets the patched run)
Load: closed loop; at concurrency C, C clients each send the next request when the last returns
(fixed input/output lengths, ignore_eos, temperature --temperature) for --seconds per level.

Threshold: ``--threshold auto`` (the default) is the tuning mode: after nospec and eagle it picks
T = the largest measured concurrency at which EAGLE-3 is at least as fast as no speculation, prints
it as the recommendation, and then measures the patched configurations at that T. On your own
model: pass your target and draft with --model-path/--draft-model-path and --configs
nospec,eagle,patched.

``--profile-at C`` adds one profiler window per configuration at concurrency C, recorded as the
per-step GPU time split (attention / GEMM / draft / other) with the top kernels and blocking syncs.

After the levels, every speculative configuration runs the resume probe (``--probe``, on by default):
acceptance of continuation requests whose prefix was decoded alone (steady) or during a disabled
stretch (lived), read from the radix cache with whatever the draft model's KV cache holds there.

Prints a table of output tok/s per level and each patched configuration's ratio to the better of
(nospec, eagle); writes everything (commands, versions, acceptance, latency percentiles) as JSON
after every configuration, so a killed run keeps what it finished.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from patchkit.smoke.run import free_port  # noqa: E402
from patchkit.smoke.server import Server, gpu_memory_used_mib, http_json, wait_gpu_released  # noqa: E402
from patchkit.smoke.stages.acceptance import accept  # noqa: E402

CONFIGS = ("nospec", "eagle", "patched", "patched-keep", "patched-skip-above-t", "patched-skip-decode", "patched-kv",
           "patched-kv-check", "patched-skip",
           "patched-lens-off", "adaptive", "patched-inert", "eagle-again",
           "nospec-again")
#: configurations whose threshold flag is left off (they never disable drafting)
NO_THRESHOLD = ("patched-inert",)
#: PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND per patched configuration (absent: the patch's default)
DRAFT_EXTEND = {"patched-keep": "keep", "patched-skip-above-t": "skip", "patched-skip-decode": "skip-decode",
                "patched-kv": "kv", "patched-kv-check": "kv"}
#: PATCHKIT_SPEC_DISABLE_HOST_LENS per patched configuration: ``patched-lens-off`` is 2.3.0 with the
#: host lengths off, i.e. 2.2.0's disabled step (the control for what they are worth in the same run)
HOST_LENS = {"patched-lens-off": "off"}
SPEC_ARGS = ["--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "3",
             "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]
BASE_ARGS = ["--skip-tokenizer-init", "--sampling-backend", "pytorch",
             "--grammar-backend", "none", "--skip-server-warmup", "--mem-fraction-static", "0.8"]
#: --attention-backend values: a backend name SGLang accepts, or "default" (SGLang chooses: on an H200
#: with a Llama model 0.5.16 picks fa3 for topk 1 and flashinfer for topk > 1)
DEFAULT_BACKEND = "default"


def backend_args(backend: str) -> list[str]:
    return [] if backend == DEFAULT_BACKEND else ["--attention-backend", backend]


def launch_facts(log_text: str) -> dict:
    """What the server really ran with, from SGLang's ``server_args=ServerArgs(...)`` start-up line:
    attention backend (after SGLang's default logic), page size, topk."""
    import re
    out = {}
    for key, field in (("attention_backend", "attention_backend"), ("page_size", "page_size"),
                       ("topk", "speculative_eagle_topk"), ("decode_backend", "decode_attention_backend"),
                       ("prefill_backend", "prefill_attention_backend")):
        m = re.search(rf"\b{field}=('([^']*)'|None|-?\d+)", log_text)
        if m:
            v = m.group(2) if m.group(2) is not None else m.group(1)
            out[key] = None if v == "None" else (int(v) if v.lstrip("-").isdigit() else v)
    return out


def request(base: str, ids: list[int], out_len: int, temperature: float, timeout: float) -> dict:
    return http_json(f"{base}/generate", {"input_ids": ids, "sampling_params": {
        "max_new_tokens": out_len, "temperature": temperature, "ignore_eos": True}}, timeout=timeout)


def closed_loop(base: str, conc: int, seconds: float, in_len: int, out_len: int, temperature: float,
                stagger: float = 0.0) -> dict:
    """``conc`` workers each send one request after another until ``seconds`` have passed, then the
    requests in flight finish. ``output_tok_s``: every token returned over the whole wall time, the
    ramp and the drain included. ``window_tok_s``: the steady part only, the tokens made between
    ``t0 + max(stagger, seconds / 4)`` and the stop, each request's tokens spread evenly over its
    lifetime. Worker ``i`` starts ``i / conc * stagger`` seconds late, so that requests of one length
    do not move in waves (every request admitted at once, prefilled at once, finished at once)."""
    t0 = time.monotonic()
    stop = t0 + seconds
    lat: list[float] = []
    spans: list[tuple[float, float, int]] = []
    toks, verify, errors = [0], [0, 0], []
    lock = threading.Lock()

    def worker(seed: int, delay: float):
        rng = random.Random(seed)
        time.sleep(delay)
        while time.monotonic() < stop:
            ids = [1] + [rng.randrange(100, 31000) for _ in range(in_len - 1)]
            ts = time.monotonic()
            try:
                out = request(base, ids, out_len, temperature, 900)
            except Exception as e:  # recorded; a level with errors is reported as such
                with lock:
                    errors.append(f"{type(e).__name__}: {e}")
                return
            te = time.monotonic()
            meta = out.get("meta_info") or {}
            n = len(out.get("output_ids") or [])
            with lock:
                lat.append(te - ts)
                spans.append((ts, te, n))
                toks[0] += n
                if meta.get("spec_verify_ct"):
                    verify[0] += int(meta.get("completion_tokens", n))
                    verify[1] += int(meta["spec_verify_ct"])

    ths = [threading.Thread(target=worker, args=(conc * 1000 + i, i / conc * stagger)) for i in range(conc)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    wall = time.monotonic() - t0
    lat.sort()

    def pct(p):
        return round(lat[min(len(lat) - 1, int(p * len(lat)))], 4) if lat else None

    win = window_tokens(spans, t0 + max(stagger, seconds / 4), stop)
    return {"concurrency": conc, "requests": len(lat), "wall_s": round(wall, 2),
            "output_tok_s": round(toks[0] / wall, 1), "window_tok_s": win, "stagger_s": stagger,
            "p50_s": pct(0.5), "p90_s": pct(0.9), "p99_s": pct(0.99),
            "accept_length": round(verify[0] / verify[1], 3) if verify[1] else None,
            "errors": errors[:3], "error_count": len(errors)}


def window_tokens(spans: list[tuple[float, float, int]], lo: float, hi: float) -> float | None:
    """Tokens per second made inside [lo, hi]: each (start, end, tokens) span counts the share of its
    tokens that its overlap with the window is of its lifetime. None for an empty window."""
    if hi <= lo:
        return None
    total = 0.0
    for ts, te, n in spans:
        overlap = min(te, hi) - max(ts, lo)
        if overlap > 0 and te > ts:
            total += n * overlap / (te - ts)
    return round(total / (hi - lo), 1)


def rate(level: dict, metric: str = "closed") -> float | None:
    """A level's throughput by ``--metric``: ``closed`` (the whole loop) or ``window`` (steady part)."""
    return level.get("window_tok_s") if metric == "window" else level.get("output_tok_s")


def _accept(outs: list[dict]) -> dict:
    tok, ver = accept(outs)
    return {"requests": len(outs), "tokens": tok, "verify_ct": ver,
            "accept_length": round(tok / ver, 3) if ver else None}


def resume_probe(base: str, threshold: int, args, n: int = 8, first: int = 192, cont: int = 128,
                 lead_s: float = 0.5, flush: int = 32) -> dict:
    """Acceptance of requests that lived through a disabled stretch, against steady state, on one
    server. Phase 1 decodes ``n`` long requests, alone (steady: the batch stays at or below T) or
    beside ``threshold + 64`` fillers (twice as long, started ``lead_s`` earlier) that keep the batch
    above T for the whole phase (lived). Phase
    2 continues each one (prompt + its phase-1 output, ``cont`` tokens) at a small batch: the prefix
    comes from the radix cache with the draft model's KV as phase 1 left it, so holes there show up
    as lower acceptance. Distinct prompts per arm (no shared cache between arms).

    Before phase 2 each arm decodes one unrelated ``flush``-token request alone. Drafting resumes
    only after the hysteresis's K steps at or below T (patch 2.4.0+, K = 8 by default), and an idle
    server takes no steps, so without it phase 2 would open with K one-token steps: it would measure
    the hysteresis (about 2.95 -> 2.6 on the agreeing checkpoint) instead of what the draft's KV
    cache holds. The throughput levels already pay the hysteresis."""
    from concurrent.futures import ThreadPoolExecutor

    def prompts(seed: int, k: int) -> list[list[int]]:
        rng = random.Random(seed)
        return [[1] + [rng.randrange(100, 31000) for _ in range(args.in_len - 1)] for _ in range(k)]

    def arm(seed: int, fillers: int) -> dict:
        longs = prompts(seed, n)
        with ThreadPoolExecutor(n + fillers) as ex:
            fill = [ex.submit(request, base, p, 2 * first, args.temperature, 900) for p in prompts(seed + 1, fillers)]
            time.sleep(lead_s if fillers else 0)
            outs = [f.result() for f in [ex.submit(request, base, p, first, args.temperature, 900) for p in longs]]
            for f in fill:
                f.result()
            time.sleep(0.5)
            if flush:  # let the switch resume drafting (see the docstring)
                request(base, prompts(seed + 2, 1)[0], flush, args.temperature, 900)
            conts = [f.result() for f in [ex.submit(request, base, p + list(o.get("output_ids") or []), cont,
                                                    args.temperature, 900) for p, o in zip(longs, outs)]]
        return {"phase1": _accept(outs), **_accept(conts)}

    steady = arm(70_000, 0)
    lived = arm(71_000, threshold + 64)
    ratio = (round(lived["accept_length"] / steady["accept_length"], 3)
             if lived["accept_length"] and steady["accept_length"] else None)
    return {"n": n, "first_tokens": first, "continuation_tokens": cont, "fillers": threshold + 64,
            "resume_flush_tokens": flush,
            "steady": steady, "lived": lived, "ratio": ratio}


def server_command(args, name: str, threshold: int | None, port: int, folder: Path) -> tuple[list[str], dict]:
    cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path", args.model_path,
           "--host", "127.0.0.1", "--port", str(port), "--max-running-requests", str(max(args.levels)),
           "--cuda-graph-bs", *[str(x) for x in args.levels]] + BASE_ARGS + \
        backend_args(getattr(args, "attention_backend", "triton")) + args.server_arg
    site = args.patched_site if name.startswith("patched") else args.site
    env = {"PYTHONPATH": os.pathsep.join(p for p in (site, str(REPO)) if p), "PYTHONUNBUFFERED": "1"}
    if name in ("nospec", "nospec-again"):
        return cmd, env
    cmd += SPEC_ARGS + ["--speculative-draft-model-path", args.draft_model_path]
    if name.startswith("patched") and name not in NO_THRESHOLD:
        cmd += ["--speculative-disable-batch-threshold", str(threshold)]
    if name == "patched-skip":
        env["SGLANG_SPEC_SKIP_ZERO_STEP_DRAFT_EXTEND"] = "1"
    if name in DRAFT_EXTEND:
        env["PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND"] = DRAFT_EXTEND[name]
    if name in HOST_LENS:
        env["PATCHKIT_SPEC_DISABLE_HOST_LENS"] = HOST_LENS[name]
    if name == "patched-kv-check":
        env["PATCHKIT_SPEC_DISABLE_KV_CHECK"] = "64"
    if name == "adaptive":
        conf = folder / f"adaptive-T{threshold}.json"
        conf.write_text(json.dumps({"1": {"candidate_steps": [3]}, str(threshold + 1): {"candidate_steps": [0]}}))
        cmd += ["--speculative-adaptive", "--speculative-adaptive-config", str(conf)]
    return cmd, env


def serve(args, name: str, threshold: int | None, folder: Path, out: dict, body) -> dict:
    """Boot configuration ``name`` (its log in ``folder``, named after ``out['config']``), wait until
    it is ready, run ``body(server)``; a failure lands in ``out`` (error, server tail), and the process
    tree is always torn down and its GPU memory waited for. Returns ``out``."""
    port = free_port()
    cmd, env = server_command(args, name, threshold, port, folder)
    log = folder / f"server-{out['config']}.log"
    srv = Server(cmd, log, f"http://127.0.0.1:{port}", env=env)
    out.update({"command": " ".join(cmd), "env": {k: v for k, v in env.items() if k != "PYTHONUNBUFFERED"}})
    base_mem = gpu_memory_used_mib()
    srv.start()
    print(f"--- {out['config']}: {' '.join(cmd)}", flush=True)
    try:
        out["ready_s"] = round(srv.wait_ready(args.boot_timeout), 1)
        body(srv)
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"
        out["server_tail"] = srv.tail(30)
        print(f"{out['config']}: FAILED {out['error']}\n{out['server_tail']}", flush=True)
    finally:
        text = log.read_text(errors="replace") if log.exists() else ""
        out["switch_lines"] = text.count("patchkit-spec-disable: OFF") + text.count("patchkit-spec-disable: ON")
        out["upstream_switch_lines"] = text.count("Switch adaptive runtime state")
        out["kv_check"] = [ln.split("kv-check ", 1)[1].strip() for ln in text.splitlines() if "patchkit-spec-disable: kv-check" in ln]
        out["launch"] = launch_facts(text)
        out["teardown"] = srv.stop()
        wait_gpu_released(base_mem)
    return out


def run_config(args, name: str, threshold: int | None, folder: Path) -> dict:
    out = {"config": name, "threshold": threshold, "levels": []}

    def load(srv: Server) -> None:
        t0 = time.monotonic()
        request(srv.base_url, [1, 5, 6, 7], 8, args.temperature, 900)  # first use compiles kernels
        # a prefill that extends a cached prefix takes other kernels (FlashInfer: compiled on first
        # use, an 8-9 s stall on the H200 that once landed inside a measured level)
        warm = [1] + [7 + i % 900 for i in range(args.in_len - 1)]
        for _ in range(2):
            request(srv.base_url, warm, 8, args.temperature, 900)
        closed_loop(srv.base_url, max(args.levels), 3, args.in_len, args.out_len, args.temperature)
        out["warmup_s"] = round(time.monotonic() - t0, 1)
        for c in args.levels:
            r = closed_loop(srv.base_url, c, args.seconds, args.in_len, args.out_len, args.temperature,
                            getattr(args, "stagger", 0.0))
            acc = f"accept={r['accept_length']}" if r["accept_length"] else ""
            print(f"{name:>13} conc={c:4d} {r['output_tok_s']:10.1f} tok/s  window {r['window_tok_s']} tok/s  "
                  f"p50={r['p50_s']}s {acc}"
                  f"{'  ERRORS=%d' % r['error_count'] if r['error_count'] else ''}", flush=True)
            out["levels"].append(r)
            if not srv.alive():
                raise RuntimeError("server died during the load")
        probe_t = threshold if threshold is not None else getattr(args, "probe_threshold", None)
        if name != "nospec" and getattr(args, "probe", True) and probe_t is not None:
            out["resume_probe"] = resume_probe(srv.base_url, probe_t, args)
            p = out["resume_probe"]
            print(f"{name:>13} resume probe: steady accept={p['steady']['accept_length']} "
                  f"lived accept={p['lived']['accept_length']} ratio={p['ratio']}", flush=True)
        if getattr(args, "profile_at", None):
            if str(REPO / "bench") not in sys.path:
                sys.path.insert(0, str(REPO / "bench"))
            from profile_step import profile_window  # imports this module: not at the top
            out["profile"] = profile_window(srv, args, name, args.profile_at, folder / f"trace-{name}")

    return serve(args, name, threshold, folder, out, load)


def recommend_threshold(nospec: dict, eagle: dict, metric: str = "closed") -> int:
    """Largest measured concurrency at which EAGLE-3 is at least as fast as no speculation (0: never)."""
    base = {lv["concurrency"]: rate(lv, metric) for lv in nospec["levels"]}
    best = 0
    for lv in eagle["levels"]:
        c = lv["concurrency"]
        if base.get(c) and (rate(lv, metric) or 0) >= base[c]:
            best = max(best, c)
    return best


def summarize(results: list[dict], levels: list[int], metric: str = "closed") -> list[dict]:
    by = {r["config"]: {lv["concurrency"]: rate(lv, metric) for lv in r["levels"]} for r in results}
    rows = []
    for c in levels:
        row = {"concurrency": c, **{name: by[name].get(c) for name in by}}
        peers = [by[p].get(c) for p in ("nospec", "eagle") if p in by and by[p].get(c)]
        best = max(peers) if peers else None
        for name in by:
            if name not in ("nospec", "eagle") and best and by[name].get(c):
                row[f"{name}/best"] = round(by[name][c] / best, 3)
                for peer in ("eagle", "nospec", "eagle-again", "nospec-again"):  # the -again servers: drift
                    if peer != name and by.get(peer, {}).get(c):
                        row[f"{name}/{peer}"] = round(by[name][c] / by[peer][c], 3)
        rows.append(row)
    return rows


def environment(args) -> dict:
    env = {"python": sys.version.split()[0]}
    probe = ("import json, torch, importlib.metadata as m; print(json.dumps({'torch': torch.__version__, "
             "'sglang': m.version('sglang'), 'gpu': torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}))")
    try:
        p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": args.site or ""})
        env.update(json.loads(p.stdout.strip().splitlines()[-1]))
    except Exception as e:  # the run still goes on; the JSON says why this is missing
        env["probe_error"] = str(e)
    agree = Path(args.model_path).parent / "agree.json"
    if agree.exists():
        env["model"] = json.loads(agree.read_text())
    return env


def add_server_args(ap: argparse.ArgumentParser, workdir: str) -> None:
    """Where the servers come from and what load they get (shared with bench/profile_step.py)."""
    ap.add_argument("--out", required=True)
    ap.add_argument("--model-path", required=True)
    ap.add_argument("--draft-model-path", required=True)
    ap.add_argument("--site", default="", help="SGLang tree for the unpatched configurations (PYTHONPATH)")
    ap.add_argument("--patched-site", default="", help="SGLang tree with dynamic-spec-disable applied")
    ap.add_argument("--in-len", type=int, default=256)
    ap.add_argument("--out-len", type=int, default=128)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--boot-timeout", type=float, default=600)
    ap.add_argument("--server-arg", action="append", default=[])
    ap.add_argument("--attention-backend", default="triton",
                    help="triton (the default here), flashinfer, fa3, ... or 'default' (SGLang's own choice); "
                         "each result records the backend, page size and topk the server reported")
    ap.add_argument("--workdir", default=workdir)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_server_args(ap, workdir="/tmp/bench")
    ap.add_argument("--configs", default="nospec,eagle,patched")
    ap.add_argument("--threshold", default="auto", help="T for the patched configurations, or 'auto'")
    ap.add_argument("--levels", default="1,2,4,8,16,32,64,128,256")
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--stagger", type=float, default=0.0, metavar="S",
                    help="start worker i of a level i/concurrency*S seconds late, so that the requests do not "
                         "move in waves (all admitted, prefilled and finished together)")
    ap.add_argument("--metric", choices=("closed", "window"), default="closed",
                    help="what the summary, goal and advice compare: 'closed' (tokens over the whole loop, ramp "
                         "and drain included; the earlier results' figure) or 'window' (the steady part only)")
    ap.add_argument("--no-probe", dest="probe", action="store_false",
                    help="skip the resume probe (acceptance after a disabled stretch)")
    ap.add_argument("--profile-at", type=int, default=None, metavar="C",
                    help="after the levels, one torch-profiler window per configuration at concurrency C: "
                         "per-step GPU time split into attention / GEMM / draft / other (bench/profile_step.py)")
    ap.add_argument("--profile-steps", dest="steps", type=int, default=20)
    ap.add_argument("--profile-seconds", dest="load_seconds", type=float, default=14)
    args = ap.parse_args()
    args.levels = sorted(int(x) for x in args.levels.split(","))
    if args.stagger and args.stagger >= args.seconds:
        ap.error(f"--stagger {args.stagger} must be below --seconds {args.seconds}: later workers would never send")
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    for c in configs:
        if c not in CONFIGS:
            ap.error(f"--configs: unknown configuration {c!r} (known: {', '.join(CONFIGS)})")
    if args.threshold == "auto" and not {"nospec", "eagle"} <= set(configs):
        ap.error("--threshold auto needs the nospec and eagle configurations to tune from")
    folder = Path(args.workdir)
    folder.mkdir(parents=True, exist_ok=True)
    doc = {"args": {k: v for k, v in vars(args).items()}, "environment": environment(args), "results": [],
           "metric": args.metric}
    print(json.dumps(doc["environment"]), flush=True)
    threshold = None if args.threshold == "auto" else int(args.threshold)
    args.probe_threshold = threshold  # EAGLE-3 runs the same probe (its control) when T is given
    # --threshold auto tunes T from nospec and eagle, so they run first; a given T keeps the order of
    # --configs (patched first controls for run order and host drift against the usual order)
    order = configs if threshold is not None else \
        [c for c in ("nospec", "eagle") if c in configs] + [c for c in configs if c not in ("nospec", "eagle")]
    unthresholded = ("nospec", "eagle", "eagle-again", "nospec-again") + NO_THRESHOLD  # their servers never use T
    for name in order:
        if name not in unthresholded and threshold is None:
            threshold = recommend_threshold(*[r for r in doc["results"] if r["config"] in ("nospec", "eagle")],
                                            metric=args.metric)
            doc["recommended_threshold"] = threshold
            print(f"recommended --speculative-disable-batch-threshold {threshold} "
                  f"(largest concurrency at which EAGLE-3 >= no speculation in this run)", flush=True)
        doc["results"].append(run_config(args, name, None if name in unthresholded else threshold, folder))
        doc["summary"] = summarize(doc["results"], args.levels, args.metric)
        Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"metric: {args.metric} ({'tokens over the whole loop' if args.metric == 'closed' else 'steady window'})",
          flush=True)
    for row in doc["summary"]:
        print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    by_t = [(f"goal_by_threshold{'' if name == 'patched' else ':' + name}", goal_by_threshold(doc, threshold, name=name))
            for name in order if name.startswith("patched") and name not in NO_THRESHOLD]
    for key, text in (("goal", goal(doc)), *by_t, ("advice", advice(doc))):
        if text:
            doc[key] = text
            Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")
            print(text, flush=True)


def goal(doc: dict, name: str = "patched", bar: float = 0.95) -> str:
    """The issue's goal, checked on this run: the patched server reaches at least ``bar`` x the better
    of (nospec, eagle) at every measured level."""
    rows = [row for row in doc.get("summary", []) if row.get(f"{name}/best") is not None]
    if not rows:
        return ""
    short = [row for row in rows if row[f"{name}/best"] < bar]
    worst = min(rows, key=lambda row: row[f"{name}/best"])
    if not short:
        return (f"goal met: {name} >= {bar}x the better of (nospec, eagle) at all {len(rows)} levels "
                f"(lowest {worst[f'{name}/best']:.3f} at concurrency {worst['concurrency']})")
    misses = ", ".join(f"{row[f'{name}/best']:.3f} at {row['concurrency']}" for row in short)
    return (f"goal not met: {name} < {bar}x the better of (nospec, eagle) at {len(short)} of {len(rows)} levels "
            f"({misses})")


def goal_by_threshold(doc: dict, t, above: float = 0.97, below: float = 0.98, name: str = "patched") -> str:
    """The throughput goal as the T-aware bar: above T the patched server reaches ``above`` x no
    speculation, at or below T ``below`` x unpatched EAGLE-3, at every measured level."""
    if t is None:
        return ""
    rows, misses = [], []
    for row in doc.get("summary", []):
        c = row["concurrency"]
        peer, bar = ("nospec", above) if c > t else ("eagle", below)
        if not row.get(f"{name}/{peer}"):  # that level's peer was not run
            continue
        rows.append(row)
        if row[f"{name}/{peer}"] < bar:
            misses.append(f"{row[f'{name}/{peer}']:.3f}x {peer} at {c}")
    if not rows:
        return ""
    verdict = "met" if not misses else f"not met at {len(misses)} of {len(rows)} levels ({', '.join(misses)})"
    return f"goal (T={t}{'' if name == 'patched' else ', ' + name}: above >= {above}x nospec, at or below >= {below}x eagle): {verdict}"


def advice(doc: dict) -> str:
    """What to run, from this run's numbers: the threshold only pays when the patched server
    above it beats unpatched EAGLE-3 there (on the H200 bench it did not)."""
    patched = next((r for r in doc["results"] if r["config"] == "patched" and r["levels"]), None)
    t = doc.get("recommended_threshold", patched and patched.get("threshold"))
    if patched is None or t is None:
        return ""
    if patched.get("error"):
        return f"advice: do not deploy: the patched server failed in this run ({patched['error']}); see its log"
    above = [row for row in doc["summary"] if row["concurrency"] > t and row.get("patched/eagle")]
    if not above:
        return f"advice: --speculative-disable-batch-threshold {t} (no level above it was measured against EAGLE-3)"
    worst = min(row["patched/eagle"] for row in above)
    if worst < 1.0:
        return (f"advice: leave the threshold off on this model and GPU: above T={t} the patched server reached "
                f"only {worst:.2f}x unpatched EAGLE-3 (the zero-step path costs more than it saves here)")
    return f"advice: --speculative-disable-batch-threshold {t} (above it the patched server is >= {worst:.2f}x EAGLE-3)"


if __name__ == "__main__":
    main()
