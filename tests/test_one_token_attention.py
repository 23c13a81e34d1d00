"""The patch's decode-kernel conversion (``runtime.one_token_attention``), run on stand-ins.

The runtime module is the exact file the patch writes into SGLang. It is executed here against a
stand-in ``ForwardMode`` and a stand-in ``TritonAttnBackend`` that records what its metadata
methods see, so CI (no GPU, no SGLang import) checks the contract: one-token TARGET_VERIFY and
DRAFT_EXTEND_V2 steps reach the backend as DECODE steps over prefix + 1 tokens, every other mode
passes through untouched, and the forward batch is restored exactly. The kernels themselves are
checked on a GPU by the smoke test (greedy equivalence between the drafted and disabled paths).
"""
from __future__ import annotations

import sys
import types

import pytest
from hypothesis import given, settings, strategies as st

from patches.dynamic_spec_disable import runtime as R


class Mode:
    def __init__(self, name):
        self.name = name

    def is_target_verify(self):
        return self.name == "TARGET_VERIFY"

    def is_draft_extend_v2(self):
        return self.name == "DRAFT_EXTEND_V2"

    def is_decode(self):
        return self.name == "DECODE"

    def __repr__(self):
        return self.name


class ForwardMode:
    DECODE = Mode("DECODE")
    TARGET_VERIFY = Mode("TARGET_VERIFY")
    DRAFT_EXTEND_V2 = Mode("DRAFT_EXTEND_V2")
    EXTEND = Mode("EXTEND")
    IDLE = Mode("IDLE")


class Lens(tuple):
    """seq_lens stand-in: ``+ n`` adds elementwise like a tensor, ``sum()`` like a tensor."""

    def __add__(self, n):
        return Lens(x + n for x in self)

    def sum(self):
        return sum(iter(self))


class Recorder:
    """What every stand-in backend shares: its fields, and an eager metadata call that records what
    it saw and builds ``_meta(mode)``."""

    def __init__(self, **attrs):
        self.max_context_len = 1000
        self.calls = []
        self.forward_metadata = None
        self.__dict__.update(attrs)

    def init_forward_metadata(self, fb):
        self.calls.append(("eager", fb.forward_mode, tuple(fb.seq_lens), fb.seq_lens_sum,
                           None if fb.seq_lens_cpu is None else tuple(fb.seq_lens_cpu), fb.spec_info))
        self.forward_metadata = self._meta(fb.forward_mode)


class TritonAttnBackend(Recorder):
    def __init__(self, num_draft_tokens=1, **attrs):
        super().__init__(num_draft_tokens=num_draft_tokens, **attrs)

    def _meta(self, mode):
        return types.SimpleNamespace(attn_logits="buf" if mode.is_decode() else None)

    def init_forward_metadata_out_graph(self, fb, in_capture=False):
        self.calls.append(("graph", fb.forward_mode, tuple(fb.seq_lens), in_capture, fb.spec_info))
        self.forward_metadata = types.SimpleNamespace(attn_logits="buf" if fb.forward_mode.is_decode() else None)

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum,
                                                encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        self.calls.append(("replay", forward_mode, tuple(seq_lens), seq_lens_sum, spec_info,
                           None if seq_lens_cpu is None else tuple(seq_lens_cpu)))

    def forward_extend(self, q, k, v, layer, fb, save_kv_cache=True, sinks=None):
        return ("extend", save_kv_cache)

    def forward_decode(self, q, k, v, layer, fb, save_kv_cache=True, sinks=None):
        return ("decode", save_kv_cache, sinks)


@pytest.fixture(scope="module")
def convert():
    saved = {k: sys.modules.get(k) for k in ("sglang", "sglang.srt", "sglang.srt.model_executor",
                                             "sglang.srt.model_executor.forward_batch_info")}
    for name in saved:
        sys.modules[name] = types.ModuleType(name)
    sys.modules["sglang.srt.model_executor.forward_batch_info"].ForwardMode = ForwardMode
    R._ONE_TOKEN_CLASSES.clear()
    yield R.one_token_attention
    R._ONE_TOKEN_CLASSES.clear()
    for name, mod in saved.items():
        if mod is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = mod


def batch(mode, lens, seq_sum="auto", cpu=True, spec="spec-input"):
    lens = Lens(lens)
    return types.SimpleNamespace(forward_mode=mode, seq_lens=lens,
                                 seq_lens_sum=sum(lens) if seq_sum == "auto" else seq_sum,
                                 seq_lens_cpu=Lens(lens) if cpu else None, spec_info=spec)


def snapshot(fb):
    return (fb.forward_mode, fb.seq_lens, fb.seq_lens_sum, fb.seq_lens_cpu, fb.spec_info)


def test_target_verify_becomes_decode_over_prefix_plus_one(convert):
    b = TritonAttnBackend()
    assert convert(b) is True and type(b).__name__ == "PatchkitOneTokenTritonAttnBackend"
    fb = batch(ForwardMode.TARGET_VERIFY, [5, 7, 1])
    before = snapshot(fb)
    b.init_forward_metadata(fb)
    assert b.calls[-1] == ("eager", ForwardMode.DECODE, (6, 8, 2), 16, (6, 8, 2), None)
    assert snapshot(fb) == before and all(x is y for x, y in zip(snapshot(fb), before))
    assert b.forward_extend("q", "k", "v", None, fb) == ("decode", True, None)


def test_draft_extend_v2_already_carries_the_post_write_length(convert):
    b = TritonAttnBackend()
    convert(b)
    fb = batch(ForwardMode.DRAFT_EXTEND_V2, [6, 8])
    b.init_forward_metadata(fb)
    assert b.calls[-1] == ("eager", ForwardMode.DECODE, (6, 8), 14, (6, 8), None)


@pytest.mark.parametrize("mode", [ForwardMode.DECODE, ForwardMode.EXTEND, ForwardMode.IDLE])
def test_other_modes_pass_through(convert, mode):
    b = TritonAttnBackend()
    convert(b)
    fb = batch(mode, [3, 4])
    b.init_forward_metadata(fb)
    assert b.calls[-1] == ("eager", mode, (3, 4), 7, (3, 4), "spec-input")
    assert b.forward_extend("q", "k", "v", None, fb) == ("extend", True)


class NoSync(Lens):
    def __add__(self, n):
        return NoSync(x + n for x in self)

    def sum(self):
        raise AssertionError("the device copy of seq_lens was summed (a GPU sync)")


def test_missing_sum_is_supplied_for_the_eager_path_only_without_a_sync(convert):
    b = TritonAttnBackend()
    convert(b)
    fb = batch(ForwardMode.TARGET_VERIFY, [5, 7], seq_sum=None, cpu=True)
    fb.seq_lens = NoSync(fb.seq_lens)
    b.init_forward_metadata(fb)
    assert b.calls[-1][3] == 14  # the host copy's sum: eager decode metadata sizes its index buffer with it
    fb = batch(ForwardMode.TARGET_VERIFY, [5, 7], seq_sum=None, cpu=False)
    fb.seq_lens = NoSync(fb.seq_lens)
    b.init_forward_metadata(fb)
    assert b.calls[-1][3] == 2 * 1000  # no host copy: the upper bound bs * max_context_len
    fb = batch(ForwardMode.TARGET_VERIFY, [5, 7], seq_sum=None, cpu=False)
    b.init_forward_metadata_out_graph(fb, in_capture=True)
    assert b.calls[-1] == ("graph", ForwardMode.DECODE, (6, 8), True, None)
    assert fb.seq_lens_sum is None and fb.forward_mode is ForwardMode.TARGET_VERIFY


def test_graph_replay_arguments_are_shifted(convert):
    b = TritonAttnBackend()
    convert(b)
    b.init_forward_metadata_replay_cuda_graph(2, "rpi", Lens([5, 7]), 12, None, ForwardMode.TARGET_VERIFY,
                                              "spec", Lens([5, 7]))
    assert b.calls[-1] == ("replay", ForwardMode.DECODE, (6, 8), 14, None, (6, 8))
    b.init_forward_metadata_replay_cuda_graph(2, "rpi", Lens([5, 7]), 12, None, ForwardMode.DECODE, None, None)
    assert b.calls[-1] == ("replay", ForwardMode.DECODE, (5, 7), 12, None, None)


def test_extend_kernel_stays_when_metadata_was_not_converted(convert):
    b = TritonAttnBackend()
    convert(b)
    fb = batch(ForwardMode.TARGET_VERIFY, [5])
    b.forward_metadata = types.SimpleNamespace(attn_logits=None)  # built by someone else
    assert b.forward_extend("q", "k", "v", None, fb) == ("extend", True)
    b.init_forward_metadata(fb)
    assert b.forward_extend("q", None, None, None, fb) == ("extend", True)  # no new K/V to write
    assert b.forward_extend("q", "k", "v", None, fb, False, sinks="s") == ("decode", False, "s")


@pytest.mark.parametrize("backend, why", [
    (TritonAttnBackend(num_draft_tokens=4), "built for 4 verify tokens"),
    (TritonAttnBackend(use_mla=True), "MLA"),
    (TritonAttnBackend(sliding_window_size=4096), "sliding window"),
    (TritonAttnBackend(dcp_size=2), "decode context parallel"),
    (TritonAttnBackend(token_to_kv_pool=types.SimpleNamespace(dtype="torch.float8_e4m3fn")), "fp8 KV cache"),
    (TritonAttnBackend(token_to_kv_pool=types.SimpleNamespace(dtype="torch.float8_e5m2")), "fp8 KV cache"),
])
def test_backends_it_cannot_serve_are_left_alone(convert, backend, why):
    assert convert(backend) is False, why
    assert type(backend) is TritonAttnBackend


def test_other_backend_families_are_left_alone(convert):
    class FlashInferBackend:
        num_draft_tokens = 1

    b = FlashInferBackend()
    assert convert(b) is False and type(b) is FlashInferBackend


def test_env_switch_keeps_the_extend_kernel(convert, monkeypatch):
    monkeypatch.setenv("PATCHKIT_SPEC_DISABLE_DECODE_ATTENTION", "0")
    b = TritonAttnBackend()
    assert convert(b) is False and type(b) is TritonAttnBackend


def test_force_converts_a_quantised_cache_for_the_ab(convert, monkeypatch):
    """`PATCHKIT_SPEC_DISABLE_DECODE_ATTENTION=force`: the fp8 pool is converted too (the A/B that
    measures it); any other value leaves it alone."""
    for value, want in (("force", True), ("1", False)):
        monkeypatch.setenv("PATCHKIT_SPEC_DISABLE_DECODE_ATTENTION", value)
        b = TritonAttnBackend(token_to_kv_pool=types.SimpleNamespace(dtype="torch.float8_e4m3fn"))
        assert convert(b) is want


def test_conversion_is_idempotent_and_shares_one_class(convert):
    a, b = TritonAttnBackend(), TritonAttnBackend()
    assert convert(a) and convert(b) and convert(a)
    assert type(a) is type(b) and type(a).__mro__[1] is TritonAttnBackend


modes = st.sampled_from([ForwardMode.TARGET_VERIFY, ForwardMode.DRAFT_EXTEND_V2, ForwardMode.DECODE,
                         ForwardMode.EXTEND])


@settings(max_examples=200, deadline=None)
@given(mode=modes, lens=st.lists(st.integers(1, 5000), min_size=1, max_size=16),
       has_sum=st.booleans(), has_cpu=st.booleans(), graph=st.booleans())
def test_any_batch_is_seen_shifted_and_restored(convert, mode, lens, has_sum, has_cpu, graph):
    b = TritonAttnBackend()
    convert(b)
    fb = batch(mode, lens, seq_sum="auto" if has_sum else None, cpu=has_cpu)
    before = snapshot(fb)
    if graph:
        b.init_forward_metadata_out_graph(fb)
        seen = b.calls[-1][2]
    else:
        b.init_forward_metadata(fb)
        seen = b.calls[-1][2]
    shift = {"TARGET_VERIFY": 1, "DRAFT_EXTEND_V2": 0}.get(mode.name)
    assert seen == tuple(x + (shift or 0) for x in lens)
    assert b.calls[-1][1] is (ForwardMode.DECODE if shift is not None else mode)
    if not graph and shift is not None:
        expected = sum(lens) + shift * len(lens) if has_sum or has_cpu else len(lens) * b.max_context_len
        assert b.calls[-1][3] == expected
    assert all(x is y for x, y in zip(snapshot(fb), before))


# ----------------------------------------------------------------------------- FlashInfer
class DecodeMetadata:
    def __init__(self, wrappers):
        self.decode_wrappers = wrappers


class PrefillMetadata:
    def __init__(self, wrappers):
        self.prefill_wrappers = wrappers


class FlashInferAttnBackend(Recorder):
    """Stand-in shaped like SGLang 0.5.14+'s FlashInfer backend: DECODE plans the decode wrappers
    (graph capture installs the sync-free planner), TARGET_VERIFY the paged-prefill ones."""

    def __init__(self, **attrs):
        super().__init__(**{"dispatch_reason": None, "num_wrappers": 1, "skip_prefill": False,
                            "use_sliding_window_kv_pool": False, "decode_uses_dequant_workspace": False, **attrs})

    def _meta(self, mode):
        return DecodeMetadata(["decode"]) if mode.is_decode() else PrefillMetadata(["verify"])

    def init_forward_metadata_out_graph(self, fb, in_capture=False):
        self.calls.append(("graph", fb.forward_mode, tuple(fb.seq_lens), in_capture,
                           None if fb.seq_lens_cpu is None else tuple(fb.seq_lens_cpu), fb.spec_info))
        if in_capture:
            self.forward_metadata = self._meta(fb.forward_mode)

    def forward_extend(self, q, k, v, layer, fb, save_kv_cache=True):
        return ("prefill-wrapper", save_kv_cache)

    def forward_decode(self, q, k, v, layer, fb, save_kv_cache=True):
        return ("decode-wrapper", save_kv_cache)


def test_flashinfer_verify_takes_the_decode_wrappers(convert):
    b = FlashInferAttnBackend()
    assert convert(b) is True and type(b).__name__ == "PatchkitOneTokenFlashInferAttnBackend"
    fb = batch(ForwardMode.TARGET_VERIFY, [5, 7, 1])
    before = snapshot(fb)
    b.init_forward_metadata(fb)
    assert b.calls[-1] == ("eager", ForwardMode.DECODE, (6, 8, 2), 16, (6, 8, 2), None)
    assert isinstance(b.forward_metadata, DecodeMetadata)
    assert b.forward_extend("q", "k", "v", None, fb) == ("decode-wrapper", True)
    assert all(x is y for x, y in zip(snapshot(fb), before))


def test_flashinfer_graph_capture_and_replay_see_decode_with_host_lengths_shifted(convert):
    b = FlashInferAttnBackend()
    convert(b)
    fb = batch(ForwardMode.TARGET_VERIFY, [5, 7])
    b.init_forward_metadata_out_graph(fb, in_capture=True)
    # the host lengths move with the device ones: fast_decode_plan builds its indptr from them
    assert b.calls[-1] == ("graph", ForwardMode.DECODE, (6, 8), True, (6, 8), None)
    assert b.forward_extend("q", "k", "v", None, fb, False) == ("decode-wrapper", False)
    fb = batch(ForwardMode.DRAFT_EXTEND_V2, [6, 8])
    b.init_forward_metadata_out_graph(fb)
    assert b.calls[-1] == ("graph", ForwardMode.DECODE, (6, 8), False, (6, 8), None)


def test_flashinfer_prefill_metadata_keeps_the_prefill_wrapper(convert):
    b = FlashInferAttnBackend()
    convert(b)
    fb = batch(ForwardMode.TARGET_VERIFY, [5])
    b.forward_metadata = PrefillMetadata(["verify"])  # planned by someone else
    assert b.forward_extend("q", "k", "v", None, fb) == ("prefill-wrapper", True)
    fb = batch(ForwardMode.EXTEND, [5])
    b.init_forward_metadata(fb)
    assert b.calls[-1][1] is ForwardMode.EXTEND
    assert b.forward_extend("q", "k", "v", None, fb) == ("prefill-wrapper", True)


@pytest.mark.parametrize("attrs, why", [
    ({"dispatch_reason": "SLIDING_WINDOW", "num_wrappers": 2}, "sliding-window wrapper dispatch"),
    ({"dispatch_reason": "CROSS_ATTENTION", "num_wrappers": 2}, "cross-attention wrapper dispatch"),
    ({"use_sliding_window_kv_pool": True}, "SWA KV pool"),
    ({"decode_uses_dequant_workspace": True}, "FP4 dequant workspace"),
    ({"skip_prefill": True}, "a multi-step draft backend"),
    ({"token_to_kv_pool": types.SimpleNamespace(dtype="torch.float8_e4m3fn")}, "fp8 KV cache"),
])
def test_flashinfer_backends_it_cannot_serve_are_left_alone(convert, attrs, why):
    b = FlashInferAttnBackend(**attrs)
    assert convert(b) is False, why
    assert type(b) is FlashInferAttnBackend


@pytest.mark.parametrize("dtype", ["torch.bfloat16", "torch.float16"])
def test_sixteen_bit_kv_caches_are_converted(convert, dtype):
    for b in (TritonAttnBackend(token_to_kv_pool=types.SimpleNamespace(dtype=dtype)),
              FlashInferAttnBackend(token_to_kv_pool=types.SimpleNamespace(dtype=dtype))):
        assert convert(b) is True, (type(b).__name__, dtype)
