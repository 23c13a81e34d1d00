"""bench/profile_step.py reduces a torch-profiler chrome trace to per-step figures."""
import gzip
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("profile_step", ROOT / "bench" / "profile_step.py")
ps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ps)


def trace(tmp_path, events, gz=True):
    path = tmp_path / ("t.trace.json.gz" if gz else "t.trace.json")
    text = json.dumps({"traceEvents": events})
    if gz:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


def frame(name, ts, dur, tid=7):
    """A Python frame of the trace (``python_function``) on thread ``tid``."""
    return {"ph": "X", "cat": "python_function", "name": name, "ts": ts, "dur": dur, "pid": 1, "tid": tid}


def runtime_call(name, ts, dur, tid=7):
    """A CUDA runtime call of the trace (``cuda_runtime``) on thread ``tid``."""
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "ts": ts, "dur": dur, "pid": 1, "tid": tid}


def test_per_step_kernel_time_span_and_ranking(tmp_path):
    ev = [
        {"ph": "X", "cat": "kernel", "name": "_fwd_kernel", "ts": 0, "dur": 3000},
        {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 3000, "dur": 1000},
        {"ph": "X", "cat": "kernel", "name": "_fwd_kernel", "ts": 5000, "dur": 3000},
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH", "ts": 8000, "dur": 0},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventSynchronize", "ts": 0, "dur": 2000},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 99999},  # not a kernel
        {"ph": "i", "cat": "kernel", "name": "instant", "ts": 0},  # not a complete event
    ]
    for gz in (True, False):
        s = ps.summarize_trace(trace(tmp_path, ev, gz), steps=2)
        assert s["gpu_span_ms_per_step"] == 4.0 and s["kernel_ms_per_step"] == 3.5
        assert s["gpu_busy_fraction"] == 0.875
        assert [k["name"] for k in s["top_kernels"]][:2] == ["_fwd_kernel", "gemm"]
        assert s["top_kernels"][0] == {"name": "_fwd_kernel", "ms_per_step": 3.0, "calls_per_step": 1.0}
        assert s["runtime_calls"] == [{"name": "cudaEventSynchronize", "ms_per_step": 1.0, "calls_per_step": 0.5}]


def test_empty_trace_has_no_busy_fraction(tmp_path):
    s = ps.summarize_trace(trace(tmp_path, []), steps=5)
    assert s["kernel_ms_per_step"] == 0 and s["gpu_busy_fraction"] is None and s["top_kernels"] == []


def test_sync_sites_name_the_innermost_own_frames(tmp_path):
    ev = [
        frame("threading.py(1): run", 0, 1000),
        frame("/x/site/sglang/srt/managers/scheduler.py(10): run_batch", 10, 900),
        frame("/x/site/flashinfer/prefill.py(20): plan", 100, 200),
        runtime_call("cudaStreamSynchronize", 150, 40),
        runtime_call("cudaStreamSynchronize", 500, 10),
        # another thread's sync has no frames of its own: it is not attributed to tid 7's stack
        runtime_call("cudaStreamSynchronize", 150, 5, tid=8),
        runtime_call("cudaLaunchKernel", 160, 5),
    ]
    s = ps.summarize_trace(trace(tmp_path, ev), steps=1)
    sites = {tuple(k["stack"]): k["calls_per_step"] for k in s["sync_sites"]}
    assert sites == {
        ("cudaStreamSynchronize", "sglang/srt/managers/scheduler.py(10): run_batch", "flashinfer/prefill.py(20): plan"): 1,
        ("cudaStreamSynchronize", "sglang/srt/managers/scheduler.py(10): run_batch"): 1,
        ("cudaStreamSynchronize", "<no python stack>"): 1,
    }


def test_stage_split_attributes_kernels_to_the_draft_by_their_launch():
    """A kernel is the draft's when the runtime call that launched it ran inside a draft/draft_extend
    span on the same thread (a CUDA-graph launch counts for all its kernels); the rest by name."""
    ev = [
        {"ph": "X", "cat": "user_annotation", "name": "draft_extend", "ts": 100, "dur": 100, "pid": 1, "tid": 7},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "ts": 150, "dur": 5, "pid": 1, "tid": 7,
         "args": {"correlation": 5}},
        # same time, other thread: not inside the span
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 150, "dur": 5, "pid": 1, "tid": 8,
         "args": {"correlation": 6}},
        # same thread, after the span
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 300, "dur": 5, "pid": 1, "tid": 7,
         "args": {"correlation": 7}},
    ]
    kernels = [
        {"ph": "X", "cat": "kernel", "name": "BatchPrefillWithPagedKVCacheKernel", "ts": 1, "dur": 40, "args": {"correlation": 5}},
        {"ph": "X", "cat": "kernel", "name": "nvjet_tst_256x128_64x4_coopA", "ts": 2, "dur": 60, "args": {"correlation": 5}},
        {"ph": "X", "cat": "kernel", "name": "nvjet_tst_192x192", "ts": 3, "dur": 30, "args": {"correlation": 6}},
        {"ph": "X", "cat": "kernel", "name": "_fwd_kernel_stage1", "ts": 4, "dur": 20, "args": {"correlation": 7}},
        {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "ts": 5, "dur": 10, "args": {"correlation": 7}},
        {"ph": "X", "cat": "kernel", "name": "no_launch_seen", "ts": 6, "dur": 8},
    ]
    split = ps.stage_split(ev + kernels, kernels)
    assert split["draft"] == 100 and split["draft_attention"] == 40 and split["draft_gemm"] == 60
    assert split["gemm"] == 30 and split["attention"] == 20 and split["other"] == 18
    assert sum(split[k] for k in ps.SPLIT_KEYS) == sum(k["dur"] for k in kernels)


def test_kernel_family_names():
    assert ps.kernel_family("flashinfer::BatchDecodeWithPagedKVCacheKernel") == "attention"
    assert ps.kernel_family("_fwd_grouped_kernel_stage1") == "attention"
    assert ps.kernel_family("sm90_xmma_gemm_bf16bf16_bf16f32") == "gemm"
    assert ps.kernel_family("nvjet_tst_192x192_64x3_2x1_v_bz_coopB_TNT") == "gemm"
    assert ps.kernel_family("triton_poi_fused_add_rmsnorm_0") == "other"


def test_summary_reports_the_split_per_step(tmp_path):
    ev = [
        {"ph": "X", "cat": "user_annotation", "name": "draft", "ts": 0, "dur": 50, "pid": 1, "tid": 1},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 10, "dur": 1, "pid": 1, "tid": 1,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 0, "dur": 4000, "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 4000, "dur": 2000, "args": {"correlation": 2}},
    ]
    s = ps.summarize_trace(trace(tmp_path, ev), steps=2)
    assert s["split_ms_per_step"]["draft"] == 2.0 and s["split_ms_per_step"]["gemm"] == 1.0


def test_launch_sites_name_the_code_that_puts_work_on_the_gpu(tmp_path):
    ev = [
        frame("/s/sglang/srt/speculative/eagle_worker_v2.py(1217): _build_trivial_verify_input", 0, 100),
        frame("/s/sglang/srt/speculative/eagle_info.py(50): verify", 200, 100),
        runtime_call("cudaLaunchKernel", 10, 2),
        runtime_call("cudaLaunchKernel", 20, 2),
        runtime_call("cudaMemcpyAsync", 250, 4),
        runtime_call("cudaMemcpyAsync", 150, 4),  # between frames
    ]
    s = ps.summarize_trace(trace(tmp_path, ev), steps=2)
    sites = {tuple(k["stack"]): k["calls_per_step"] for k in s["launch_sites"]}
    assert sites == {
        ("cudaLaunchKernel", "sglang/srt/speculative/eagle_worker_v2.py(1217): _build_trivial_verify_input"): 1.0,
        ("cudaMemcpyAsync", "sglang/srt/speculative/eagle_info.py(50): verify"): 0.5,
        ("cudaMemcpyAsync", "<no python stack>"): 0.5,
    }
    assert s["sync_sites"] == []  # launches are not syncs


def test_host_functions_are_inclusive_per_step_and_only_our_libraries(tmp_path):
    ev = [
        frame("/s/sglang/srt/managers/scheduler.py(3289): run_batch", 0, 900),
        frame("/s/sglang/srt/speculative/eagle_utils.py(569): eagle_sample", 100, 300),
        frame("/s/sglang/srt/speculative/eagle_utils.py(569): eagle_sample", 1100, 100),
        frame("/usr/lib/python3.12/threading.py(10): wait", 0, 5000),  # not ours
        {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 0, "dur": 10},
    ]
    s = ps.summarize_trace(trace(tmp_path, ev), steps=2)
    host = {h["function"]: (h["ms_per_step"], h["calls_per_step"]) for h in s["host_functions"]}
    assert host == {"sglang/srt/managers/scheduler.py(3289): run_batch": (0.45, 0.5),
                    "sglang/srt/speculative/eagle_utils.py(569): eagle_sample": (0.2, 1.0)}
    assert [h["function"] for h in s["host_functions"]][0].endswith("run_batch")  # ranked by time


def test_a_stagger_that_outlasts_the_load_is_refused_before_any_server_starts(tmp_path, monkeypatch, capsys):
    import pytest
    started = []
    monkeypatch.setattr(ps, "profile_config", lambda *a, **k: started.append(a))
    monkeypatch.setattr("sys.argv", ["profile_step.py", "--out", str(tmp_path / "p.json"), "--model-path", "m",
                                     "--draft-model-path", "d", "--stagger", "12", "--load-seconds", "14"])
    with pytest.raises(SystemExit) as e:
        ps.main()
    assert e.value.code == 2 and "--stagger 12.0" in capsys.readouterr().err and not started


def test_the_stagger_reaches_the_load_and_delays_the_window(tmp_path, monkeypatch):
    import types
    loads = []
    monkeypatch.setattr(ps, "closed_loop", lambda base, conc, secs, i, o, temp, stagger=0.0: loads.append((secs, stagger)) or {})
    slept = []
    monkeypatch.setattr(ps.time, "sleep", lambda s: slept.append(s))
    trace_dir = tmp_path / "tr"

    def fake_start(base, body):
        trace_dir.mkdir(parents=True, exist_ok=True)
        (trace_dir / "x.trace.json").write_text(json.dumps({"traceEvents": []}))
        return "ok"
    monkeypatch.setattr(ps, "start_profile", fake_start)
    monkeypatch.setattr(ps, "summarize_trace", lambda path, steps: {
        "gpu_span_ms_per_step": 0, "kernel_ms_per_step": 0, "gpu_busy_fraction": 0, "split_ms_per_step": {},
        "top_kernels": [], "runtime_calls": [], "launch_sites": [], "host_functions": [], "sync_sites": []})
    args = types.SimpleNamespace(in_len=8, out_len=8, temperature=1.0, load_seconds=20, steps=4, stagger=5.0)
    ps.profile_window(types.SimpleNamespace(base_url="http://x"), args, "nospec", 16, trace_dir)
    assert (20, 5.0) in loads and (4, 0.0) in loads
    assert 8.0 in slept  # the window opens once every worker has started
