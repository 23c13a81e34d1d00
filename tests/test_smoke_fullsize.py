"""Full-size shapes for the smoke test (``patchkit smoke --model-config NAME [--layers N]``): the
configs carry what SGLang's loaders read, the 70B shape has 70B parameters, bad names and layer
counts are one-line usage errors, and the record says "dummy weights, full-size shape" and carries
the peak GPU memory per rank and the teardown (stand-in server, fake nvidia-smi on PATH)."""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from patchkit.ftypes import Target, TargetKind, UsageError
from patchkit.smoke import fullsize, gpumem
from patchkit.smoke.run import Smoke, SmokeConfig
from bundles import standin_bundle

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "fixtures" / "standin_sglang"
FAKE_SMI = ROOT / "fixtures" / "fake_gpu"
MODELS = "sglang/srt/models"

#: (file, classes or None for the whole file) whose ``config.X`` reads each architecture runs
LOADERS = {
    "LlamaForCausalLM": [("llama.py", {"LlamaForCausalLM", "LlamaModel", "LlamaDecoderLayer", "LlamaAttention",
                                       "LlamaMLP"})],
    "LlamaForCausalLMEagle3": [("llama_eagle3.py", None),
                               ("llama.py", {"LlamaDecoderLayer", "LlamaAttention", "LlamaMLP"})],
    "Qwen3MoeForCausalLM": [("qwen3_moe.py", None), ("qwen2_moe.py", {"Qwen2MoeModel"})],
}
#: reads a config need not carry, each with the reason
NOT_NEEDED = {
    "__class__": "Python", "pad_token_id": "PretrainedConfig supplies it", "model_type": "PretrainedConfig",
    "original_max_position_embeddings": "read only for rope_scaling type llama3 (rope_scaling is null)",
    "intermediate_size_mlp": "read only for model_type llama4_text",
    "partial_rotary_factor": "read under hasattr(config, 'partial_rotary_factor')",
    "target_hidden_size": "read under hasattr (defaults to hidden_size; the draft sets it anyway)",
}


def config_reads(path: Path, classes) -> set[str]:
    tree = ast.parse(path.read_text())
    tops = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name in classes] if classes else [tree]
    out = set()
    for top in tops:
        for n in ast.walk(top):
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
                v = n.value
                if (isinstance(v, ast.Name) and v.id == "config") or (isinstance(v, ast.Attribute) and v.attr == "config"):
                    out.add(n.attr)
    return out


def missing_keys(root: Path, cfg: dict) -> list[str]:
    """The keys SGLang's loader of ``cfg``'s architecture reads that ``cfg`` lacks."""
    files = LOADERS[cfg["architectures"][0]]
    needed = set().union(*(config_reads(root / f, cls) for f, cls in files)) - set(NOT_NEEDED)
    assert needed, f"no config reads found for {cfg['architectures'][0]}: the scan is broken"
    return sorted(needed - set(cfg))


@pytest.mark.network
@pytest.mark.parametrize("drop", ["num_key_value_heads", "rms_norm_eps", "num_experts_per_tok", "hidden_act",
                                  "draft_vocab_size", "vocab_size"])
def test_the_key_scan_catches_a_dropped_key(sglang_release, drop):
    root = sglang_release("0.5.16").root / MODELS
    cfgs = [c for name in fullsize.names() for c in (fullsize.shape(name).target, fullsize.shape(name).draft)
            if drop in c]
    assert cfgs
    for cfg in cfgs:
        assert missing_keys(root, {k: v for k, v in cfg.items() if k != drop}) == [drop]


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.5.12", "0.5.16"])
@pytest.mark.parametrize("name", fullsize.names())
def test_configs_carry_every_key_sglangs_loaders_read(sglang_release, name, version):
    root = sglang_release(version).root / MODELS
    s = fullsize.shape(name)
    for part, cfg in (("target", s.target), ("draft", s.draft)):
        arch = cfg["architectures"][0]
        files = LOADERS[arch]
        assert f"class {arch}(" in (root / files[0][0]).read_text(), f"{version} has no {arch}"
        missing = missing_keys(root, cfg)
        assert not missing, f"{name} {part} ({arch}) lacks {missing}, which SGLang {version} reads"
    # EAGLE-3 needs a target that captures aux hidden states (why the MoE shape is not Mixtral)
    target_file = (root / LOADERS[s.target["architectures"][0]][0][0]).read_text()
    assert "def set_eagle3_layers_to_capture" in target_file
    assert "set_eagle3_layers_to_capture" not in (root / "mixtral.py").read_text()


@pytest.mark.parametrize("name", fullsize.names())
def test_the_draft_matches_the_target(name):
    s = fullsize.shape(name)
    d, t = s.draft, s.target
    assert d["architectures"] == ["LlamaForCausalLMEagle3"] and d["num_hidden_layers"] == 1
    assert d["hidden_size"] == d["target_hidden_size"] == t["hidden_size"]
    assert d["vocab_size"] == t["vocab_size"] and d["draft_vocab_size"] == t["vocab_size"]  # no d2t map with dummy
    assert (d["num_attention_heads"], d["num_key_value_heads"]) == (t["num_attention_heads"], t["num_key_value_heads"])


def test_the_70b_shape_is_llama3_70b():
    t = fullsize.shape("llama3-70b").target
    assert (t["hidden_size"], t["num_hidden_layers"], t["num_attention_heads"], t["num_key_value_heads"],
            t["intermediate_size"], t["vocab_size"], t["rope_theta"]) == (8192, 80, 64, 8, 28672, 128256, 500000.0)
    n = fullsize.params(t)
    assert abs(n - 70.6e9) / 70.6e9 < 0.02, n  # Meta's published 70.6B
    assert abs(fullsize.params(fullsize.shape("qwen3-30b-a3b").target) - 30.5e9) / 30.5e9 < 0.02  # Qwen's 30.5B


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(fullsize.names()), st.data())
def test_layers_drop_whole_layers_and_nothing_else(name, data):
    full = fullsize.shape(name)
    n = data.draw(st.integers(1, full.layers))
    s = fullsize.shape(name, n)
    assert s.layers == n and s.full_layers == full.layers and s.draft == full.draft
    assert {k: v for k, v in s.target.items() if k not in ("num_hidden_layers", "max_window_layers")} == \
        {k: v for k, v in full.target.items() if k not in ("num_hidden_layers", "max_window_layers")}
    per_layer = (fullsize.params(full.target) - fullsize.params(s.target)) / max(1, full.layers - n)
    if n < full.layers:  # every layer weighs the same
        one = fullsize.params(fullsize.shape(name, full.layers - 1).target)
        assert per_layer == fullsize.params(full.target) - one
    rec = fullsize.record(s, 2)
    assert rec["weights"] == "dummy" and rec["num_layers"] == n and rec["full_num_layers"] == full.layers


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=20))
def test_an_unknown_name_is_a_usage_error_naming_it(name):
    if name in fullsize.names():
        return
    with pytest.raises(UsageError) as e:
        fullsize.shape(name)
    msg = str(e.value)  # one line, whitespace collapsed (PatchkitError.__str__)
    assert msg.startswith(" ".join(f"--model-config {name}: no such built-in model config".split()))
    assert "\n" not in msg and "\r" not in msg and msg.endswith("(built-in: llama3-70b, qwen3-30b-a3b)")


@pytest.mark.parametrize("layers", [0, -1, 81, 1000])
def test_a_layer_count_out_of_range_is_a_usage_error(layers):
    with pytest.raises(UsageError, match=rf"--layers {layers}: must be between 1 and 80 \(llama3-70b has 80 layers\)"):
        fullsize.shape("llama3-70b", layers)


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "patchkit", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
                               **(env or {})})


@pytest.mark.parametrize("args, message", [
    (("--model-config", "llama-70b"), "error: --model-config llama-70b: no such built-in model config; nearest: "
                                      "'llama3-70b' (built-in: llama3-70b, qwen3-30b-a3b)"),
    (("--model-config", "llama3-70b", "--layers", "81"), "error: --layers 81: must be between 1 and 80"),
    (("--layers", "4", "--tiny"), "error: --layers 4: only with --model-config"),
    (("--tiny", "--model-config", "llama3-70b"), "error: --tiny and --model-config: choose one model"),
])
def test_cli_refuses_bad_model_choices_with_exit_2(tmp_path, args, message):
    site = tmp_path / "site"
    shutil.copytree(STANDIN, site)
    r = _cli("smoke", "--target-dir", str(site), "--no-gate", "--log-dir", str(tmp_path / "logs"),
             "--signoff", str(tmp_path / "so.json"), *args)
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and " ".join(lines[0].split()).startswith(message), r.stderr
    assert not (tmp_path / "so.json").exists() and not (tmp_path / "logs").exists()


def _fake_gpu_env(tmp_path: Path, busy: str, idle: str, leak: bool = False) -> dict:
    (tmp_path / "smi-state").mkdir(exist_ok=True)
    return {"PATH": f"{FAKE_SMI}{os.pathsep}{os.environ['PATH']}", "FAKE_SMI_BUSY": busy, "FAKE_SMI_IDLE": idle,
            "FAKE_SMI_STATE": str(tmp_path / "smi-state"), "FAKE_SMI_MARKER": str(tmp_path),
            "FAKE_SMI_LEAK": "1" if leak else "0"}


def test_cli_full_size_record_says_dummy_and_carries_memory_per_rank(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(STANDIN, site)
    so = tmp_path / "so.json"
    r = _cli("smoke", "--target-dir", str(site), "--model-config", "llama3-70b", "--layers", "40", "--tp", "2",
             "--no-gate", "--crossings", "2", "--threshold", "3", "--timeout", "30", "--log-dir", str(tmp_path / "logs"),
             "--signoff", str(so), "--json", env={**_fake_gpu_env(tmp_path, "90000,88000,700", "500,400,700"),
                                                  "PYTHONPATH": f"{ROOT}{os.pathsep}{site}"})
    assert r.returncode == 0, r.stderr[-2000:]
    rec = json.loads(r.stdout)
    assert rec == json.loads(so.read_text()) and rec["passed"]
    c = rec["config"]
    assert (c["weights"], c["model_shape"], c["num_layers"], c["full_num_layers"], c["tp"]) == \
        ("dummy", "llama3-70b", 40, 80, 2)
    assert c["shape_note"] == "dummy weights, full-size shape llama3-70b (40 of 80 layers)"
    written = json.loads(Path(c["model_path"], "config.json").read_text())
    assert written["num_hidden_layers"] == 40 and written["hidden_size"] == 8192
    assert json.loads(Path(c["draft_model_path"], "config.json").read_text())["architectures"] == ["LlamaForCausalLMEagle3"]
    assert c["server_args"][:2] == ["--load-format", "dummy"]
    assert rec["timings"]["time_to_ready_s"] > 0 and rec["timings"]["first_request_latency_s"] > 0
    gm = rec["gpu_memory"]
    assert gm["released"] is True and gm["samples"] >= 2
    assert [(g["index"], g["rank"], g["baseline_mib"], g["peak_mib"], g["after_mib"]) for g in gm["gpus"]] == \
        [(0, 0, 500, 90000, 500), (1, 1, 400, 88000, 400)]  # GPU 2 runs no rank: not this run's memory
    teardown = next(s for s in rec["stages"] if s["name"] == "teardown")["detail"]
    assert teardown["leftover_pids"] == [] and teardown["gpu_mem_after_mib"] == [500, 400, 700]


def test_memory_left_after_teardown_fails_the_record_naming_the_gpu(tmp_path, monkeypatch):
    site = tmp_path / "site"
    shutil.copytree(STANDIN, site)
    for k, v in _fake_gpu_env(tmp_path, "30000,31000", "500,400", leak=True).items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("PYTHONPATH", f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    s = fullsize.shape("qwen3-30b-a3b", 4)
    t, d = fullsize.write(tmp_path / "model", s)
    cfg = SmokeConfig(str(t), str(d), 2, 4, 2, fullsize.server_args(), timeout=20, log_dir=tmp_path / "logs",
                      release_timeout=2.0, shape=fullsize.record(s, 2))
    rec = Smoke(cfg, Target("sglang", "0.5.12", site, TargetKind.DIRECTORY)).run()
    assert rec["passed"] is False and rec["failure"]["stage"] == "teardown"
    assert "GPU memory not released" in rec["failure"]["message"]
    assert rec["gpu_memory"]["released"] is False
    assert [g["after_mib"] for g in rec["gpu_memory"]["gpus"]] == [30000, 31000]
    assert rec["config"]["model_shape"] == "qwen3-30b-a3b" and rec["config"]["num_layers"] == 4


def test_sampler_keeps_the_peak_of_each_gpu():
    seq = iter([[(0, 100, 1000), (1, 50, 1000)], [(0, 900, 1000), (1, 60, 1000)], [(0, 300, 1000), (1, 700, 1000)]])
    last = [[(0, 100, 1000), (1, 50, 1000)]]

    def source():
        try:
            last[0] = next(seq)
        except StopIteration:
            pass
        return last[0]
    sm = gpumem.Sampler(interval=0.01, source=source).start()
    while sm.samples < 4:
        sm._take()
    sm.stop()
    assert sm.settle(timeout=0) is True
    gm = sm.summary({0: 0, 1: 1}, True)
    assert [(g["baseline_mib"], g["peak_mib"]) for g in gm["gpus"]] == [(100, 900), (50, 700)]
    assert gpumem.Sampler(source=lambda: None).start().summary() is None  # no GPU: no field


def test_another_job_on_another_gpu_is_not_this_runs_leak():
    # seen on an H200 pair: a matrix on GPU 1 failed teardown with "GPU 0: 33251 MiB vs 0 MiB
    # before" because a second matrix had started on GPU 0 after this one's baseline
    rows = iter([[(0, 0, 1000), (1, 10, 1000)], [(0, 20000, 143000), (1, 900, 143000)]])
    after = [(0, 33251, 143000), (1, 12, 143000)]

    def source():
        return next(rows, after)
    ranks = gpumem.rank_gpus(1, [], {"CUDA_VISIBLE_DEVICES": "1"})
    sm = gpumem.Sampler(interval=60, source=source, gpus=ranks).start()
    sm._take()
    sm.stop()
    gm = sm.summary(ranks, sm.settle(timeout=0))
    assert [g["index"] for g in gm["gpus"]] == [1] and gm["gpus"][0]["peak_mib"] == 900
    assert gpumem.not_released(gm) is None
    # the same run without the GPU filter would have blamed itself for GPU 0
    every = gpumem.Sampler(interval=60, source=iter([[(0, 0, 1000), (1, 10, 1000)], after, after]).__next__).start()
    every.stop()
    assert "GPU 0: 33251 MiB" in gpumem.not_released(every.summary({}, every.settle(timeout=0)))
    # and a leak on the watched GPU still fails
    own = gpumem.Sampler(interval=60, source=iter([[(1, 10, 1000)], [(1, 5000, 1000)], [(1, 5000, 1000)]]).__next__,
                         gpus={1}).start()
    own.stop()
    assert "GPU 1: 5000 MiB" in gpumem.not_released(own.summary({1: 0}, own.settle(timeout=0)))


@pytest.mark.parametrize("tp, args, visible, want", [
    (2, [], "", {0: 0, 1: 1}),
    (2, ["--base-gpu-id", "2"], "", {2: 0, 3: 1}),
    (2, [], "4,6", {4: 0, 6: 1}),
    (2, ["--base-gpu-id=1"], "4,6,7", {6: 0, 7: 1}),
    (1, [], "GPU-1234", {}),
])
def test_ranks_map_to_gpu_indices(tp, args, visible, want):
    assert gpumem.rank_gpus(tp, args, {"CUDA_VISIBLE_DEVICES": visible} if visible else {}) == want


# ------------------------------------------------------------------ bench/gpu/fullsize_on_host.sh on CPU
@pytest.mark.network
def test_the_fullsize_host_script_runs_single_and_dp_and_packs_out(sglang_release, tmp_path):
    bundle = standin_bundle(sglang_release("0.5.16"), tmp_path)
    out = tmp_path / "out"
    base = {**os.environ, **_fake_gpu_env(tmp_path, "120000,121000", "3,3"), "OUT": str(out),
            "WORK_DIR": str(tmp_path / "w"), "SITE_DIR": str(tmp_path / "site"), "WAIT": "300",
            "MODEL": "llama3-70b", "TP": "2", "SMOKE_EXTRA": "--crossings 2 --timeout 60"}
    base.pop("PYTHONPATH", None)
    script = str(ROOT / "bench" / "gpu" / "fullsize_on_host.sh")
    r = subprocess.run(["bash", script, str(bundle)], capture_output=True, text=True, cwd=ROOT, env=base, timeout=400)
    assert r.returncode == 0 and "done" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
    tag = "single-llama3-70b-Lall-tp2-0.5.16"
    assert f"started {tag}" in r.stdout
    rec = json.loads((out / f"signoff-{tag}.json").read_text())
    assert rec["passed"] and rec["config"]["num_layers"] == 80 and rec["config"]["weights"] == "dummy"
    assert [g["peak_mib"] for g in rec["gpu_memory"]["gpus"]] == [120000, 121000]
    console = (out / f"console-{tag}.txt").read_text()
    assert "smoke rc=0" in console and "gate(tp 2) rc=0" in console and "gate(tp 1) rc=1" in console
    assert "sglang processes left: 0" in console
    assert (out / f"logs-{tag}.tgz").is_file() and (out / f"smi-{tag}.csv").is_file()
    # (c): DP attention with the flag must be refused at start-up (the stand-in refuses with refuse_all,
    # as patch 2.0's runtime does for --enable-dp-attention; tests/test_spec_disable_runtime.py proves that)
    dp = subprocess.run(["bash", script, str(bundle)], capture_output=True, text=True, cwd=ROOT, timeout=400,
                        env={**base, "MODE": "dp", "STANDIN_FAULT": "refuse_all"})
    assert dp.returncode == 0 and "done" in dp.stdout, dp.stdout[-2000:] + dp.stderr[-2000:]
    drec = json.loads((out / "signoff-dp-llama3-70b-Lall-tp2-0.5.16.json").read_text())
    assert [(c["name"], c["verdict"]) for c in drec["cells"]] == [("dp-attention-flag", "refused")]
    assert "--enable-dp-attention" in drec["cells"][0]["server_args"] and drec["passed"]


@pytest.mark.parametrize("leak", [False, True])
def test_a_full_size_matrix_records_memory_and_runs_no_reference_when_resume_is_skipped(tmp_path, monkeypatch, leak):
    from patchkit.patches.dynamic_spec_disable.smoke_spec import SPEC
    from patchkit.smoke.command import fullsize_models
    from patchkit.smoke.matrixrun import MatrixOptions, run_matrix
    site = tmp_path / "site"
    shutil.copytree(STANDIN, site, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("PYTHONPATH", f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    for k, v in _fake_gpu_env(tmp_path, "100000,99000", "10,20", leak=leak).items():
        monkeypatch.setenv(k, v)
    cell = "EAGLE3-overlap=on-cuda-graph=on-topk=1-page=1-draft-extend=keep-flag=on"
    model, models, base, shape = fullsize_models(tmp_path / "logs", "llama3-70b", 2, 2)
    opts = MatrixOptions(model, models, 2, 4, 2, 30.0, tmp_path / "logs", base, parallel=1, only=(cell,),
                         soak_seconds=1.0, transitions=2, skip_stages=("resume-equivalence", "forced-acceptance"),
                         shape=shape, extra={"release_timeout": 2.0})
    rec = run_matrix(SPEC, Target("sglang", "0.5.12", site, TargetKind.DIRECTORY), opts)
    assert not (tmp_path / "logs" / "reference").exists()  # no speculation-off server beside the cell
    assert rec["config"]["model_shape"] == "llama3-70b" and rec["config"]["num_layers"] == 2
    gm = rec["gpu_memory"]
    assert [(g["index"], g["rank"], g["peak_mib"]) for g in gm["gpus"]] == [(0, 0, 100000), (1, 1, 99000)]
    if leak:
        assert not rec["passed"] and rec["failure"]["stage"] == "teardown" and gm["released"] is False
        assert "GPU memory not released" in rec["failure"]["message"]
    else:
        assert rec["passed"], rec["failure"]
        assert gm["released"] is True and [g["after_mib"] for g in gm["gpus"]] == [10, 20]
