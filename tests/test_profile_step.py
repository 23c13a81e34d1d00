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
        {"ph": "X", "cat": "python_function", "name": "threading.py(1): run", "ts": 0, "dur": 1000, "pid": 1, "tid": 7},
        {"ph": "X", "cat": "python_function", "name": "/x/site/sglang/srt/managers/scheduler.py(10): run_batch",
         "ts": 10, "dur": 900, "pid": 1, "tid": 7},
        {"ph": "X", "cat": "python_function", "name": "/x/site/flashinfer/prefill.py(20): plan",
         "ts": 100, "dur": 200, "pid": 1, "tid": 7},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "ts": 150, "dur": 40, "pid": 1, "tid": 7},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "ts": 500, "dur": 10, "pid": 1, "tid": 7},
        # another thread's sync has no frames of its own: it is not attributed to tid 7's stack
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "ts": 150, "dur": 5, "pid": 1, "tid": 8},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 160, "dur": 5, "pid": 1, "tid": 7},
    ]
    s = ps.summarize_trace(trace(tmp_path, ev), steps=1)
    sites = {tuple(k["stack"]): k["calls_per_step"] for k in s["sync_sites"]}
    assert sites == {
        ("cudaStreamSynchronize", "sglang/srt/managers/scheduler.py(10): run_batch", "flashinfer/prefill.py(20): plan"): 1,
        ("cudaStreamSynchronize", "sglang/srt/managers/scheduler.py(10): run_batch"): 1,
        ("cudaStreamSynchronize", "<no python stack>"): 1,
    }
