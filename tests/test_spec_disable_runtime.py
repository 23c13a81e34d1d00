"""dynamic-spec-disable 2.0, the runtime (patches/dynamic_spec_disable/runtime.py) on CPU against
stand-ins: the hysteresis switch, the start-up refusals, and the state swap on a worker that
behaves like upstream 0.5.16's EAGLEWorkerV2 (``apply_runtime_state`` + ``ServerArgs.override``).

Nothing here imports torch or SGLang: stand-in modules go into ``sys.modules`` through monkeypatch
and are removed after each test."""
from __future__ import annotations

import contextlib
import logging
import sys
import types
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Optional

import pytest
from hypothesis import given, settings, strategies as st

import re

from patches.dynamic_spec_disable.smoke_spec import SPEC

# the patterns the smoke test parses these lines with (the patch's own smoke spec)
READY = re.compile(SPEC.patterns.ready)
SWITCH = re.compile(SPEC.patterns.switch)
DECODE_ATTENTION = re.compile(dict(SPEC.patterns.fields)["decode_attention"])
from patches.dynamic_spec_disable import runtime as rt

ENVS = (rt.ENV, rt.HYSTERESIS_ENV, rt.DECODE_ATTENTION_ENV, rt.DRAFT_EXTEND_ENV)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in ENVS:
        monkeypatch.delenv(name, raising=False)


# ============================================================================ 1. Switch hysteresis
def _run(threshold: int, k: int, sizes: list[int]):
    """Feed ``sizes`` to a Switch; return it, the mode after each step and the switch steps."""
    sw = rt.Switch(threshold, k)
    modes, switched = [], []
    for i, bs in enumerate(sizes):
        before = sw.disabled
        due = sw.observe(bs)
        if due is not None:
            assert due == sw.disabled != before, "observe() returned a mode it did not switch to"
            switched.append(i)
        else:
            assert sw.disabled == before, "the mode changed without observe() saying so"
        modes.append(sw.disabled)
    return sw, modes, switched


switch_inputs = st.integers(0, 64).flatmap(lambda t: st.tuples(
    st.just(t), st.integers(1, 6),
    st.lists(st.one_of(st.integers(max(0, t - 3), t + 3), st.integers(0, 200)), max_size=300)))


@settings(max_examples=300, deadline=None)
@given(switch_inputs)
def test_switch_off_at_the_first_step_above_t_and_on_only_after_k_steps_at_or_below(args):
    t, k, sizes = args
    sw, modes, switched = _run(t, k, sizes)
    prev = False
    for i, bs in enumerate(sizes):
        window = sizes[max(0, i - k + 1): i + 1]
        if i in switched:
            if modes[i]:
                # OFF: drafting stops at the first decode step above T
                assert bs > t and not prev, (i, bs)
            else:
                # ON: the K steps up to and including i were all at or below T
                assert len(window) == k, f"resumed at step {i} < K={k}"
                assert all(b <= t for b in window), (i, window)
        # and the converse: any step above T ends disabled; K steps in a row at or below T end enabled
        if bs > t:
            assert modes[i], f"step {i} above T={t} and still drafting"
        if len(window) == k and all(b <= t for b in window):
            assert not modes[i], f"K={k} steps at/below T={t} and still disabled at step {i}"
        assert modes[i] != prev or i not in switched
        prev = modes[i]
    ons = [i for i in switched if not modes[i]]
    offs = [i for i in switched if modes[i]]
    # between an OFF and the next ON at least K steps pass (the resume hysteresis)
    assert all(on - off >= k for off, on in zip(offs, ons)), (offs, ons, k)
    assert sw.switches == len(switched)
    assert sw.disabled_steps + sw.enabled_steps == len(sizes)
    assert sw.disabled_steps == sum(modes)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 64), st.lists(st.integers(0, 200), max_size=200))
def test_switch_with_k1_follows_the_batch_size_exactly(t, sizes):
    sw, modes, switched = _run(t, 1, sizes)
    assert modes == [bs > t for bs in sizes]
    expected = sum(1 for a, b in zip([False] + modes, modes) if a != b)
    assert sw.switches == expected == len(switched)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 64), st.integers(2, 10), st.integers(0, 400), st.booleans())
def test_oscillating_load_around_t_switches_off_once_and_never_back_with_k_at_least_2(t, k, n, start_high):
    sizes = [(t + 1 if (i % 2 == 0) == start_high else t) for i in range(n)]
    sw, modes, switched = _run(t, k, sizes)
    first_high = 0 if start_high else 1
    if n > first_high:
        assert switched == [first_high] and sw.switches == 1
        assert modes == [i >= first_high for i in range(n)]
    else:
        assert switched == [] and sw.switches == 0


def test_oscillating_load_with_k1_switches_every_step():
    """The same load with K=1 flips every step: the oscillation test above can fail."""
    sw, _, switched = _run(8, 1, [9, 8] * 50)
    assert sw.switches == 100 and switched == list(range(100))


def test_a_wave_of_requests_that_arrive_together_drafts_no_step_above_t():
    """Closed-loop load whose requests start and finish together (bench/spec_throughput.py): the
    batch drains to a few requests between waves, long enough to resume, then jumps to 256. With
    K = 8 on both sides (2.3.0) every wave drafted steps above T (38 on this load; on the H200, 8
    at 256 per wave); now none."""
    wave = [256] * 120 + [20, 12, 6, 3, 2, 1, 1, 2, 5, 11, 22, 40, 90, 180]
    sw, modes, _ = _run(32, 8, wave * 5)
    assert all(m for bs, m in zip(wave * 5, modes) if bs > 32)
    assert sw.switches == 11  # OFF at the first step; then per drain, ON after 8 steps and OFF at 40


def test_a_resume_held_for_a_stale_draft_waits_one_more_step():
    sw = rt.Switch(4, 2)
    assert sw.observe(9) is True
    assert sw.observe(3) is None
    assert sw.observe(3, hold_resume=True) is None  # due, but the draft's seed is stale
    assert sw.observe(3) is False


# ============================================================================ 2. check_server_args
def _args(**kw) -> SimpleNamespace:
    base = dict(speculative_disable_batch_threshold=None, speculative_disable_hysteresis=None,
                speculative_algorithm="EAGLE", speculative_adaptive=False, enable_dp_attention=False,
                enable_two_batch_overlap=False, enable_pdmux=False, enable_multi_layer_eagle=False,
                speculative_eagle_topk=1, speculative_num_steps=3, speculative_num_draft_tokens=4)
    base.update(kw)
    return SimpleNamespace(**base)


#: (field, clashing value, what the message must name) -- one row per CLASHES entry
CLASH_ROWS = [
    ("speculative_adaptive", True, "--speculative-adaptive"),
    ("enable_dp_attention", True, "--enable-dp-attention"),
    ("enable_two_batch_overlap", True, "--enable-two-batch-overlap"),
    ("enable_pdmux", True, "--enable-pdmux"),
    ("enable_multi_layer_eagle", True, "--enable-multi-layer-eagle"),
    ("speculative_eagle_topk", 2, "--speculative-eagle-topk"),
]


def test_clash_rows_cover_the_runtime_table():
    assert sorted(r[0] for r in CLASH_ROWS) == sorted(c[0] for c in rt.CLASHES)


def _refusal(args) -> str:
    with pytest.raises(rt.SpecDisableConfigError) as info:
        rt.check_server_args(args)
    msg = str(info.value)
    assert "\n" not in msg, f"not one line: {msg!r}"
    return msg


@pytest.mark.parametrize("field,value,option", CLASH_ROWS, ids=[r[0] for r in CLASH_ROWS])
def test_each_clash_is_refused_naming_the_flag_and_the_option(field, value, option):
    msg = _refusal(_args(speculative_disable_batch_threshold=16, **{field: value}))
    assert rt.FLAG in msg and option in msg and rt.ENV not in msg


@pytest.mark.parametrize("field,value,option", CLASH_ROWS, ids=[r[0] for r in CLASH_ROWS])
def test_each_clash_is_refused_naming_the_env_var_when_set_there(monkeypatch, field, value, option):
    monkeypatch.setenv(rt.ENV, "16")
    msg = _refusal(_args(**{field: value}))
    assert rt.ENV in msg and option in msg and rt.FLAG not in msg


@pytest.mark.parametrize("topk", [None, 1])
def test_topk_one_or_unset_is_not_a_clash(topk):
    rt.check_server_args(_args(speculative_disable_batch_threshold=16, speculative_eagle_topk=topk))


def test_threshold_off_refuses_nothing_even_with_every_clash_on():
    every = {field: value for field, value, _ in CLASH_ROWS}
    rt.check_server_args(_args(**every))
    rt.check_server_args(_args(speculative_algorithm=None, **every))


def test_clash_read_through_resolved_view(monkeypatch):
    """0.5.16+ keep some fields behind ``resolved_view``: the check reads the resolved value."""
    overrides = types.ModuleType("sglang.srt.arg_groups.overrides")
    overrides.resolved_view = lambda sa: SimpleNamespace(**{**vars(sa), "enable_dp_attention": True})
    _install(monkeypatch, {"sglang.srt.arg_groups.overrides": overrides})
    msg = _refusal(_args(speculative_disable_batch_threshold=16))
    assert "--enable-dp-attention" in msg


def test_flag_without_speculation_raises_env_only_warns(monkeypatch, caplog):
    msg = _refusal(_args(speculative_disable_batch_threshold=16, speculative_algorithm=None))
    assert rt.FLAG in msg and "--speculative-algorithm" in msg
    monkeypatch.setenv(rt.ENV, "16")
    caplog.set_level(logging.WARNING, logger=rt.logger.name)
    rt.check_server_args(_args(speculative_algorithm=None))
    assert any(rt.ENV in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)


@pytest.mark.parametrize("value", [-1, 2.5, "8", True, False])
def test_invalid_flag_values_raise_naming_the_flag(value):
    msg = _refusal(_args(speculative_disable_batch_threshold=value))
    assert rt.FLAG in msg and repr(value) in msg


@pytest.mark.parametrize("raw", ["abc", "-3", "1.5", "true"])
def test_invalid_env_values_raise_naming_the_variable(monkeypatch, raw):
    monkeypatch.setenv(rt.ENV, raw)
    msg = _refusal(_args())
    assert rt.ENV in msg and rt.FLAG not in msg


def test_threshold_zero_is_valid_and_empty_env_is_off(monkeypatch):
    rt.check_server_args(_args(speculative_disable_batch_threshold=0))
    monkeypatch.setenv(rt.ENV, "  ")
    assert rt.resolve_threshold(_args()) is None


def test_hysteresis_zero_raises_naming_its_source(monkeypatch):
    msg = _refusal(_args(speculative_disable_batch_threshold=16, speculative_disable_hysteresis=0))
    assert rt.HYSTERESIS_FLAG in msg
    monkeypatch.setenv(rt.HYSTERESIS_ENV, "0")
    msg = _refusal(_args(speculative_disable_batch_threshold=16))
    assert rt.HYSTERESIS_ENV in msg
    # a bad hysteresis is refused even when the threshold is off (the value is wrong either way)
    _refusal(_args())


def test_hysteresis_resolution():
    assert rt.resolve_hysteresis(_args()) == rt.DEFAULT_HYSTERESIS
    assert rt.resolve_hysteresis(_args(speculative_disable_hysteresis=1)) == 1


# ---------------------------------------------------------------- the worker class check
def _install(monkeypatch, modules: dict[str, types.ModuleType]) -> None:
    """Stand-in modules (and empty parent packages) in sys.modules, removed after the test."""
    for name in list(modules):
        parts = name.split(".")
        for i in range(1, len(parts)):
            parent = ".".join(parts[:i])
            if parent not in modules and parent not in sys.modules:
                pkg = types.ModuleType(parent)
                pkg.__path__ = []
                modules[parent] = pkg
    for name, mod in modules.items():
        monkeypatch.setitem(sys.modules, name, mod)


class EAGLEWorkerV2:
    """Upstream's patched worker class, reduced to what the runtime looks at."""

    def forward_batch_generation(self, batch):
        return batch

    def _forward_prefill(self, batch, output):  # where apply hooks the draft prefill (0.5.14+)
        return rt.skip_draft_prefill(self, batch, output.next_token_ids) or output


class StandaloneWorkerV2(EAGLEWorkerV2):
    pass


class FrozenKVMTPWorkerV2(EAGLEWorkerV2):
    def forward_batch_generation(self, batch):
        return None


class EAGLEWorker:
    """0.5.12's v1 worker (what --disable-overlap-schedule runs): not an EAGLEWorkerV2."""

    def forward_batch_generation(self, batch):
        return batch


def _spec_modules(monkeypatch, worker_cls: type, seen: Optional[list] = None) -> None:
    ew = types.ModuleType("sglang.srt.speculative.eagle_worker_v2")
    ew.EAGLEWorkerV2 = EAGLEWorkerV2

    class SpeculativeAlgorithm:
        def __init__(self, name):
            self.name = name

        @classmethod
        def from_string(cls, name):
            return cls(name)

        def create_worker(self, server_args):
            if seen is not None:
                seen.append((self.name, server_args))
            return worker_cls

    si = types.ModuleType("sglang.srt.speculative.spec_info")
    si.SpeculativeAlgorithm = SpeculativeAlgorithm
    _install(monkeypatch, {ew.__name__: ew, si.__name__: si})


def test_plain_subclass_passes_the_worker_check(monkeypatch):
    seen: list = []
    _spec_modules(monkeypatch, StandaloneWorkerV2, seen)
    args = _args(speculative_disable_batch_threshold=16, speculative_algorithm="STANDALONE")
    rt.check_server_args(args)
    assert seen == [("STANDALONE", args)], "the check did not ask the release which worker it builds"
    _spec_modules(monkeypatch, EAGLEWorkerV2)
    rt.check_server_args(args)


def test_subclass_overriding_forward_is_refused_naming_it(monkeypatch):
    _spec_modules(monkeypatch, FrozenKVMTPWorkerV2)
    msg = _refusal(_args(speculative_disable_batch_threshold=16, speculative_algorithm="FROZEN_KV_MTP"))
    assert "FrozenKVMTPWorkerV2" in msg and "forward_batch_generation" in msg
    assert rt.FLAG in msg and "--speculative-algorithm FROZEN_KV_MTP" in msg


def test_non_subclass_worker_is_refused_naming_it(monkeypatch):
    _spec_modules(monkeypatch, EAGLEWorker)
    msg = _refusal(_args(speculative_disable_batch_threshold=16, disable_overlap_schedule=True))
    assert "runs EAGLEWorker," in msg and "EAGLEWorkerV2" in msg and rt.FLAG in msg


def test_worker_check_is_skipped_when_the_threshold_is_off(monkeypatch):
    seen: list = []
    _spec_modules(monkeypatch, EAGLEWorker, seen)
    rt.check_server_args(_args())
    assert seen == []


def test_worker_class_unresolved_is_not_a_refusal(monkeypatch):
    """The release refuses a combination itself (in its words): create_worker raising is not ours."""
    ew = types.ModuleType("sglang.srt.speculative.eagle_worker_v2")
    ew.EAGLEWorkerV2 = EAGLEWorkerV2
    si = types.ModuleType("sglang.srt.speculative.spec_info")

    class SpeculativeAlgorithm:
        @classmethod
        def from_string(cls, name):
            raise ValueError(f"unknown {name}")

    si.SpeculativeAlgorithm = SpeculativeAlgorithm
    _install(monkeypatch, {ew.__name__: ew, si.__name__: si})
    rt.check_server_args(_args(speculative_disable_batch_threshold=16))


# ============================================================================ 3. on_init / on_decode
@dataclass
class SpecRuntimeState:
    """Upstream's dataclass (adaptive_runtime_state.py), field for field."""

    speculative_num_steps: int
    speculative_num_draft_tokens: int
    draft_attn_backend: Any
    cuda_graph_runner: Any
    target_attn_backend: Any
    target_graph_runner: Any
    draft_extend_attn_backend: Any
    cuda_graph_runner_for_draft_extend: Any


class ServerArgs:
    """0.5.16's provenance: ``override`` records every call (resolvable fields in
    ``_resolved_overrides``, the rest in ``_runtime_mutations``) and sets the fields."""

    RESOLVABLE = {"speculative_num_steps", "speculative_num_draft_tokens"}

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def override(self, source: str, **fields) -> None:
        for attr, keys in (("_resolved_overrides", self.RESOLVABLE), ("_runtime_mutations", None)):
            part = {k: v for k, v in fields.items() if (k in self.RESOLVABLE) == (keys is not None)}
            if part:
                log = getattr(self, attr, None)
                if log is None:
                    log = []
                    object.__setattr__(self, attr, log)
                log.append((source, part))
        for k, v in fields.items():
            setattr(self, k, v)


class Backend:
    def __init__(self, tag):
        self.tag = tag

    def __repr__(self):
        return f"Backend({self.tag})"


class ModelRunner:
    def __init__(self):
        self.made = 0
        self.attn_backend = Backend("target-full")
        self.decode_cuda_graph_runner = "target-graph-full"
        self.init_new_workspace = False

    def _get_attention_backend(self, init_new_workspace=False):
        self.made += 1
        return Backend(f"target-{self.made}")


class DraftWorker:
    def __init__(self):
        self.draft_attn_backend = Backend("draft-full")
        self.cuda_graph_runner = "draft-graph-full"
        self.draft_extend_attn_backend = Backend("extend-full")
        self.cuda_graph_runner_for_draft_extend = "extend-graph-full"
        self.draft_runner = SimpleNamespace(tp_group="tp", attn_backend=self.draft_extend_attn_backend,
                                            draft_attn_backend=self.draft_attn_backend)
        self.inits = 0
        self.tp_entered = 0

    def init_attention_backend(self):
        self.inits += 1
        self.draft_extend_attn_backend = Backend(f"extend-{self.inits}")

    @contextlib.contextmanager
    def draft_tp_context(self, group):
        assert group == "tp"
        self.tp_entered += 1
        yield


class Worker(EAGLEWorkerV2):
    """0.5.16's EAGLEWorkerV2, reduced: the real apply_runtime_state body over stand-in parts, and
    build_adaptive_runtime_state that calls the parts the runtime wraps."""

    def __init__(self, server_args, threshold=16):
        self.server_args = server_args
        self.speculative_num_steps = server_args.speculative_num_steps
        self.speculative_num_draft_tokens = server_args.speculative_num_draft_tokens
        self.spec_disable_batch_threshold = threshold
        self.adaptive_controller = None
        self._draft_worker = DraftWorker()
        self._target_worker = SimpleNamespace(model_runner=ModelRunner())
        self.built: list = []
        self.device, self.gpu_id = "cuda", 0

    def _build_trivial_verify_input(self, batch):  # marks 0.5.14+ (upstream's zero step)
        raise AssertionError("not called on CPU")

    def _stub_skipped_draft_extend(self, batch, batch_output):  # 0.5.14+: the draft extend can be skipped
        raise AssertionError("not called on CPU")

    def build_adaptive_runtime_state(self, steps, tokens):
        self.built.append((steps, tokens))
        runner = self._target_worker.model_runner
        self._draft_worker.init_attention_backend()
        target = runner._get_attention_backend(init_new_workspace=True)
        return SpecRuntimeState(steps, tokens, self._draft_worker.draft_attn_backend, "draft-graph-zero",
                                target, "target-graph-zero", self._draft_worker.draft_extend_attn_backend, None)

    def apply_runtime_state(self, state):  # upstream 0.5.16, line for line
        if self.speculative_num_steps == state.speculative_num_steps:
            return
        self.speculative_num_steps = state.speculative_num_steps
        self.speculative_num_draft_tokens = state.speculative_num_draft_tokens
        dw = self._draft_worker
        dw.speculative_num_steps = state.speculative_num_steps
        dw.speculative_num_draft_tokens = state.speculative_num_draft_tokens
        dw.draft_attn_backend = state.draft_attn_backend
        dw.draft_runner.draft_attn_backend = state.draft_attn_backend
        dw.cuda_graph_runner = state.cuda_graph_runner
        dw.draft_extend_attn_backend = state.draft_extend_attn_backend
        if state.draft_extend_attn_backend is not None:
            dw.draft_runner.attn_backend = state.draft_extend_attn_backend
        dw.cuda_graph_runner_for_draft_extend = state.cuda_graph_runner_for_draft_extend
        self._target_worker.model_runner.attn_backend = state.target_attn_backend
        self._target_worker.model_runner.decode_cuda_graph_runner = state.target_graph_runner
        self.server_args.override("adaptive_spec.restore", speculative_num_steps=state.speculative_num_steps,
                                  speculative_num_draft_tokens=state.speculative_num_draft_tokens,
                                  cuda_graph_note="mutation")


class OwnForwardWorker(Worker):
    def forward_batch_generation(self, batch):
        return None


def _fake_torch(reserved_mib: list[float]) -> types.ModuleType:
    """A torch stand-in whose memory_reserved returns the given figures (this process's caching
    allocator, MiB) in turn."""
    torch = types.ModuleType("torch")
    queue = list(reserved_mib)
    torch.device = lambda kind, index=None: (kind, index)
    torch.cuda = SimpleNamespace(is_available=lambda: True,
                                 memory_reserved=lambda *a: queue.pop(0) * 2**20)
    return torch


@pytest.fixture
def upstream(monkeypatch):
    """The worker's module as the runtime reads it (SpecRuntimeState), and a torch stand-in."""
    return _install_upstream(monkeypatch)


@contextlib.contextmanager
def _upstream_stand_ins(env: Optional[dict] = None):
    """The ``upstream`` fixture for property tests (a fresh set per example), with ``env`` set."""
    with pytest.MonkeyPatch.context() as mp:
        for name, value in (env or {}).items():
            mp.setenv(name, value)
        yield _install_upstream(mp)


def _install_upstream(monkeypatch):
    ew = types.ModuleType("sglang.srt.speculative.eagle_worker_v2")
    ew.SpecRuntimeState = SpecRuntimeState
    ew.EAGLEWorkerV2 = EAGLEWorkerV2
    _install(monkeypatch, {ew.__name__: ew})
    monkeypatch.setitem(sys.modules, "torch", _fake_torch([9984.0, 10240.0]))
    return ew


def _server_args(**kw) -> ServerArgs:
    base = dict(speculative_algorithm="EAGLE", speculative_num_steps=3, speculative_num_draft_tokens=4,
                speculative_eagle_topk=1, speculative_disable_hysteresis=None, page_size=1)
    base.update(kw)
    return ServerArgs(**base)


def _batch(bs: int):
    return SimpleNamespace(seq_lens=SimpleNamespace(shape=(bs,)))


def test_on_init_is_a_noop_with_the_threshold_off(upstream):
    w = Worker(_server_args(), threshold=None)
    rt.on_init(w, EAGLEWorkerV2)
    assert getattr(w, rt.STATE_ATTR, None) is None and w.built == []
    rt.on_decode(w, _batch(1000))
    assert w.speculative_num_steps == 3


def test_on_init_builds_the_zero_state_once_and_logs_ready(upstream, caplog):
    caplog.set_level(logging.INFO, logger=rt.logger.name)
    sa = _server_args(speculative_disable_hysteresis=3)
    w = Worker(sa, threshold=16)
    rt.on_init(w, EAGLEWorkerV2)
    ctl = getattr(w, rt.STATE_ATTR)
    rt.on_init(w, EAGLEWorkerV2)
    assert getattr(w, rt.STATE_ATTR) is ctl and w.built == [(0, 1)], "on_init is not idempotent"
    assert w._draft_worker.tp_entered == 1, "the states were not built in the draft TP context"
    assert ctl.full.speculative_num_steps == 3 and ctl.full.target_attn_backend.tag == "target-full"
    assert ctl.zero.speculative_num_steps == 0 and ctl.zero.speculative_num_draft_tokens == 1
    assert ctl.sizing == {"speculative_num_steps": 3, "speculative_num_draft_tokens": 4}
    assert ctl.switch.threshold == 16 and ctl.switch.hysteresis == 3
    # the wrappers the runtime put on the runner and the draft worker are gone again
    assert "_get_attention_backend" not in vars(w._target_worker.model_runner)
    assert "init_attention_backend" not in vars(w._draft_worker)
    # neither backend is Triton here: both conversions are reported as not done
    assert ctl.decode_attention == [False, False]
    assert ctl.extra_memory_mib == pytest.approx(256.0)
    # the worker is back at the full state, server_args at the full sizing
    assert w.speculative_num_steps == 3 and w._target_worker.model_runner.attn_backend.tag == "target-full"
    ready = [r.getMessage() for r in caplog.records if READY.search(r.getMessage())]
    assert len(ready) == 1, caplog.text
    line = ready[0]
    assert READY.search(line).group(1) == "16"
    assert "hysteresis=3" in line and "steps=3" in line and "extra_memory_mib=256" in line
    assert "worker=Worker" in line and DECODE_ATTENTION.search(line).group(1) == "[False, False]"


def test_on_init_without_cuda_reports_unknown_memory(upstream, monkeypatch, caplog):
    torch = sys.modules["torch"]
    torch.cuda.is_available = lambda: False
    caplog.set_level(logging.INFO, logger=rt.logger.name)
    w = Worker(_server_args())
    rt.on_init(w, EAGLEWorkerV2)
    assert getattr(w, rt.STATE_ATTR).extra_memory_mib is None
    assert "extra_memory_mib=?" in caplog.text


def test_on_init_refuses_the_adaptive_controller(upstream):
    w = Worker(_server_args())
    w.adaptive_controller = object()
    with pytest.raises(rt.SpecDisableConfigError, match="--speculative-adaptive") as info:
        rt.on_init(w, EAGLEWorkerV2)
    assert rt.FLAG in str(info.value) and w.built == []


def test_on_init_refuses_a_worker_class_that_overrides_forward(upstream):
    w = OwnForwardWorker(_server_args(speculative_algorithm="FROZEN_KV_MTP"))
    with pytest.raises(rt.SpecDisableConfigError) as info:
        rt.on_init(w, EAGLEWorkerV2)
    msg = str(info.value)
    assert "OwnForwardWorker" in msg and "forward_batch_generation" in msg and "FROZEN_KV_MTP" in msg
    assert w.built == [] and getattr(w, rt.STATE_ATTR, None) is None


def test_on_decode_disables_at_once_resumes_after_k_steps_and_logs_parsable_lines(upstream, caplog):
    caplog.set_level(logging.INFO, logger=rt.logger.name)
    sa = _server_args(speculative_disable_hysteresis=3)
    w = Worker(sa, threshold=16)
    rt.on_init(w, EAGLEWorkerV2)
    for _ in range(2):
        rt.on_decode(w, _batch(16))  # at the threshold: still drafting
    assert w.speculative_num_steps == 3 and not SWITCH.search(caplog.text)
    rt.on_decode(w, _batch(40))  # the first step above it disables
    assert w.speculative_num_steps == 0
    assert w._target_worker.model_runner.attn_backend is getattr(w, rt.STATE_ATTR).zero.target_attn_backend
    for _ in range(2):
        rt.on_decode(w, _batch(16))
    assert w.speculative_num_steps == 0  # resuming waits for K = 3 steps at or below
    rt.on_decode(w, _batch(16))
    assert w.speculative_num_steps == 3
    assert w._target_worker.model_runner.attn_backend.tag == "target-full"
    lines = [SWITCH.search(r.getMessage()) for r in caplog.records]
    got = [m.groups() for m in lines if m]
    assert got == [("OFF", "40", "16", "1"), ("ON", "16", "16", "2")]
    last = [r.getMessage() for r in caplog.records if "patchkit-spec-disable: ON" in r.getMessage()][0]
    assert "disabled_steps=3" in last and "enabled_steps=3" in last


def _steps(w, sizes):
    """Drive the worker as 0.5.14+'s forward_batch_generation does: on_decode at the start of the
    step, then (zero-step state only) the skip condition after the verify. Per step: (disabled,
    skipped the draft extend)."""
    out = []
    for bs in sizes:
        rt.on_decode(w, _batch(bs))
        disabled = w.speculative_num_steps == 0
        out.append((disabled, rt.skip_draft_extend(w) if disabled else False))
    return out


@settings(max_examples=200, deadline=None)
@given(switch_inputs)
def test_draft_extend_is_skipped_only_above_t_and_a_resume_always_drafts_from_a_fresh_seed(args):
    t, k, sizes = args
    with _upstream_stand_ins({rt.DRAFT_EXTEND_ENV: "skip"}):
        w = Worker(_server_args(speculative_disable_hysteresis=k), threshold=t)
        rt.on_init(w, EAGLEWorkerV2)
        steps = _steps(w, sizes)
    pure = _run(t, k, sizes)[1]
    for i, ((disabled, skipped), bs) in enumerate(zip(steps, sizes)):
        # no draft-model work on a disabled step above T; a step at or below T always refreshes it
        assert skipped == (disabled and bs > t), (i, bs, disabled, skipped)
        if i and steps[i - 1][0] and not disabled:
            assert not steps[i - 1][1], f"resume at step {i} after a skipped draft extend (stale seed)"
        # the mode is the pure hysteresis switch's, except that with K=1 a resume right after a
        # skipped step comes one step later (K >= 2: the run-up to a resume refreshed the draft)
        if disabled != pure[i]:
            assert k == 1 and disabled and i and sizes[i - 1] > t, (i, k, disabled, pure[i])
    assert getattr(w, rt.STATE_ATTR).skipped_steps == sum(s for _, s in steps)


def test_hysteresis_1_holds_a_resume_one_step_after_a_skip(upstream, monkeypatch):
    monkeypatch.setenv(rt.DRAFT_EXTEND_ENV, "skip")
    w = Worker(_server_args(speculative_disable_hysteresis=1), threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    assert _steps(w, [20, 20, 4, 4, 4]) == [(True, True), (True, True), (True, False), (False, False), (False, False)]


@pytest.mark.parametrize("setting", [None, "keep", " KEEP "])
def test_keep_by_default_runs_the_draft_extend_on_every_disabled_step(upstream, monkeypatch, caplog, setting):
    if setting is not None:
        monkeypatch.setenv(rt.DRAFT_EXTEND_ENV, setting)
    caplog.set_level(logging.INFO, logger=rt.logger.name)
    w = Worker(_server_args(speculative_disable_hysteresis=1), threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    assert _steps(w, [20, 20, 4, 20]) == [(True, False), (True, False), (False, False), (True, False)]
    assert "draft_extend=every-step" in caplog.text


class PrefillWorker(Worker):
    """0.5.14+'s stub, reduced: it fills the draft input's seed fields for the batch's requests."""

    def _stub_skipped_draft_extend(self, batch, batch_output):
        bs = batch.seq_lens.shape[0]
        batch_output.next_draft_input.topk_p = ("zeros", bs, 1)
        batch_output.next_draft_input.hidden_states = ("zeros", bs, 4096)


@dataclass
class EagleDraftInput:
    bonus_tokens: Any = None
    num_tokens_per_req: int = 0
    num_tokens_for_logprob_per_req: int = 0
    topk_p: Any = None
    hidden_states: Any = None


class _Mode:
    def __init__(self, idle: bool = False):
        self.idle = idle

    def is_idle(self):
        return self.idle

    def is_extend(self):
        return not self.idle


def _prefill(n: int, idle: bool = False):
    return SimpleNamespace(seq_lens=SimpleNamespace(shape=(n,)), forward_mode=_Mode(idle))


events = st.integers(0, 48).flatmap(lambda t: st.tuples(st.just(t), st.integers(1, 4), st.lists(st.one_of(
    st.tuples(st.just("decode"), st.one_of(st.integers(max(0, t - 2), t + 2), st.integers(0, 120))),
    st.tuples(st.just("prefill"), st.integers(1, 8))), max_size=200)))


@settings(max_examples=200, deadline=None)
@given(events)
def test_a_prompt_admitted_above_t_gets_no_draft_prefill_and_drafting_resumes_only_from_a_refreshed_seed(args):
    t, k, seq = args
    with _upstream_stand_ins({rt.DRAFT_EXTEND_ENV: "skip"}) as ew:
        ew.EagleDraftInput = EagleDraftInput
        w = PrefillWorker(_server_args(speculative_disable_hysteresis=k), threshold=t)
        rt.on_init(w, EAGLEWorkerV2)
        ctl = getattr(w, rt.STATE_ATTR)
        last_bs, fresh, skipped = None, True, 0
        for kind, n in seq:
            if kind == "prefill":
                stub = rt.skip_draft_prefill(w, _prefill(n), f"tokens-{n}")
                # skipped exactly while disabled with the last decode step above T
                assert (stub is not None) == (w.speculative_num_steps == 0 and last_bs is not None and last_bs > t)
                if stub is not None:
                    assert stub.bonus_tokens == f"tokens-{n}" and stub.topk_p == ("zeros", n, 1)
                    # what the real draft prefill returns per request: one token, one for log-probs
                    assert stub.num_tokens_per_req == 1 and stub.num_tokens_for_logprob_per_req == 1
                    assert stub.hidden_states == ("zeros", n, 4096)
                    fresh, skipped = False, skipped + 1
                continue
            was_disabled = w.speculative_num_steps == 0
            rt.on_decode(w, _batch(n))
            last_bs = n
            if w.speculative_num_steps == 0:
                fresh = not rt.skip_draft_extend(w)
            else:
                # drafting (again): the seed came from a draft extend, never from a stub
                assert not was_disabled or fresh, "resumed drafting from a stubbed seed"
        assert ctl.skipped_prefills == skipped


@pytest.mark.parametrize("setting", [None, "keep", "skip-decode"])
def test_draft_prefill_runs_unless_skip_is_set(upstream, monkeypatch, caplog, setting):
    upstream.EagleDraftInput = EagleDraftInput
    if setting is not None:
        monkeypatch.setenv(rt.DRAFT_EXTEND_ENV, setting)
    caplog.set_level(logging.INFO, logger=rt.logger.name)
    w = PrefillWorker(_server_args(speculative_disable_hysteresis=1), threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    rt.on_decode(w, _batch(20))
    assert rt.skip_draft_prefill(w, _prefill(3), "t") is None
    assert rt.skip_draft_extend(w) == (setting == "skip-decode")
    assert ("draft_extend=skip-above-T-decode-only" in caplog.text) == (setting == "skip-decode")


def test_draft_prefill_runs_on_idle_batches_and_under_rejection_sampling(upstream, monkeypatch):
    upstream.EagleDraftInput = EagleDraftInput
    monkeypatch.setenv(rt.DRAFT_EXTEND_ENV, "skip")
    w = PrefillWorker(_server_args(speculative_disable_hysteresis=1), threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    assert rt.skip_draft_prefill(w, _prefill(3), "t") is None  # not disabled yet
    rt.on_decode(w, _batch(20))
    assert rt.skip_draft_prefill(w, _prefill(3, idle=True), "t") is None
    assert rt.skip_draft_prefill(w, _prefill(3), "t") is not None
    sampled = PrefillWorker(_server_args(speculative_disable_hysteresis=1, speculative_use_rejection_sampling=True),
                            threshold=8)
    rt.on_init(sampled, EAGLEWorkerV2)
    rt.on_decode(sampled, _batch(20))
    assert rt.skip_draft_prefill(sampled, _prefill(3), "t") is None  # the stub has no draft probabilities
    assert rt.skip_draft_prefill(Worker(_server_args(), threshold=None), _prefill(3), "t") is None


def _skipping_worker(upstream, monkeypatch):
    upstream.EagleDraftInput = EagleDraftInput
    monkeypatch.setenv(rt.DRAFT_EXTEND_ENV, "skip")
    w = PrefillWorker(_server_args(speculative_disable_hysteresis=1), threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    rt.on_decode(w, _batch(20))
    return w


@pytest.mark.parametrize("spec", [{"speculative_use_rejection_sampling": True}, "raises", None])
def test_rejection_sampling_as_the_release_resolves_it_keeps_the_draft_prefill(upstream, monkeypatch, caplog, spec):
    """0.5.21+ turn rejection sampling on through get_spec() without the server_args field: the stub
    has no draft probabilities, so the real prefill runs (and when the setting cannot be read)."""
    caplog.set_level(logging.INFO, logger=rt.logger.name)

    def get_spec():
        if spec == "raises":
            raise RuntimeError("no runtime context")
        return SimpleNamespace(**{"speculative_use_rejection_sampling": False, **(spec or {})})

    upstream.get_spec = get_spec
    w = _skipping_worker(upstream, monkeypatch)
    assert (rt.skip_draft_prefill(w, _prefill(3), "t") is None) == (spec is not None)
    assert ("rejection sampling is on" in caplog.text) == (spec is not None)


def test_a_dsa_seeded_draft_keeps_its_prefill(upstream, monkeypatch):
    upstream.EagleDraftInput = EagleDraftInput
    monkeypatch.setenv(rt.DRAFT_EXTEND_ENV, "skip")
    w = PrefillWorker(_server_args(speculative_disable_hysteresis=1), threshold=8)
    w._draft_worker.seed_dsa_topk_from_draft_extend = True
    rt.on_init(w, EAGLEWorkerV2)
    rt.on_decode(w, _batch(20))
    assert rt.skip_draft_prefill(w, _prefill(3), "t") is None


def test_without_the_prefill_hook_skip_says_it_skips_decode_extends_only(upstream, monkeypatch, caplog):
    """A release where apply found no draft prefill call to hook: the ready line must not claim it."""
    caplog.set_level(logging.INFO, logger=rt.logger.name)
    monkeypatch.delattr(EAGLEWorkerV2, "_forward_prefill")
    w = _skipping_worker(upstream, monkeypatch)
    assert getattr(w, rt.STATE_ATTR).skip_prefill is False
    assert "draft_extend=skip-above-T-decode-only" in caplog.text and "no draft prefill call to hook" in caplog.text
    assert rt.skip_draft_prefill(w, _prefill(3), "t") is None


def test_hooked_finds_the_call_in_nested_code_only_where_it_is():
    class Owner:
        def plain(self):
            return 1

        @staticmethod
        def nested(batch):
            hook = lambda b: rt.skip_draft_prefill(None, b, None)  # noqa: E731 (a nested code object)
            return [hook(b) for b in batch]

    assert rt.hooked(Owner, "skip_draft_prefill")
    del Owner.nested
    assert not rt.hooked(Owner, "skip_draft_prefill")


class OldWorker(Worker):
    """0.5.12-0.5.13: no zero-step stub, so patch 2.2.0 adds no skip hook there."""
    _stub_skipped_draft_extend = None


def test_skip_on_a_release_without_the_stub_says_it_runs_the_extend_every_step(upstream, monkeypatch, caplog):
    monkeypatch.setenv(rt.DRAFT_EXTEND_ENV, "skip")
    caplog.set_level(logging.INFO, logger=rt.logger.name)
    w = OldWorker(_server_args(speculative_disable_hysteresis=1), threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    assert getattr(w, rt.STATE_ATTR).skip_extend is False
    assert "draft_extend=every-step" in caplog.text and f"the draft-extend skip ({rt.DRAFT_EXTEND_FLAG} or ${rt.DRAFT_EXTEND_ENV}) is ignored" in caplog.text


def test_a_bad_draft_extend_setting_is_refused_at_start_up_in_one_line(monkeypatch):
    monkeypatch.setenv(rt.DRAFT_EXTEND_ENV, "sometimes")
    with pytest.raises(rt.SpecDisableConfigError) as info:
        rt.check_server_args(_server_args(speculative_disable_batch_threshold=8))
    assert str(info.value) == f"{rt.DRAFT_EXTEND_ENV}='sometimes': expected one of keep, skip, skip-decode, kv"


def test_the_draft_extend_flag_wins_over_the_variable_and_a_bad_value_names_the_flag(monkeypatch):
    monkeypatch.setenv(rt.DRAFT_EXTEND_ENV, "skip")
    assert rt.resolve_draft_extend(_server_args(speculative_disable_draft_extend="keep")) == (False, False)
    assert rt.resolve_draft_extend(_server_args(speculative_disable_draft_extend="skip-decode")) == (True, False)
    assert rt.resolve_draft_extend(_server_args()) == (True, True)  # no flag: the variable
    monkeypatch.delenv(rt.DRAFT_EXTEND_ENV)
    assert rt.resolve_draft_extend(_server_args()) == (False, False)  # neither: keep
    with pytest.raises(rt.SpecDisableConfigError) as info:
        rt.check_server_args(_server_args(speculative_disable_batch_threshold=8, speculative_disable_draft_extend="Skip"))
    assert str(info.value) == f"{rt.DRAFT_EXTEND_FLAG}='Skip': expected one of keep, skip, skip-decode, kv"


def test_the_draft_extend_flag_arms_the_skip_at_start_up(upstream, caplog):
    caplog.set_level(logging.INFO, logger=rt.logger.name)
    w = Worker(_server_args(speculative_disable_hysteresis=1, speculative_disable_draft_extend="skip-decode"), threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    ctl = getattr(w, rt.STATE_ATTR)
    assert (ctl.skip_extend, ctl.skip_prefill) == (True, False)
    assert "draft_extend=skip-above-T-decode-only" in caplog.text


def test_thousand_switches_leave_provenance_and_sizing_at_the_full_state(upstream):
    sa = _server_args(speculative_disable_hysteresis=1)
    w = Worker(sa, threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    marks = (list(getattr(sa, "_resolved_overrides", [])), list(getattr(sa, "_runtime_mutations", [])))
    ctl = getattr(w, rt.STATE_ATTR)
    for i in range(1000):
        rt.on_decode(w, _batch(9 if i % 2 == 0 else 8))
        # the switch really happened (the worker runs the zero state) ...
        assert w.speculative_num_steps == (0 if i % 2 == 0 else 3)
        assert w._draft_worker.speculative_num_draft_tokens == (1 if i % 2 == 0 else 4)
        # ... while the fields the scheduler sizes the KV reserve from stay at the full state
        assert (sa.speculative_num_steps, sa.speculative_num_draft_tokens) == (3, 4)
    assert ctl.switch.switches == 1000
    assert list(getattr(sa, "_resolved_overrides", [])) == marks[0]
    assert list(getattr(sa, "_runtime_mutations", [])) == marks[1]


def test_upstream_swap_alone_grows_provenance_and_shrinks_sizing(upstream):
    """What the runtime undoes: the stand-in's apply_runtime_state itself appends per call and
    writes the zero sizing (so the test above can fail)."""
    sa = _server_args(speculative_disable_hysteresis=1)
    w = Worker(sa, threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    ctl = getattr(w, rt.STATE_ATTR)
    before = len(getattr(sa, "_resolved_overrides", []))
    for i in range(10):
        w.apply_runtime_state(ctl.zero if i % 2 == 0 else ctl.full)
    assert len(sa._resolved_overrides) == before + 10 and len(sa._runtime_mutations) == 10
    w.apply_runtime_state(ctl.zero)
    assert (sa.speculative_num_steps, sa.speculative_num_draft_tokens) == (0, 1)


def test_apply_state_keeps_an_older_log_intact(upstream):
    """Trimming removes only what the swap appended, not the release's own earlier records."""
    sa = _server_args()
    sa.override("startup", speculative_num_steps=3)
    w = Worker(sa, threshold=8)
    rt.on_init(w, EAGLEWorkerV2)
    ctl = getattr(w, rt.STATE_ATTR)
    rt.apply_state(w, ctl, True)
    rt.apply_state(w, ctl, False)
    assert sa._resolved_overrides == [("startup", {"speculative_num_steps": 3})]


def test_on_decode_without_state_is_a_noop():
    w = SimpleNamespace(server_args=_server_args())
    rt.on_decode(w, _batch(1000))
    assert not hasattr(w, rt.STATE_ATTR)
