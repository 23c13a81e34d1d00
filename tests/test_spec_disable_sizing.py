"""dynamic-spec-disable 2.0: the scheduler's per-decode KV reserve on the REAL releases never shrinks
while speculation is disabled (issue 14, item 3).

The release's own ``get_alloc_len_per_decode`` and ``EAGLEWorkerV2.apply_runtime_state`` (and, on
0.5.16, ``ServerArgs.override`` and ``ServerArgs.max_speculative_num_draft_tokens``; on 0.5.23,
``runtime_context.max_speculative_num_draft_tokens``) are cut out of the cached wheel with ``ast``
and executed over stand-ins of what they import. The worker then swaps to the zero state and back
through ``runtime.apply_state`` (what the patched server does), and directly through the release's
``apply_runtime_state`` (what patch 1.1 did)."""
from __future__ import annotations

import __future__
import ast
import functools
import logging
import sys
import types
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Optional

import pytest

from conftest import release
from patches.dynamic_spec_disable import runtime as rt

pytestmark = pytest.mark.network

WORKER = "sglang/srt/speculative/eagle_worker_v2.py"
#: where releases keep the sizing function (0.5.12: managers/utils.py; 0.5.16+: allocation_sizing.py)
SIZING_FILES = ("sglang/srt/managers/utils.py", "sglang/srt/mem_cache/allocation_sizing.py")
FULL = dict(speculative_num_steps=3, speculative_num_draft_tokens=4, speculative_eagle_topk=1)


# ----------------------------------------------------------------------------- cutting code out
def _def(text: str, name: str, cls: Optional[str] = None) -> ast.FunctionDef:
    body = ast.parse(text).body
    if cls is not None:
        klass = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        assert klass is not None, f"no class {cls}"
        body = klass.body
    fn = next((n for n in body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    assert fn is not None, f"no function {cls + '.' if cls else ''}{name}"
    fn.decorator_list = []
    return fn


def _load(fns: list[ast.FunctionDef], namespace: dict, filename: str) -> dict:
    """Execute the release's functions in ``namespace`` (annotations left unevaluated)."""
    module = ast.Module(body=fns, type_ignores=[])
    code = compile(module, filename, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)
    exec(code, namespace)
    return namespace


def _sizing_file(version: str) -> tuple[str, str]:
    root = release(version).root
    for rel in SIZING_FILES:
        p = root / rel
        if p.is_file() and "def get_alloc_len_per_decode(" in p.read_text():
            return rel, p.read_text()
    raise AssertionError(f"sglang {version}: get_alloc_len_per_decode not found in {SIZING_FILES}")


def _install(monkeypatch, modules: dict[str, types.ModuleType]) -> None:
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


@pytest.fixture
def spec_info(monkeypatch):
    """``SpeculativeAlgorithm`` as the sizing functions import it (EAGLE: has draft KV, not UNO)."""
    class SpeculativeAlgorithm:
        def __init__(self, name):
            self.name = name

        @classmethod
        def from_string(cls, name):
            return cls(name)

        def has_draft_kv(self):
            return True

        def is_uno(self):
            return False

    mod = types.ModuleType("sglang.srt.speculative.spec_info")
    mod.SpeculativeAlgorithm = SpeculativeAlgorithm
    arg_utils = types.ModuleType("sglang.srt.arg_groups.arg_utils")
    # 0.5.16's speculative_num_steps / _draft_tokens are plain A[...] fields, not resolvable=True:
    # its override logs them in _runtime_mutations
    arg_utils.resolvable_fields = lambda cls: frozenset()
    _install(monkeypatch, {mod.__name__: mod, arg_utils.__name__: arg_utils})


# ----------------------------------------------------------------------------- the worker
@dataclass
class SpecRuntimeState:
    speculative_num_steps: int
    speculative_num_draft_tokens: int
    draft_attn_backend: Any
    cuda_graph_runner: Any
    target_attn_backend: Any
    target_graph_runner: Any
    draft_extend_attn_backend: Any
    cuda_graph_runner_for_draft_extend: Any


def _state(steps: int, tokens: int, tag: str) -> SpecRuntimeState:
    return SpecRuntimeState(steps, tokens, f"draft-{tag}", f"draft-graph-{tag}", f"target-{tag}",
                            f"target-graph-{tag}", f"extend-{tag}", None)


class DraftWorker:
    def __init__(self):
        self.draft_runner = SimpleNamespace(attn_backend="extend-full", draft_attn_backend="draft-full")
        self.rebuilt = 0

    def _rebuild_topk1_chain_buffers(self):
        self.rebuilt += 1


class Release:
    """One release's code, loaded: ``reserve()`` is its per-decode KV length for the worker's
    server arguments (or its published config bags on 0.5.23)."""

    def __init__(self, version: str, monkeypatch, page_size: int):
        self.version = version
        root = release(version).root
        worker_text = (root / WORKER).read_text()
        rel, sizing_text = _sizing_file(version)
        self.sizing_file = rel
        ns: dict = {"logger": logging.getLogger("release"), "log_info_on_rank0": lambda lg, msg: None,
                    "Optional": Optional}
        fns = [_def(sizing_text, "get_alloc_len_per_decode")]
        self.bags = "get_spec()" in ast.unparse(fns[0])
        sa_fields = dict(speculative_algorithm="EAGLE", page_size=page_size, speculative_adaptive=False,
                         **FULL)
        if self.bags:
            # 0.5.23: the sizing reads the published config bags, the swap overrides them through
            # the runtime context (the launch-time capacity is kept in the spec bag, as at publish)
            spec = SimpleNamespace(speculative_algorithm="EAGLE", max_speculative_num_draft_tokens=None, **FULL)
            ctx_text = (root / "sglang/srt/runtime_context.py").read_text()
            ns.update(get_spec=lambda: spec, get_schedule=lambda: SimpleNamespace(page_size=page_size),
                      get_parallel=lambda: SimpleNamespace(attn_dcp_size=1), get_context=lambda: self.context)
            fns += [_def(sizing_text, "get_alloc_page_size"), _def(ctx_text, "max_speculative_num_draft_tokens")]
            self.spec = spec
            self.context = Context(spec)
            ctx_mod = types.ModuleType("sglang.srt.runtime_context")
            ctx_mod.get_context = lambda: self.context
            _install(monkeypatch, {ctx_mod.__name__: ctx_mod})
        _load(fns, ns, rel)
        spec_ns = _load([_def(worker_text, "apply_runtime_state", "EAGLEWorkerV2")], dict(ns), WORKER)
        self.get_alloc_len_per_decode = ns["get_alloc_len_per_decode"]
        sa_text = (root / "sglang/srt/server_args.py").read_text()
        members: dict = {}
        if "def override(self, source" in sa_text:
            # 0.5.16: the release's own override (provenance logs) and cached capacity property
            code = _load([_def(sa_text, "override", "ServerArgs"),
                          _def(sa_text, "max_speculative_num_draft_tokens", "ServerArgs")], {}, "server_args.py")
            members = {"override": code["override"],
                       "max_speculative_num_draft_tokens": functools.cached_property(
                           code["max_speculative_num_draft_tokens"])}
        self.has_override = "override" in members
        self.server_args = type("ServerArgs", (), members)()
        self.server_args.__dict__.update(sa_fields)
        if self.bags:
            self.spec.max_speculative_num_draft_tokens = FULL["speculative_num_draft_tokens"]
        worker_cls = type("EAGLEWorkerV2", (), {"apply_runtime_state": spec_ns["apply_runtime_state"]})
        self.worker = worker_cls()
        self.worker.__dict__.update(server_args=self.server_args, _draft_worker=DraftWorker(),
                                    _target_worker=SimpleNamespace(model_runner=SimpleNamespace()),
                                    speculative_num_steps=FULL["speculative_num_steps"],
                                    speculative_num_draft_tokens=FULL["speculative_num_draft_tokens"])

    def reserve(self) -> int:
        return self.get_alloc_len_per_decode() if self.bags else self.get_alloc_len_per_decode(self.server_args)

    def logs(self) -> list:
        if self.bags:
            return list(self.context._overrides_log)
        return [list(getattr(self.server_args, n, None) or []) for n in ("_resolved_overrides", "_runtime_mutations")]


class Context:
    """0.5.23's RuntimeContext.override: set the leaf in its bag, log (source, fields)."""

    def __init__(self, spec):
        self.spec = spec
        self._overrides_log: list = []

    def override(self, source: str, **fields) -> None:
        for name, value in fields.items():
            assert hasattr(self.spec, name), f"override: field {name!r} not projected"
            setattr(self.spec, name, value)
        self._overrides_log.append((source, dict(fields)))


FULL_STATE = _state(3, 4, "full")
ZERO_STATE = _state(0, 1, "zero")
VERSIONS = ("0.5.12", "0.5.16", "0.5.23")


def _ctl(r: Release) -> rt.SpecDisable:
    """What on_init attaches: the sizing fields read from server_args at the full state."""
    sizing = {name: getattr(r.server_args, name) for name in rt.SIZING_FIELDS}
    return rt.SpecDisable(rt.Switch(8, 1), FULL_STATE, ZERO_STATE, sizing)


@pytest.mark.parametrize("page_size", [1, 16])
@pytest.mark.parametrize("version", VERSIONS)
def test_reserve_never_shrinks_through_the_runtime_swap(version, page_size, monkeypatch, spec_info):
    r = Release(version, monkeypatch, page_size)
    full = r.reserve()
    # steps 3, draft tokens 4, topk 1: max(steps * topk, draft tokens) on every release
    assert full == 4, f"{version} page {page_size}: full-state reserve {full}"
    ctl = _ctl(r)
    logs = r.logs()
    for _ in range(5):
        rt.apply_state(r.worker, ctl, True)
        assert r.worker.speculative_num_steps == 0, "the release's swap did not run"
        assert r.worker._target_worker.model_runner.attn_backend == "target-zero"
        assert r.reserve() >= full, f"{version} page {page_size}: the reserve shrank while disabled"
        rt.apply_state(r.worker, ctl, False)
        assert r.worker.speculative_num_steps == 3
        assert r.reserve() == full
    assert (r.server_args.speculative_num_steps, r.server_args.speculative_num_draft_tokens) == (3, 4)
    if not r.bags:
        assert r.logs() == logs, f"{version}: the provenance logs grew over 10 swaps"


@pytest.mark.parametrize("page_size", [1, 16])
def test_release_swap_alone_shrinks_the_reserve_on_0_5_12(page_size, monkeypatch, spec_info):
    """Patch 1.1 called apply_runtime_state directly: 0.5.12 writes steps 0 / draft tokens 1 into
    server_args and the next step's reserve drops from 4 to 1 -- why the runtime restores them."""
    r = Release("0.5.12", monkeypatch, page_size)
    assert r.reserve() == 4
    r.worker.apply_runtime_state(ZERO_STATE)
    assert (r.server_args.speculative_num_steps, r.server_args.speculative_num_draft_tokens) == (0, 1)
    assert r.reserve() == 1


@pytest.mark.parametrize("page_size", [1, 16])
def test_release_swap_alone_on_0_5_16_keeps_the_reserve_by_its_cached_capacity(page_size, monkeypatch, spec_info):
    """0.5.16 sizes with ``max_speculative_num_draft_tokens``, a cached_property read at start-up:
    the swap writes draft tokens 1 through override, but the cached 4 still wins (steps 0 counts as
    1). If nothing read the property before the first swap, the reserve would drop to 1."""
    r = Release("0.5.16", monkeypatch, page_size)
    assert r.has_override, "0.5.16's ServerArgs.override was not found"
    assert r.reserve() == 4  # reads (and caches) the capacity, as the server's start-up does
    r.worker.apply_runtime_state(ZERO_STATE)
    assert (r.server_args.speculative_num_steps, r.server_args.speculative_num_draft_tokens) == (0, 1)
    assert r.reserve() == 4
    assert r.server_args._runtime_mutations == [("adaptive_spec.restore",
                                                 {"speculative_num_steps": 0, "speculative_num_draft_tokens": 1})]
    fresh = Release("0.5.16", monkeypatch, page_size)  # capacity never read before the swap
    fresh.worker.apply_runtime_state(ZERO_STATE)
    assert fresh.reserve() == 1


@pytest.mark.parametrize("page_size", [1, 16])
def test_release_swap_alone_on_0_5_23_keeps_the_reserve_by_the_launch_capacity(page_size, monkeypatch, spec_info):
    """0.5.23 sizes from the spec config bag, which keeps the launch-time draft-token capacity
    (max_speculative_num_draft_tokens) beside the active width the swap overrides: no shrink."""
    r = Release("0.5.23", monkeypatch, page_size)
    assert r.bags, "0.5.23's get_alloc_len_per_decode no longer reads get_spec()"
    assert r.reserve() == 4
    r.worker.apply_runtime_state(ZERO_STATE)
    assert (r.spec.speculative_num_steps, r.spec.speculative_num_draft_tokens) == (0, 1)
    assert r.reserve() == 4
    r.spec.max_speculative_num_draft_tokens = None  # without the launch capacity it would shrink
    assert r.reserve() == 1


def test_runtime_swap_on_0_5_23_does_not_grow_the_context_log(monkeypatch, spec_info):
    """0.5.23's swap logs to the runtime context (``get_context().override``), not to server_args:
    a week of switching must not grow it either."""
    r = Release("0.5.23", monkeypatch, 1)
    ctl = _ctl(r)
    before = r.logs()
    for _ in range(100):
        rt.apply_state(r.worker, ctl, True)
        rt.apply_state(r.worker, ctl, False)
    assert r.worker.speculative_num_steps == 3 and r.spec.speculative_num_steps == 3
    assert r.logs() == before, f"the context's overrides log grew by {len(r.logs()) - len(before)}"
