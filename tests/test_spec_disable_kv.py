"""``--speculative-disable-draft-extend kv``: disabled decode steps above the threshold write the
draft's KV cache alone (patches/dynamic_spec_disable/draft_kv.py) instead of running the draft's
extend. CPU: which model gets a plan (and why not), and how the runtime drives the write and its
check against the full extend. The write itself (torch) is proven on the GPU: the
``patched-kv-check`` configuration of bench/spec_throughput.py logs, for the first 64 such steps, how
the rows it wrote compare with those the full extend writes for the same step."""
from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from patches.dynamic_spec_disable import draft_kv
from patches.dynamic_spec_disable import runtime as rt
from hypothesis import given, settings, strategies as st
from test_spec_disable_runtime import (EAGLEWorkerV2, EagleDraftInput, PrefillWorker, Worker, _batch,
                                     _install_upstream, _server_args)


def _eagle3_runner(layers=1, **over):
    radix = SimpleNamespace(layer_id=32, tp_k_head_num=8, tp_v_head_num=8, qk_head_dim=128, v_head_dim=128)
    attn = SimpleNamespace(qkv_proj=object(), rotary_emb=object(), attn=radix, q_size=4096, kv_size=1024)
    layer = SimpleNamespace(is_input_layer=True, hidden_norm=object(), input_layernorm=object(), self_attn=attn)
    inner = SimpleNamespace(embed_tokens=object(), fc=object(), fc_norm=None, is_mrope_enabled=False,
                            layers=[layer] * layers)
    pool = SimpleNamespace(set_kv_buffer=lambda *a: None, get_key_buffer=lambda i: None,
                           is_quantized_kv_cache=False, use_hnd=False)
    runner = SimpleNamespace(model=SimpleNamespace(model=inner), token_to_kv_pool=pool)
    for k, v in over.items():
        obj, _, name = k.rpartition("__")
        target = {"inner": inner, "layer": layer, "attn": attn, "pool": pool, "runner": runner}[obj]
        if v is None:
            delattr(target, name)
        else:
            setattr(target, name, v)
    return runner


def test_an_eagle3_draft_gets_a_plan():
    got = draft_kv.plan(_eagle3_runner())
    assert isinstance(got, draft_kv.KVPlan)
    assert got.radix.layer_id == 32


@pytest.mark.parametrize("over, says", [
    ({"layers": 2}, "2 decoder layers"),
    ({"inner__fc": None}, "not an EAGLE-3 draft"),
    ({"inner__is_mrope_enabled": True}, "M-RoPE"),
    ({"layer__is_input_layer": False}, "does not take [embeds, hidden]"),
    ({"attn__rotary_emb": None}, "self_attn.rotary_emb"),
    ({"pool__is_quantized_kv_cache": True}, "quantised"),
    ({"runner__token_to_kv_pool": None}, "no token_to_kv_pool"),
    ({"pool__requires_physical_write_loc": True}, "needs physical write slots"),  # 0.5.23 --enable-unified-memory
])
def test_other_drafts_get_a_reason(over, says):
    over = dict(over)
    layers = over.pop("layers", 1)
    got = draft_kv.plan(_eagle3_runner(layers, **over))
    assert isinstance(got, str) and says in got, got


class FakeKV:
    """draft_kv as the runtime calls it: records the writes and checks."""

    def __init__(self, plan):
        self._plan = plan
        self.writes: list = []
        self.checks: list = []

    def plan(self, runner):
        return self._plan

    def write(self, plan, batch, output):
        self.writes.append((plan, batch, output))

    #: what prefill_rows returns (a reason: the full prefill runs)
    rows = ("ids", "pos", "loc", "hidden")

    def prefill_rows(self, batch, tail, hidden):
        self.prefill_args = (batch, tail, hidden)
        return self.rows

    def write_rows(self, plan, rows):
        self.writes.append((plan, rows))

    def check_rows(self, plan, rows, run_full_extend):
        run_full_extend()
        self.checks.append((plan, rows))
        return self.result

    result = draft_kv.CheckResult(rows=4, identical=4, max_abs_diff=0.0, max_abs=3.5)

    def check(self, plan, batch, output, run_full_extend):
        run_full_extend()
        self.checks.append((plan, batch, output))
        return self.result


PLAN = SimpleNamespace(what="a KVPlan")


@pytest.fixture
def kv_worker(monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger=rt.logger.name)
    _install_upstream(monkeypatch)

    def make(plan=PLAN, check=None, cls=Worker):
        fake = FakeKV(plan)
        monkeypatch.setattr(rt, "_kv_module", lambda: fake)
        if check is not None:
            monkeypatch.setenv(rt.KV_CHECK_ENV, str(check))
        w = cls(_server_args(speculative_disable_hysteresis=1, speculative_disable_draft_extend="kv"), threshold=8)
        extends: list = []
        w._draft_worker._draft_extend_for_decode = lambda b, o: extends.append((b, o))
        rt.on_init(w, EAGLEWorkerV2)
        return w, fake, extends
    return make


def test_kv_writes_the_draft_kv_on_disabled_steps_above_the_threshold(kv_worker, caplog):
    w, fake, extends = kv_worker()
    ctl = getattr(w, rt.STATE_ATTR)
    assert (ctl.skip_extend, ctl.skip_prefill, ctl.kv_plan) == (True, True, PLAN)
    assert "draft_extend=kv-only-above-T" in caplog.text
    rt.on_decode(w, _batch(9))  # above T: disabled
    batch, out = object(), object()
    assert rt.skip_draft_extend(w, batch, out) is True  # upstream stubs the draft's outputs
    assert fake.writes == [(PLAN, batch, out)] and extends == []
    assert ctl.stale and ctl.kv_steps == 1
    rt.on_decode(w, _batch(8))  # at T, still disabled (the run-up to a resume): the full extend
    assert rt.skip_draft_extend(w, batch, out) is False
    assert len(fake.writes) == 1 and not ctl.stale


def test_kv_check_runs_the_full_extend_and_logs_the_comparison(kv_worker, caplog):
    w, fake, extends = kv_worker(check=2)
    assert "draft_extend=kv-only-above-T-check2" in caplog.text
    for _ in range(3):
        rt.on_decode(w, _batch(9))
        assert rt.skip_draft_extend(w, "b", "o") is True
    assert len(fake.checks) == 2 and len(extends) == 2 and len(fake.writes) == 1
    assert caplog.text.count("kv-check step=") == 2
    assert "rows=4 identical=4 max_abs_diff=0 max_abs=3.5 rel=0" in caplog.text
    assert w._draft_worker.tp_entered >= 3  # in the draft's TP context, as the extend runs


def test_kv_without_a_plan_runs_the_full_extend_and_says_why(kv_worker, caplog):
    w, fake, extends = kv_worker(plan="the draft model X has 2 decoder layers (the KV-only write covers one)")
    ctl = getattr(w, rt.STATE_ATTR)
    assert "runs the full draft extend instead: the draft model X has 2 decoder layers" in caplog.text
    assert ctl.kv_plan is None and not ctl.skip_extend and not ctl.skip_prefill
    rt.on_decode(w, _batch(9))
    assert rt.skip_draft_extend(w, "b", "o") is False and fake.writes == []


def test_a_hook_from_an_older_apply_runs_the_full_extend(kv_worker):
    w, fake, _ = kv_worker()
    rt.on_decode(w, _batch(9))
    assert rt.skip_draft_extend(w) is False and fake.writes == []


def test_the_check_count_is_a_count():
    import os
    for raw, want in (("", 0), ("64", 64), ("yes", 0), ("-3", 0)):
        os.environ[rt.KV_CHECK_ENV] = raw
        assert rt.resolve_kv_check() == want
    del os.environ[rt.KV_CHECK_ENV]


def test_a_kv_check_that_differs_logs_an_error_line_the_smoke_log_scan_fails(kv_worker, caplog):
    from patchkit.smoke.logscan import ERROR
    w, fake, _ = kv_worker(check=1)
    fake.result = draft_kv.CheckResult(rows=4, identical=1, max_abs_diff=2.5, max_abs=3.5)
    rt.on_decode(w, _batch(9))
    rt.skip_draft_extend(w, "b", "o")
    line = next(r.getMessage() for r in caplog.records if "kv-check" in r.getMessage())
    assert "ERROR kv-check step=1 rows=4 identical=1" in line and ERROR.search(line)


@pytest.mark.parametrize("identical, diff, agrees", [
    (256, 0.0, True),       # bit for bit (what the H100 run logged for 64 steps)
    (200, 0.01, True),      # bf16 rounding of another GEMM schedule
    (200, 1.0, False),      # a wrong token, position, slot or hidden state
])
def test_what_agrees(identical, diff, agrees):
    assert draft_kv.CheckResult(256, identical, diff, 7.0).agrees() is agrees


# -- prompts admitted while disabled above T: the KV-only write stands in for the draft prefill --

class _Extend:
    name = "EXTEND"

    def is_idle(self):
        return False


def _prompt_batch(n=9):
    return SimpleNamespace(seq_lens=SimpleNamespace(shape=(n,)), forward_mode=_Extend())


@pytest.fixture
def kv_prefill(kv_worker, monkeypatch):
    import sys

    def make(**kw):
        w, fake, extends = kv_worker(cls=PrefillWorker, **kw)
        ew = sys.modules["sglang.srt.speculative.eagle_worker_v2"]
        monkeypatch.setattr(ew, "EagleDraftInput", EagleDraftInput, raising=False)
        prefills: list = []
        w._draft_worker._draft_extend_for_prefill = lambda b, h, t: prefills.append((b, h, t)) or "full-draft-input"
        return w, fake, prefills
    return make


def test_kv_writes_a_prompts_draft_kv_instead_of_the_draft_prefill_above_the_threshold(kv_prefill, caplog):
    w, fake, prefills = kv_prefill()
    ctl = getattr(w, rt.STATE_ATTR)
    assert rt.skip_draft_prefill(w, _prompt_batch(), "tokens", "hidden") is None  # not disabled yet: the full prefill
    rt.on_decode(w, _batch(9))  # above T: disabled
    batch = _prompt_batch()
    stub = rt.skip_draft_prefill(w, batch, "tokens", "hidden")
    assert isinstance(stub, EagleDraftInput) and stub.bonus_tokens == "tokens"
    assert fake.prefill_args == (batch, "tokens", "hidden")  # the stand-in module has no tail-token helper
    assert fake.writes == [(PLAN, FakeKV.rows)] and prefills == []
    assert ctl.kv_prefills == 1 and ctl.skipped_prefills == 1 and ctl.stale
    rt.on_decode(w, _batch(8))  # at T, still disabled (the run-up): the full prefill
    assert rt.skip_draft_prefill(w, _prompt_batch(), "tokens", "hidden") is None and ctl.kv_prefills == 1
    assert rt.skip_draft_extend(w, "b", "o") is False and not ctl.stale  # the run-up's full extend: fresh seed
    rt.on_decode(w, _batch(8))  # drafting resumes; the switch line counts the prompt
    assert "kv_only_prefills=1" in caplog.text


def test_a_prompt_the_kv_write_cannot_cover_gets_the_full_draft_prefill(kv_prefill):
    w, fake, _ = kv_prefill()
    fake.rows = "the prompt has input embeddings or multimodal inputs (the draft embeds them otherwise)"
    rt.on_decode(w, _batch(9))
    assert rt.skip_draft_prefill(w, _prompt_batch(), "tokens", "hidden") is None
    assert fake.writes == [] and getattr(w, rt.STATE_ATTR).kv_prefills == 0


def test_a_prefill_hook_from_an_older_apply_hands_no_hidden_states_and_the_full_prefill_runs(kv_prefill, caplog):
    w, fake, _ = kv_prefill()
    rt.on_decode(w, _batch(9))
    for _ in range(2):
        assert rt.skip_draft_prefill(w, _prompt_batch(), "tokens") is None
    assert getattr(w, rt.STATE_ATTR).kv_prefills == 0 and fake.writes == []
    assert caplog.text.count("hands no target hidden states") == 1  # said once, not per prompt
    assert "older apply" in draft_kv.prefill_rows(_prompt_batch(), "tokens", None)


def test_the_tail_tokens_come_from_upstreams_helper_and_without_it_a_chunked_prompt_runs_the_full_prefill(
        kv_prefill, monkeypatch):
    import sys
    w, fake, _ = kv_prefill()
    ew = sys.modules["sglang.srt.speculative.eagle_worker_v2"]
    rt.on_decode(w, _batch(9))
    chunked = _prompt_batch()
    chunked.chunked_req = "req-3"
    assert rt.skip_draft_prefill(w, chunked, "tokens", "hidden") is None and fake.writes == []
    monkeypatch.setattr(ew, "_eagle_prefill_tail_tokens", lambda b, t: ("tails", b.chunked_req, t), raising=False)
    assert isinstance(rt.skip_draft_prefill(w, chunked, "tokens", "hidden"), EagleDraftInput)
    _, tail, _ = fake.prefill_args
    assert tail() == ("tails", "req-3", "tokens")  # called by prefill_rows once it accepts the batch


def test_kv_check_runs_the_full_draft_prefill_and_returns_its_draft_input(kv_prefill, caplog):
    w, fake, prefills = kv_prefill(check=1)
    rt.on_decode(w, _batch(9))
    batch = _prompt_batch()
    assert rt.skip_draft_prefill(w, batch, "tokens", "hidden") == "full-draft-input"
    assert prefills == [(batch, "hidden", "tokens")] and fake.checks == [(PLAN, FakeKV.rows)]
    assert "kv-check prefill=1 rows=4 identical=4" in caplog.text
    fake.result = draft_kv.CheckResult(rows=4, identical=0, max_abs_diff=3.0, max_abs=3.5)
    assert isinstance(rt.skip_draft_prefill(w, _prompt_batch(), "tokens", "hidden"), EagleDraftInput)  # check spent


def test_decode_checks_do_not_use_up_the_prompt_checks(kv_prefill, caplog):
    # session 44: a warm-up burst spent all 64 checks on decode steps, and no prompt batch was checked
    w, fake, prefills = kv_prefill(check=2)
    for _ in range(5):
        rt.on_decode(w, _batch(9))
        rt.skip_draft_extend(w, "b", "o")
    assert caplog.text.count("kv-check step=") == 2
    assert rt.skip_draft_prefill(w, _prompt_batch(), "tokens", "hidden") == "full-draft-input"
    assert "kv-check prefill=1 " in caplog.text and len(prefills) == 1


def test_a_differing_prefill_check_logs_an_error_line_the_smoke_log_scan_fails(kv_prefill, caplog):
    from patchkit.smoke.logscan import ERROR
    w, fake, _ = kv_prefill(check=1)
    fake.result = draft_kv.CheckResult(rows=4, identical=1, max_abs_diff=2.5, max_abs=3.5)
    rt.on_decode(w, _batch(9))
    rt.skip_draft_prefill(w, _prompt_batch(), "tokens", "hidden")
    line = next(r.getMessage() for r in caplog.records if "kv-check" in r.getMessage())
    assert "ERROR kv-check prefill=1" in line and "draft prefill's" in line and ERROR.search(line)


@pytest.mark.parametrize("over, says", [
    ({"forward_mode": SimpleNamespace(name="MIXED")}, "not a plain prefill batch"),
    ({"input_embeds": "embeds"}, "input embeddings, embedding overrides or multimodal"),
    ({"replace_embeds": "overrides"}, "embedding overrides"),
    ({"multimodal_inputs": [None, "image"]}, "or multimodal inputs"),
    ({"extend_lens": [3, 2]}, "do not line up"),
    ({"prefix_lens": [0]}, "do not line up"),
    ({"extend_lens": [4, 0]}, "do not line up"),
])
def test_prompt_batches_the_kv_write_does_not_cover(over, says):
    n = 4
    tensor = lambda k: SimpleNamespace(numel=lambda: k, shape=(k,))  # noqa: E731
    batch = SimpleNamespace(forward_mode=SimpleNamespace(name="EXTEND"), input_embeds=None, multimodal_inputs=None, replace_embeds=None,
                            input_ids=tensor(n), out_cache_loc=tensor(n), extend_lens=[2, 2], prefix_lens=[0, 5])
    for k, v in over.items():
        setattr(batch, k, v)
    got = draft_kv.prefill_rows(batch, tensor(2), tensor(n))
    assert isinstance(got, str) and says in got, got


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 40)), min_size=1, max_size=8))
def test_the_prefill_layout_is_upstreams_per_request_loop(reqs):
    extend, prefix = [e for e, _ in reqs], [p for _, p in reqs]
    ends, positions = draft_kv.prefill_layout(extend, prefix)
    # upstream (_draft_extend_for_prefill; ForwardBatch's compute_position_torch), one request at a time
    want_pos, want_ends, pt = [], [], 0
    for e, p in reqs:
        want_pos += list(range(p, p + e))
        pt += e
        want_ends.append(pt - 1)
    assert (ends, positions) == (want_ends, want_pos)
    ids = list(range(100, 100 + pt))
    tails = [-(i + 1) for i in range(len(reqs))]
    shifted = ids[1:] + [None]
    for i, end in enumerate(ends):
        shifted[end] = tails[i]
    pt, want = 0, []
    for i, (e, _) in enumerate(reqs):
        want += ids[pt + 1: pt + e] + [tails[i]]
        pt += e
    assert shifted == want


class _Recorder:
    """A stand-in torch for :func:`draft_kv.prefill_rows` that records every host-to-device copy."""

    int64 = "int64"

    def __init__(self):
        self.copies: list = []
        self.device_tensors: list = []

    class T:
        def __init__(self, rec, data, where="cpu", pinned=False):
            self.rec, self.data, self.where, self.pinned = rec, list(data), where, pinned
            self.is_cuda = where != "cpu"
            self.device = where

        def numel(self):
            return len(self.data)

        def pin_memory(self):
            return _Recorder.T(self.rec, self.data, self.where, pinned=True)

        def to(self, device, non_blocking=False):
            if device == self.rec.int64:  # a dtype cast
                return self
            self.rec.copies.append({"pinned": self.pinned, "non_blocking": non_blocking})
            return _Recorder.T(self.rec, self.data, device)

        def __getitem__(self, key):
            return _Recorder.T(self.rec, self.data[key], self.where)

        def __setitem__(self, key, value):
            keys = key.data if isinstance(key, _Recorder.T) else range(*key.indices(len(self.data)))
            vals = value.data
            for k, v in zip(keys, vals):
                self.data[k] = v

    def tensor(self, data, dtype=None, device=None):
        if device not in (None, "cpu"):
            self.device_tensors.append(device)
        return self.T(self, data)

    def empty(self, n, dtype=None, device="cpu"):
        return self.T(self, [None] * n, device)


def test_the_prefill_rows_copy_to_the_gpu_without_blocking_the_host(monkeypatch):
    import sys
    rec = _Recorder()
    monkeypatch.setitem(sys.modules, "torch", rec)
    ids = _Recorder.T(rec, [10, 11, 12, 13, 14], "cuda:0")
    batch = SimpleNamespace(forward_mode=SimpleNamespace(name="EXTEND"), input_embeds=None, multimodal_inputs=None, replace_embeds=None,
                            input_ids=ids, out_cache_loc=_Recorder.T(rec, [7, 8, 9, 3, 4], "cuda:0"),
                            extend_lens=[3, 2], prefix_lens=[0, 6])
    hidden = SimpleNamespace(shape=(5, 12))
    shifted, pos, loc, hid = draft_kv.prefill_rows(batch, _Recorder.T(rec, [90, 91], "cuda:0"), hidden)
    assert shifted.data == [11, 12, 90, 14, 91] and pos.data == [0, 1, 2, 6, 7] and hid is hidden
    assert rec.device_tensors == []  # torch.tensor(..., device=cuda) blocks until the stream drains
    assert rec.copies and all(c["pinned"] and c["non_blocking"] for c in rec.copies), rec.copies
