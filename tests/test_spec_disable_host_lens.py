"""dynamic-spec-disable 2.3: the next step's host lengths after a disabled step (runtime.HostLens,
runtime.resolve_on_host), on CPU against a model of spec v2's overlap relay.

The model keeps what the device keeps (``new_seq_lens_buf``, indexed by request-pool slot, written
by each step's publish) and what the scheduler's batch holds on the host (``seq_lens_cpu``: the
lengths the last resolve set, a prefill's own lengths for requests merged since). ``FutureMap`` here
runs the hook first, as the patched upstream method does, then upstream's body: the device gather,
and the host copy only when ``needs_cpu_seq_lens``. Nothing imports torch: ``Vec`` is a 1-D integer
tensor with the operations the runtime uses."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Optional

import pytest
from hypothesis import given, settings, strategies as st

from patches.dynamic_spec_disable import runtime as rt


class Vec:
    """A CPU int64 vector: the torch operations HostLens and the relay use, nothing more."""

    dtype = "int64"

    def __init__(self, values):
        self.v = [int(x) for x in values]

    @property
    def shape(self):
        return (len(self.v),)

    def __len__(self):
        return len(self.v)

    def __getitem__(self, i):
        return self.v[i]

    def __add__(self, other):
        if isinstance(other, Vec):
            assert len(other) == len(self), "shape mismatch"
            return Vec(a + b for a, b in zip(self.v, other.v))
        return Vec(a + other for a in self.v)

    def __ne__(self, other):  # elementwise, as torch
        return Vec(a != b for a, b in zip(self.v, other.v))

    def any(self):
        return any(self.v)

    def sum(self):
        return sum(self.v)

    def new_tensor(self, values):
        return Vec(values)

    def cpu(self):
        return self


@dataclass
class Req:
    rid: str
    slot: int


@dataclass
class Batch:
    reqs: list
    seq_lens_cpu: Optional[Vec]
    seq_lens: Optional[list] = None
    seq_lens_sum: Optional[int] = None
    spec_info: object = field(default_factory=lambda: SimpleNamespace(future_indices=[1]))


class FutureMap:
    """Upstream's resolve, reduced to what decides the lengths (0.5.16, CUDA path)."""

    def __init__(self, needs_cpu: bool = True):
        self.needs_cpu_seq_lens = needs_cpu
        self.publish_ready = object()
        self.buf: dict[int, int] = {}
        self.syncs = 0

    def resolve_seq_lens_cpu(self, batch, stream_ordered: bool = False):
        if rt.resolve_on_host(self, batch, stream_ordered=stream_ordered):  # the patch's hook
            return
        if batch.spec_info is None or batch.spec_info.future_indices is None:
            return
        batch.seq_lens = Vec(self.buf[r.slot] for r in batch.reqs)  # the device gather
        if not self.needs_cpu_seq_lens:
            batch.seq_lens_cpu = None
            batch.seq_lens_sum = None
            return
        self.syncs += 1  # fwd_prepare_d2h_stream.synchronize()
        batch.seq_lens_cpu = Vec(batch.seq_lens.v)
        batch.seq_lens_sum = int(batch.seq_lens_cpu.sum())


@pytest.fixture
def ctl(monkeypatch):
    monkeypatch.delenv(rt.HOST_LENS_ENV, raising=False)
    c = SimpleNamespace(lens=rt.HostLens())
    monkeypatch.setattr(rt, "_ACTIVE", c)
    return c


# ============================================================================ the relay, simulated
class Relay:
    """Prefills, decode steps (disabled: one token each; drafting: 1..4), finishes and slot reuse."""

    def __init__(self, fm: FutureMap, lens: rt.HostLens):
        self.fm, self.lens = fm, lens
        self.batch = Batch([], None, spec_info=None)
        self.true: dict[str, int] = {}
        self.free = list(range(1, 64))
        self.n = 0

    def prefill(self, prompt_lens):
        new = []
        for L in prompt_lens:
            self.n += 1
            slot = self.free.pop(0)  # lowest free slot first: finished requests' slots come back
            r = Req(f"r{self.n}", slot)
            self.fm.buf[slot] = L  # the extend publishes the prompt length (spec v2 convention)
            self.true[r.rid] = L
            new.append((r, L))
        held = list(self.batch.seq_lens_cpu.v) if self.batch.reqs else []
        self.batch = Batch(self.batch.reqs + [r for r, _ in new], Vec(held + [L for _, L in new]))

    def decode(self, disabled: bool, accepts):
        b = self.batch
        if not b.reqs:
            return
        self.fm.resolve_seq_lens_cpu(b)
        assert b.seq_lens_cpu.v == [self.true[r.rid] for r in b.reqs], "host lengths differ from the device's"
        assert b.seq_lens_sum == sum(b.seq_lens_cpu.v)
        self.lens.record(b, disabled)  # on_decode, after the switch
        for r, a in zip(b.reqs, accepts):
            step = 1 if disabled else a
            self.true[r.rid] += step
            self.fm.buf[r.slot] = self.true[r.rid]  # publish

    def finish(self, picks):
        b = self.batch
        keep = [i for i in range(len(b.reqs)) if i not in picks]
        for i in picks:
            if i < len(b.reqs):
                self.free.append(b.reqs[i].slot)
        self.free.sort()
        self.batch = Batch([b.reqs[i] for i in keep], Vec([b.seq_lens_cpu[i] for i in keep]))


events = st.lists(st.one_of(
    st.tuples(st.just("prefill"), st.lists(st.integers(1, 50), min_size=1, max_size=4)),
    st.tuples(st.just("decode"), st.booleans(), st.lists(st.integers(1, 4), min_size=40, max_size=40)),
    st.tuples(st.just("finish"), st.sets(st.integers(0, 12), max_size=3)),
), max_size=60)


@settings(max_examples=300, deadline=None)
@given(events, st.sampled_from(["on", "check"]))
def test_host_lengths_equal_the_devices_through_any_schedule(evs, mode):
    """Whatever mix of prefills, drafting and disabled steps, finishes and reused pool slots: the
    host lengths the batch carries into a step are the device's (``check`` would raise first)."""
    fm = FutureMap()
    lens = rt.HostLens(mode)
    rt_active = rt._ACTIVE
    rt._ACTIVE = SimpleNamespace(lens=lens)
    try:
        relay = Relay(fm, lens)
        for ev in evs:
            if ev[0] == "prefill":
                relay.prefill(ev[1])
            elif ev[0] == "decode":
                relay.decode(ev[1], ev[2])
            else:
                relay.finish(ev[1])
    finally:
        rt._ACTIVE = rt_active
    # a sync was saved exactly where the host resolved (check mode syncs in its own compare)
    assert fm.syncs + lens.resolved == sum(
        1 for ev in evs if ev[0] == "decode") - _empty_decodes(evs)


def _empty_decodes(evs) -> int:
    """Decode events the relay skipped because the batch was empty at that point."""
    n, empty = 0, 0
    for ev in evs:
        if ev[0] == "prefill":
            n += len(ev[1])
        elif ev[0] == "finish":
            n -= len([i for i in ev[1] if i < n])
        else:
            empty += n == 0
    return empty


def test_a_disabled_stretch_resolves_on_the_host_and_a_merge_adds_nothing(ctl):
    fm = FutureMap()
    relay = Relay(fm, ctl.lens)
    relay.prefill([10, 20])
    relay.decode(False, [3] * 2)  # drafting: the next resolve must ask the device
    relay.decode(True, [1] * 2)
    assert (fm.syncs, ctl.lens.resolved) == (2, 0)
    relay.decode(True, [1] * 2)
    relay.prefill([7])  # merged after a disabled step: holds its published length already
    relay.decode(True, [1] * 3)
    relay.finish({0})
    relay.prefill([5])  # takes the finished request's slot
    relay.decode(True, [1] * 3)
    assert (fm.syncs, ctl.lens.resolved, ctl.lens.fallbacks) == (2, 3, 0)


def test_a_wrong_prediction_is_caught_in_check_mode(ctl):
    """The check the smoke test runs with (the fast path itself, then the device's lengths copied
    back): a host length off by one raises, naming the request."""
    ctl.lens.mode = "check"
    fm = FutureMap()
    relay = Relay(fm, ctl.lens)
    relay.prefill([10, 20])
    relay.decode(True, [1, 1])
    fm.buf[relay.batch.reqs[1].slot] += 1  # the device accepted two tokens for r2 on a "disabled" step
    with pytest.raises(RuntimeError, match=r"differ from the device's for 1 of 2 requests \(first: rid r2 host 21 device 22\)"):
        fm.resolve_seq_lens_cpu(relay.batch)
    assert ctl.lens.busy is False


def test_upstream_runs_untouched_where_nothing_waits(ctl):
    """No sync to save (a backend that needs no host lengths), the check off, or no worker: the hook
    declines and upstream's body runs."""
    for fm, mode, active in ((FutureMap(needs_cpu=False), "on", True), (FutureMap(), "off", True),
                             (FutureMap(), "on", False)):
        ctl.lens = rt.HostLens(mode)
        b = Batch([Req("a", 1)], Vec([4]))
        fm.buf[1] = 5
        ctl.lens.record(b, True)
        rt._ACTIVE = ctl if active else None
        assert rt.resolve_on_host(fm, b) is False
        fm.resolve_seq_lens_cpu(b)
        assert b.seq_lens.v == [5] and ctl.lens.resolved == 0
        # where the scheduler never waited, on_decode keeps nothing per step (Triton, FA3)
        assert ctl.lens.last_rids == frozenset() or fm.needs_cpu_seq_lens
        assert b.seq_lens_cpu is None if not fm.needs_cpu_seq_lens else b.seq_lens_cpu.v == [5]
    # a prefill batch (no future indices yet) is upstream's too
    rt._ACTIVE = ctl
    ctl.lens = rt.HostLens()
    assert rt.resolve_on_host(FutureMap(), Batch([Req("a", 1)], Vec([4]), spec_info=None)) is False


def test_the_device_path_restores_needs_cpu_even_when_upstream_raises(ctl):
    class Broken(FutureMap):
        def resolve_seq_lens_cpu(self, batch, stream_ordered=False):
            if rt.resolve_on_host(self, batch, stream_ordered=stream_ordered):
                return
            raise KeyError("slot")

    fm = Broken()
    b = Batch([Req("a", 1)], Vec([4]))
    ctl.lens.wanted = True  # an earlier resolve found the scheduler waiting
    ctl.lens.record(b, True)
    with pytest.raises(KeyError):
        fm.resolve_seq_lens_cpu(b)
    assert fm.needs_cpu_seq_lens is True and ctl.lens.busy is False


def test_the_mode_is_validated_at_start_up(monkeypatch):
    monkeypatch.setenv(rt.HOST_LENS_ENV, "maybe")
    with pytest.raises(rt.SpecDisableConfigError, match=r"PATCHKIT_SPEC_DISABLE_HOST_LENS='maybe': expected one of on, off, check"):
        rt.check_server_args(SimpleNamespace(speculative_disable_batch_threshold=None, speculative_disable_hysteresis=None))
    monkeypatch.setenv(rt.HOST_LENS_ENV, " CHECK ")
    assert rt.resolve_host_lens() == "check"
