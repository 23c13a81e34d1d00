"""The dynamic-spec-disable patch against real SGLang releases from the package registry."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from patchkit import engine, registry
from patchkit.analysis import analyse_source
from patchkit.ftypes import CheckFailed, Outcome, VersionOutOfRange

WORKER = "sglang/srt/speculative/eagle_worker_v2.py"
PATCH = "dynamic-spec-disable"


def _class_source(text: str, cls: str) -> str:
    tree = ast.parse(text)
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    return ast.get_source_segment(text, node)


RUNTIME = Path(__file__).resolve().parent.parent / "patches" / "dynamic_spec_disable" / "runtime.py"


@pytest.mark.network
@pytest.mark.parametrize("version,strategy", [("0.5.12", "bring-zero-step"), ("0.5.13", "bring-zero-step"),
                                              ("0.5.14", "reuse-upstream-zero-step"),
                                              ("0.5.16", "reuse-upstream-zero-step"),
                                              ("0.5.23", "reuse-upstream-zero-step")])
def test_apply_idempotent_revert_on_real_release(sglang_scratch, version, strategy):
    t = sglang_scratch(version)
    p = registry.patch(PATCH)
    planned = p.plan(version, engine.reader(t)).files
    originals = {f: t.file(f).read_bytes() for f in planned if t.file(f).exists()}
    created = [f for f in planned if f not in originals]
    assert created == ["sglang/srt/speculative/patchkit_spec_disable.py", "sglang/srt/speculative/patchkit_spec_disable_kv.py"]
    r = engine.apply(p, t)
    assert r.outcome is Outcome.APPLIED and r.strategy == strategy
    text = t.file(WORKER).read_text()
    # the threshold lands in EAGLEWorkerV2.__init__, not in the first __init__ of the file
    assert "self.spec_disable_batch_threshold = " in _class_source(text, "EAGLEWorkerV2")
    assert "spec_disable_batch_threshold" not in _class_source(text, "EagleDraftWorker")
    assert ("_patchkit_sd.trivial_verify_input(" in text) == (strategy == "bring-zero-step")
    # 0.5.14+: exactly one draft prefill call is hooked, inside EAGLEWorkerV2 (the runtime's
    # ``hooked`` looks for the name in the class's code objects)
    prefill_hooks = _class_source(text, "EAGLEWorkerV2").count("_patchkit_sd.skip_draft_prefill(self, batch, ")
    assert prefill_hooks == text.count("skip_draft_prefill(") == (strategy == "reuse-upstream-zero-step")
    # 0.5.14+: the overlap scheduler's resolve asks the runtime first, passing its own parameters on
    overlap_file = t.file("sglang/srt/managers/overlap_utils.py")
    overlap = overlap_file.read_text() if overlap_file.exists() else ""
    resolve = _class_source(overlap, "FutureMap") if "class FutureMap" in overlap else ""
    hooked = "_patchkit_resolve_on_host(self, batch" in resolve
    assert hooked == (strategy == "reuse-upstream-zero-step")
    assert ("stream_ordered=stream_ordered" in resolve) == (version == "0.5.23")
    if hooked:
        compile(overlap, "overlap_utils.py", "exec")
        tree = ast.parse(_class_source(overlap, "FutureMap"))
        method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "resolve_seq_lens_cpu")
        assert isinstance(method.body[1], ast.If) and "_patchkit_resolve_on_host" in ast.unparse(method.body[1].test)
    # the runtime module is the shipped file, byte for byte, and passes pyflakes in the target
    assert t.file(created[0]).read_text() == RUNTIME.read_text()
    assert t.file(created[1]).read_text() == RUNTIME.with_name("draft_kv.py").read_text()
    compile(text, WORKER, "exec")
    assert [f for f in analyse_source(WORKER, text, t.root) if f.cls == "EAGLEWorkerV2" and f.severity.value == "error"] == []
    # after -> after: a second apply is a skip detected from the code, not a second copy
    assert engine.apply(p, t).outcome is Outcome.ALREADY_APPLIED
    assert t.file(WORKER).read_text() == text
    assert engine.revert(p, t).outcome is Outcome.REVERTED
    assert {f: t.file(f).read_bytes() for f in originals} == originals
    assert not any(t.file(f).exists() for f in created)
    assert ("sglang/srt/managers/overlap_utils.py" in originals) == (strategy == "reuse-upstream-zero-step")


@pytest.mark.network
def test_flag_registered_for_argparse_and_annotated_fields(sglang_scratch):
    for version in ("0.5.12", "0.5.16"):
        t = sglang_scratch(version)
        p = registry.patch(PATCH)
        engine.apply(p, t)
        read = engine.reader(t)
        for desc, check in p.invariants:
            assert check(read) is None, desc
        sa = read("sglang/srt/server_args.py")
        if version == "0.5.12":
            assert '"--speculative-disable-batch-threshold"' in sa
        else:
            assert "speculative_disable_batch_threshold: A[" in sa


@pytest.mark.network
def test_releases_without_state_switching_are_refused_with_a_reason(sglang_scratch):
    t = sglang_scratch("0.5.11")
    with pytest.raises(VersionOutOfRange, match="has no 'build_adaptive_runtime_state'"):
        engine.apply(registry.patch(PATCH), t, dry_run=True)


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.5.12", "0.5.16"])
def test_wrong_class_variant_is_flagged_and_refused(sglang_scratch, broken_patches, version):
    t = sglang_scratch(version)
    before = t.file(WORKER).read_bytes()
    with pytest.raises(CheckFailed) as e:
        engine.apply(registry.patch(broken_patches), t)
    msg = str(e.value)
    assert "PK003 self.spec_disable_batch_threshold is read but never assigned in EAGLEWorkerV2" in msg
    assert "assigned in EagleDraftWorker.__init__ at line" in msg and "a different class" in msg
    assert t.file(WORKER).read_bytes() == before


@pytest.mark.network
def test_drifted_upstream_is_a_precise_anchor_error(sglang_scratch):
    t = sglang_scratch("0.5.16")
    text = t.file(WORKER).read_text().replace("def forward_batch_generation(", "def forward_batch(")
    t.file(WORKER).write_text(text)
    from patchkit.ftypes import AnchorNotFound
    with pytest.raises(AnchorNotFound, match="class EAGLEWorkerV2 has no method 'forward_batch_generation'; nearest: 'forward_batch'"):
        engine.apply(registry.patch(PATCH), t, dry_run=True)


@pytest.mark.network
def test_matrix_over_the_whole_range():
    from patchkit.ftypes import FetchError
    from patchkit.matrix import expand_versions, run_matrix
    try:
        versions = expand_versions("sglang", "0.5.6..0.5.23")
    except FetchError as exc:  # no registry: say so, do not fake
        pytest.skip(str(exc))
    assert versions[0] == "0.5.6" and versions[-1] == "0.5.23" and len(versions) >= 18
    rows = run_matrix(registry.patch(PATCH), versions)
    by = {r.version: r for r in rows}
    for v, r in by.items():
        assert r.verdict in ("applies", "refused"), (v, r.verdict, r.detail)
        if r.verdict == "refused":
            assert "build_adaptive_runtime_state" in r.detail
    assert by["0.5.12"].strategy == "bring-zero-step"
    assert by["0.5.16"].strategy == "reuse-upstream-zero-step"
    assert by["0.5.11"].verdict == "refused"
    # the summary comes from the whole release (the dry run's scratch holds only the patched files)
    assert all("on decode attention kernels (Triton, FlashInfer)" in r.detail for r in rows if r.verdict == "applies")


@pytest.mark.network
def test_threshold_resolution_in_the_patched_code(sglang_scratch, monkeypatch):
    """The runtime module as written into the target, loaded on its own (it imports nothing from
    SGLang at import time): flag > env var > off; bad values name their source."""
    import importlib.util
    t = sglang_scratch("0.5.16")
    engine.apply(registry.patch(PATCH), t)
    import sys
    spec = importlib.util.spec_from_file_location("patchkit_spec_disable_in_target",
                                                  t.file("sglang/srt/speculative/patchkit_spec_disable.py"))
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, mod)  # dataclasses look their module up
    spec.loader.exec_module(mod)
    resolve = mod.resolve_threshold

    class Args:
        def __init__(self, v):
            self.speculative_disable_batch_threshold = v

    monkeypatch.delenv("SGLANG_SPEC_DISABLE_BATCH_THRESHOLD", raising=False)
    assert resolve(Args(None)) is None
    assert resolve(Args(32)) == 32
    monkeypatch.setenv("SGLANG_SPEC_DISABLE_BATCH_THRESHOLD", "16")
    assert resolve(Args(None)) == 16
    assert resolve(Args(8)) == 8  # the flag wins over the variable


@pytest.mark.network
@pytest.mark.parametrize("version,upstream", [("0.5.12", False), ("0.5.13", False), ("0.5.14", True),
                                              ("0.5.16", True), ("0.5.23", True)])
def test_decode_kernel_conversion_finds_its_hooks_in_real_release(sglang_release, version, upstream):
    from patches.dynamic_spec_disable import decode_kernel_backends, decode_kernel_gaps
    read = engine.reader(sglang_release(version))
    assert decode_kernel_gaps(read, upstream_builder=upstream) == []
    assert decode_kernel_backends(read) == (["TritonAttnBackend", "FlashInferAttnBackend"], {})


def test_decode_kernel_gaps_name_what_is_missing():
    from patches.dynamic_spec_disable import FORWARD_INFO, TRITON, decode_kernel_gaps
    files = {
        TRITON: "class TritonAttnBackend:\n"
                "    def __init__(self):\n        self.num_draft_tokens = 1\n"
                "    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True): ...\n"
                "    def forward_extend(self, q, k, v, layer, forward_batch): ...\n"
                "    def init_forward_metadata(self, forward_batch): ...\n"
                "    def init_forward_metadata_capture_cuda_graph(self, forward_batch): ...\n",
        FORWARD_INFO: "class ForwardMode:\n    def is_target_verify(self): ...\n",
        WORKER: "class EAGLEWorkerV2:\n    def build_adaptive_runtime_state(self, n, d):\n"
                "        backend = self._target_worker.model_runner._get_attention_backend()\n",
    }
    gaps = decode_kernel_gaps(files.get, upstream_builder=True)
    assert any("forward_extend(..., save_kv_cache)" in g for g in gaps)
    assert any("no CUDA-graph metadata method" in g for g in gaps)
    assert any("ForwardMode.is_draft_extend_v2" in g for g in gaps)
    assert any("_draft_worker.init_attention_backend(" in g for g in gaps)
    assert not any("forward_decode" in g or "_get_attention_backend" in g for g in gaps)
    assert decode_kernel_gaps({}.get, upstream_builder=False) == [f"{TRITON}: no class TritonAttnBackend"]


def test_decode_kernel_backends_name_the_backend_left_on_its_verify_kernel():
    """A release whose FlashInfer backend lost the sync-free decode planner keeps Triton converted
    and says why FlashInfer is not."""
    from patches.dynamic_spec_disable import FLASHINFER, TRITON, decode_kernel_backends
    body = ("    def __init__(self):\n        self.num_draft_tokens = 1\n        self.dispatch_reason = None\n"
            "        self.decode_wrappers = []\n"
            "    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True): ...\n"
            "    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True): ...\n"
            "    def init_forward_metadata(self, forward_batch): ...\n"
            "    def init_forward_metadata_out_graph(self, forward_batch, in_capture=False): ...\n")
    files = {TRITON: "class TritonAttnBackend:\n" + body, FLASHINFER: "class FlashInferAttnBackend:\n" + body}
    ok, gaps = decode_kernel_backends(files.get)
    assert ok == ["TritonAttnBackend"]
    assert gaps == {"FlashInferAttnBackend": [f"{FLASHINFER}: FlashInferAttnBackend source lacks 'fast_decode_plan'"]}
    files[FLASHINFER] = "from x import fast_decode_plan\nclass FlashInferAttnBackend:\n" + body
    assert decode_kernel_backends(files.get) == (["TritonAttnBackend", "FlashInferAttnBackend"], {})


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.5.12", "0.5.16"])
def test_subclass_unsafe_variant_is_refused_across_modules(sglang_scratch, version):
    """Patch 1.1.0's shape: the threshold assigned only in EAGLEWorkerV2.__init__, which
    StandaloneWorkerV2 (another module) never runs, while the inherited decode hook reads it. It
    killed STANDALONE at start-up on an H200; apply must refuse it, naming the subclass."""
    from dataclasses import replace
    from patchkit.patchdef import Strategy
    good = registry.patch(PATCH)

    def select(v, read):
        s = good.select(v, read)
        return Strategy(s.name, tuple(e for e in s.edits if not e.file.endswith("standalone_worker_v2.py")), s.summary)

    bad = replace(good, name="dynamic-spec-disable-subclass-unsafe", select=select, invariants=())
    t = sglang_scratch(version)
    with pytest.raises(CheckFailed) as e:
        engine.apply(bad, t)
    assert "self.spec_disable_batch_threshold is read but never assigned in StandaloneWorkerV2" in str(e.value)
    assert not t.file("sglang/srt/speculative/patchkit_spec_disable.py").exists()


@pytest.mark.network
def test_gate_passes_the_real_patch_despite_upstream_latent_errors_in_subclasses(sglang_scratch):
    """StandaloneWorkerV2 inherits reads of attributes only EAGLEWorkerV2.__init__ assigns
    (self.ps on 0.5.16, self.tp_rank on 0.5.12): upstream's latent bugs, present before the patch,
    do not fail the gate; only what the patch adds does."""
    from patchkit import gate
    for version in ("0.5.12", "0.5.16"):
        t = sglang_scratch(version)
        engine.apply(registry.patch(PATCH), t)
        res = gate.run(t)
        assert res.exit_code == 0, [(s.name, s.detail) for s in res.stages]
