"""The gate invariant behind "FlashInfer / FA3: supported, not run on a GPU here": the backends read the
speculative sizing fields from the shared configuration only when built, so the zero state's own
backend objects keep their one-token sizes while the patch holds ServerArgs at the full state."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from conftest import release
from patchkit import engine, registry
from patches.dynamic_spec_disable.backend_reads import BACKENDS, FIELDS, shared_reads_per_step, sizing_read_at_build_only

VERSIONS = ("0.5.12", "0.5.16", "0.5.23")


@pytest.mark.network
@pytest.mark.parametrize("version", VERSIONS)
def test_supported_releases_read_the_sizing_at_build_time_only(version):
    read = engine.reader(release(version))
    assert all(read(rel) for rel in BACKENDS), "a backend module moved: the invariant would check nothing"
    assert sizing_read_at_build_only(read) is None
    # and the fields are really read there (in __init__): the invariant looks at live code
    assert any(f in read(BACKENDS[2]) for f in FIELDS)


@pytest.mark.network
def test_a_per_step_read_is_refused_naming_file_class_and_method():
    read = engine.reader(release("0.5.16"))
    fi = BACKENDS[1]
    text = read(fi)
    anchor = "    def init_forward_metadata(self, forward_batch: ForwardBatch):\n"
    assert anchor in text
    bad = text.replace(anchor, anchor + "        _n = self.model_runner.server_args.speculative_num_draft_tokens\n", 1)
    msg = sizing_read_at_build_only(engine.reader(release("0.5.16"), {fi: bad}))
    assert msg and msg.startswith(f"{fi}: FlashInferAttnBackend.init_forward_metadata reads "
                                  "self.model_runner.server_args.speculative_num_draft_tokens")


def test_the_patch_declares_it_for_the_gate():
    p = registry.patch("dynamic-spec-disable")
    assert "sizing_read_at_build_only" in [fn.__name__ for _desc, fn in p.invariants]


CLASS = """
class B:
    def __init__(self, model_runner):
        self.n = model_runner.server_args.speculative_num_draft_tokens
    def {method}(self, fb):
        x = {expr}
"""


@given(method=st.sampled_from(["init_forward_metadata", "forward_decode", "init_cuda_graph_state"]),
       base=st.sampled_from(["self.model_runner.server_args", "get_global_server_args()", "get_spec()",
                             "self", "fb.spec_info", "self.model_runner"]),
       field=st.sampled_from(FIELDS + ("speculative_eagle_topk",)))
def test_only_shared_configuration_reads_outside_init_count(method, base, field):
    hits = shared_reads_per_step(CLASS.format(method=method, expr=f"{base}.{field}"))
    shared = any(s in base for s in ("server_args", "get_spec(", "get_global_server_args("))
    expected = [("B", method, f"{base}.{field}")] if shared and field in FIELDS else []
    assert hits == expected
