"""The configuration matrix: pairwise coverage (property test), what the release's code says about
the algorithm axis, refusal cells, matrix files, and the match `patchkit launch` demands."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from patchkit.ftypes import UsageError
from patchkit.patches.dynamic_spec_disable.smoke_spec import SPEC
from patchkit.smoke import facts as F, matrix as M

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "fixtures" / "standin_sglang"


# ------------------------------------------------------------------ all pairs
axes_st = st.dictionaries(st.text("abcdefgh", min_size=1, max_size=3),
                          st.lists(st.text("xyz0123", min_size=1, max_size=2), min_size=1, max_size=4, unique=True)
                          .map(tuple), min_size=2, max_size=6)


@settings(max_examples=60, deadline=None)
@given(axes_st, st.integers(0, 2**16))
def test_every_valid_pair_appears_in_some_cell(axes, seed):
    import random
    rng = random.Random(seed)
    names = list(axes)
    # forbid a random handful of pairs (a constraint like "topk 2 with page 16")
    banned = set()
    for _ in range(rng.randrange(0, 3)):
        i, j = sorted(rng.sample(range(len(names)), 2))
        banned.add(((names[i], rng.choice(axes[names[i]])), (names[j], rng.choice(axes[names[j]]))))

    def valid(c):
        return not any(c.get(a) == va and c.get(b) == vb for (a, va), (b, vb) in banned)

    cells, dropped = M.allpairs(axes, valid)
    assert all(valid(c) and set(c) == set(axes) for c in cells)
    full = [dict(zip(names, combo)) for combo in itertools.product(*(axes[n] for n in names))]
    for i, j in itertools.combinations(names, 2):
        for a in axes[i]:
            for b in axes[j]:
                reachable = any(c[i] == a and c[j] == b and valid(c) for c in full)
                covered = any(c[i] == a and c[j] == b for c in cells)
                assert covered == reachable, (i, a, j, b)
    assert len(cells) <= len(full)


def test_pairwise_is_much_smaller_than_the_product():
    axes = {"algorithm": ("EAGLE3", "EAGLE", "STANDALONE"), **{k: ("a", "b") for k in "uvwxy"}}
    cells, _ = M.allpairs(axes)
    assert len(cells) <= 9 < 3 * 2 ** 5


# ------------------------------------------------------------------ the release decides the axis
@pytest.mark.network
@pytest.mark.parametrize("version,no_overlap_eagle", [("0.5.12", "EAGLEWorker"), ("0.5.16", "EAGLEWorkerV2")])
def test_worker_classes_are_read_from_the_factory(version, no_overlap_eagle, sglang_release):
    rel = sglang_release(version)
    facts = M.release_facts(SPEC, rel.root)
    assert facts["workers"]["EAGLE3"] == {"overlap": "EAGLEWorkerV2", "no-overlap": no_overlap_eagle}
    assert facts["workers"]["STANDALONE"]["overlap"] == "StandaloneWorkerV2"
    assert "StandaloneWorkerV2" in facts["patched_subclasses"]
    assert [n for n, _ in M.algorithm_axis(SPEC, facts)] == ["EAGLE3", "EAGLE", "STANDALONE"]
    cells, notes = M.default_cells(SPEC, facts)
    refuse = [c for c in cells if c.expect == "refuse"]
    if version == "0.5.12":  # spec v1 without overlap or with topk > 1: the flag must be refused there
        assert refuse and all(c.flag_on for c in refuse)
        assert all("must be refused" in c.reason for c in refuse)
        assert "the release refuses topk > 1 with page size > 1 on the Triton backend" in notes["excluded"]
        assert not any(c.options["topk"] == "2" and c.options["page"] == "16" for c in cells)
        # no upstream stub to skip to: skip cells would test nothing the keep cells do not
        assert not any(c.options["draft-extend"] == "skip" for c in cells)
        assert any("skip is ignored by this release" in e for e in notes["excluded"])
    else:  # every worker inherits the patched class: only patch 2.0's own topk > 1 refusal remains
        assert all(c.flag_on and c.options["topk"] != "1" and "--speculative-eagle-topk" in c.reason for c in refuse)
        # nothing the release refuses; only the patch's own option that needs the flag
        assert notes["excluded"] == ["--speculative-disable-draft-extend does nothing with the flag off (not a configuration)"]
        skip = [c for c in cells if c.options["draft-extend"] == "skip"]
        assert skip and all(c.flag_on and c.expect == "serve" for c in skip)
        assert all(c.args[c.args.index("--speculative-disable-draft-extend") + 1] == "skip" for c in skip)
    assert all(c.options["topk"] == "1" for c in cells if c.expect == "serve" and c.flag_on)
    serve_on = [c for c in cells if c.expect == "serve" and c.flag_on]
    assert {c.options["algorithm"] for c in serve_on} == {"EAGLE3", "EAGLE", "STANDALONE"}


def test_an_algorithm_whose_worker_does_not_inherit_the_patched_class_leaves_the_axis(tmp_path):
    spec_dir = tmp_path / "sglang" / "srt" / "speculative"
    spec_dir.mkdir(parents=True)
    for f in ("spec_info.py", "eagle_worker_v2.py", "eagle_worker.py"):
        (spec_dir / f).write_text((STANDIN / "sglang" / "srt" / "speculative" / f).read_text())
    (spec_dir / "standalone_worker_v2.py").write_text("class StandaloneWorkerV2:\n    pass\n")  # no longer a subclass
    facts = M.release_facts(SPEC, tmp_path)
    assert [n for n, _ in M.algorithm_axis(SPEC, facts)] == ["EAGLE3", "EAGLE"]


def test_worker_classes_follow_overlap_guards():
    text = (STANDIN / "sglang" / "srt" / "speculative" / "spec_info.py").read_text()
    assert F.worker_classes(text, "is_standalone") == {"overlap": "StandaloneWorkerV2", "no-overlap": "EAGLEWorker"}
    assert F.worker_classes(text, "is_ngram") == {}


# ------------------------------------------------------------------ files and launch commands
def test_matrix_file_restricts_axes_and_adds_cells(tmp_path):
    f = tmp_path / "m.toml"
    f.write_text('axes = { algorithm = ["EAGLE3"], page = ["1"] }\n'
                 '[[cell]]\nname = "mine"\nargs = ["--speculative-algorithm", "EAGLE3", "--page-size", "32"]\n')
    axes, cells = M.cells_from_file(SPEC, f)
    assert axes == {"algorithm": ["EAGLE3"], "page": ["1"]}
    facts = M.release_facts(SPEC, STANDIN)
    got, _ = M.default_cells(SPEC, facts, axes)
    assert {c.options["algorithm"] for c in got} == {"EAGLE3"} and {c.options["page"] for c in got} == {"1"}
    cell = M.file_cell(SPEC, cells[0], M.axes_of(SPEC, facts), 0)
    assert cell.name == "mine" and "--page-size" in cell.args and "32" in cell.args
    with pytest.raises(UsageError, match="axis 'page' has no value '7'"):
        M.default_cells(SPEC, facts, {"page": ["7"]})
    j = tmp_path / "m.json"
    j.write_text(json.dumps({"cells": [{"name": "x"}]}))
    with pytest.raises(UsageError, match="each cell needs 'args'"):
        M.cells_from_file(SPEC, j)


def _record(cells):
    return {"cells": [{"name": n, "verdict": v, "server_args": a} for n, v, a in cells]}


BASE = ["--load-format", "dummy", "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4", "--mem-fraction-static", "0.2"]
EAGLE3 = ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "{draft}"]
FLAG = ["--speculative-disable-batch-threshold", "{threshold}"]


def test_launch_finds_the_passing_cell_with_the_same_options():
    rec = _record([("a", "pass", BASE + EAGLE3 + FLAG), ("b", "pass", BASE + EAGLE3 + ["--page-size", "16"])])
    ok = ("python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE3 "
          "--speculative-draft-model-path /d --speculative-disable-batch-threshold 32 --port 30000 --tp 1")
    assert M.launch_mismatch(SPEC, rec, ok) is None
    # explicit defaults (page size 1, topk 1) are the same options
    assert M.launch_mismatch(SPEC, rec, ok + " --page-size 1 --speculative-eagle-topk 1") is None
    assert M.launch_mismatch(SPEC, rec, ok.replace("--speculative-disable-batch-threshold 32", "--page-size 16")) is None


def test_launch_with_the_draft_extend_flag_needs_a_passing_cell_with_that_setting():
    keep_only = _record([("a", "pass", BASE + EAGLE3 + FLAG)])
    cmd = ("python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE3 "
           "--speculative-disable-batch-threshold 32")
    assert M.launch_mismatch(SPEC, keep_only, cmd + " --speculative-disable-draft-extend keep") is None  # the default
    why = M.launch_mismatch(SPEC, keep_only, cmd + " --speculative-disable-draft-extend skip")
    assert why == "no passing cell was run with --speculative-disable-draft-extend skip"
    both = _record([("a", "pass", BASE + EAGLE3 + FLAG),
                    ("s", "pass", BASE + EAGLE3 + FLAG + ["--speculative-disable-draft-extend", "skip"])])
    assert M.launch_mismatch(SPEC, both, cmd + " --speculative-disable-draft-extend skip") is None
    # without the flag the option does nothing: such a launch is the flag-off cell's
    off = _record([("o", "pass", BASE + EAGLE3 + ["--speculative-disable-draft-extend", "keep"])])
    plain = "python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE3"
    assert M.launch_mismatch(SPEC, off, plain + " --speculative-disable-draft-extend skip") is None


def test_launch_names_the_option_no_passing_cell_has():
    rec = _record([("a", "pass", BASE + EAGLE3 + FLAG), ("b", "fail", BASE + EAGLE3 + FLAG + ["--disable-cuda-graph"]),
                   ("c", "pass", BASE + EAGLE3 + ["--disable-cuda-graph"])])
    cmd = ("python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE3 "
           "--speculative-disable-batch-threshold 8 --disable-cuda-graph")
    why = M.launch_mismatch(SPEC, rec, cmd)
    assert why is not None and "nearest" in why and "--disable-cuda-graph" in why
    why = M.launch_mismatch(SPEC, rec, cmd + " --page-size 16")
    assert why == "no passing cell was run with --page-size 16"
    why = M.launch_mismatch(SPEC, rec, cmd.replace("EAGLE3", "STANDALONE"))
    assert why == "no passing cell was run with --speculative-algorithm STANDALONE"
    refused = _record([("r", "refused", BASE + EAGLE3 + FLAG + ["--disable-overlap-schedule"])])
    assert M.launch_mismatch(SPEC, refused, cmd) == "the sign-off has no passing cell"


def test_launch_cell_is_the_users_command_on_the_tiny_model():
    facts = M.release_facts(SPEC, STANDIN)
    cell = M.launch_cell(SPEC, "python -m sglang.launch_server --model-path /big --port 1 "
                               "--speculative-algorithm EAGLE3 --speculative-draft-model-path /big-draft "
                               "--speculative-disable-batch-threshold 48 --page-size 16 --speculative-eagle-topk 1",
                         M.axes_of(SPEC, facts))
    assert cell.flag_on and cell.options["algorithm"] == "EAGLE3"
    assert "/big" not in " ".join(cell.args) and "{draft}" in cell.args  # the tiny model, not the user's
    assert ["--page-size", "16"] == cell.args[cell.args.index("--page-size"):cell.args.index("--page-size") + 2]
    assert "{threshold}" in cell.args
    with pytest.raises(UsageError, match="NGRAM is not an algorithm"):
        M.launch_cell(SPEC, "x sglang.launch_server --speculative-algorithm NGRAM", M.axes_of(SPEC, facts))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["--disable-cuda-graph", "--disable-overlap-schedule", "--page-size 16",
                                 "--speculative-eagle-topk 2", "--speculative-disable-batch-threshold 9"]),
                unique=True))
def test_a_launch_matches_the_cell_built_from_it(opts):
    facts = M.release_facts(SPEC, STANDIN)
    cmd = "python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE3 " + " ".join(opts)
    cell = M.launch_cell(SPEC, cmd, M.axes_of(SPEC, facts))
    rec = _record([("launch", "pass", BASE + cell.args)])
    assert M.launch_mismatch(SPEC, rec, cmd) is None
    if "--page-size 16" not in opts:
        assert M.launch_mismatch(SPEC, rec, cmd + " --page-size 16") == "no passing cell was run with --page-size 16"


def test_pyproject_section_and_launch_cell_join_the_plan(tmp_path):
    from patchkit.ftypes import Target, TargetKind
    from patchkit.smoke.command import pyproject_section
    from patchkit.smoke.matrixrun import MatrixOptions, make_plan
    (tmp_path / "pyproject.toml").write_text(
        '[tool.patchkit.smoke]\naxes = { algorithm = ["STANDALONE"], topk = ["1"] }\n'
        '[[tool.patchkit.smoke.cell]]\nname = "ours"\nargs = ["--speculative-algorithm", "EAGLE3", '
        '"--speculative-disable-batch-threshold", "8", "--disable-cuda-graph"]\n')
    sec = pyproject_section(tmp_path)
    t = Target("sglang", "0.5.12", STANDIN, TargetKind.DIRECTORY)
    plan = make_plan(SPEC, t, MatrixOptions("/m", matrix_section=sec, launch_cell=(
        "python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE3 --page-size 16")))
    names = [c.name for c in plan.cells]
    assert names[-2:] == ["ours", "launch"]
    assert {c.options["algorithm"] for c in plan.cells if c.origin == "pairwise"} == {"STANDALONE"}
    ours = plan.cells[-2]
    assert ours.flag_on and "--disable-cuda-graph" in ours.args
    with pytest.raises(UsageError, match="--cell nope: no such cell"):
        make_plan(SPEC, t, MatrixOptions("/m", matrix_section=sec, only=("nope",)))


@given(total=st.floats(0.05, 0.95), parallel=st.integers(1, 8))
@settings(max_examples=25, deadline=None)
def test_mem_total_is_shared_by_the_cells_served_at_once(total, parallel):
    """`patchkit smoke --mem-total F --parallel N`: each cell's server gets F/N of the GPU (never under
    0.05) as --mem-fraction-static, so two matrices can share one GPU."""
    from patchkit.ftypes import Target, TargetKind
    from patchkit.smoke.command import matrix_options
    from patchkit.smoke.matrixrun import cell_config, make_plan
    t = Target("sglang", "0.5.12", STANDIN, TargetKind.DIRECTORY)
    opts = matrix_options(t, SPEC, model_path="/m", draft_model_path="/d", eagle_draft_path="/e", tiny=False, tp=1,
                          threshold=None, crossings=10, server_args=[], timeout=60, log_dir=Path("/nonexistent"),
                          parallel=parallel, only=(), matrix="default", launch_cell="", soak_seconds=1,
                          long_tokens=10, transitions=10, mem_total=total)
    plan = make_plan(SPEC, t, opts)
    args = cell_config(SPEC, opts, plan, plan.cells[0], None).server_args
    mem = float(args[args.index("--mem-fraction-static") + 1])
    assert mem == round(max(0.05, total / parallel), 3) and args.count("--mem-fraction-static") == 1


def test_server_arg_replaces_the_tiny_models_own_option(tmp_path, monkeypatch):
    """`patchkit smoke --tiny --server-arg=--attention-backend=flashinfer`: every cell and the
    speculation-off reference run the user's backend, never both (the tiny base says triton)."""
    from patchkit.ftypes import Target, TargetKind
    from patchkit.smoke import command
    from patchkit.smoke.matrixrun import cell_config, make_plan
    monkeypatch.setattr(command, "grammar_probe", lambda: "no xgrammar")
    monkeypatch.setattr(command, "tiny_models", lambda log_dir, skip: ("/t", {"target": "/t", "draft": "/d",
                                                                             "eagle_draft": "/e"},
                                                                      ["--attention-backend", "triton", "--x", "1"]))
    t = Target("sglang", "0.5.12", STANDIN, TargetKind.DIRECTORY)
    opts = command.matrix_options(t, SPEC, model_path=None, draft_model_path=None, eagle_draft_path=None, tiny=True,
                                  tp=1, threshold=None, crossings=10, server_args=["--attention-backend=flashinfer"],
                                  timeout=60, log_dir=tmp_path, parallel=1, only=(), matrix="default", launch_cell="",
                                  soak_seconds=1, long_tokens=10, transitions=10)
    assert opts.base_args == ["--x", "1", "--attention-backend=flashinfer"]
    plan = make_plan(SPEC, t, opts)
    args = cell_config(SPEC, opts, plan, plan.cells[0], None).server_args
    assert "triton" not in args and "--attention-backend=flashinfer" in args


def _bench_matrix_plans(tmp_path, name: str, only: tuple, version: str):
    """(plan on the stand-in tree, plan on a copy that carries the patch's runtime, as after apply)
    for the bench matrix file bench/gpu/<name>."""
    import shutil
    from patchkit.ftypes import Target, TargetKind
    from patchkit.smoke.matrixrun import MatrixOptions, make_plan
    matrix = ROOT / "bench" / "gpu" / name
    bare = make_plan(SPEC, Target("sglang", version, STANDIN, TargetKind.DIRECTORY),
                     MatrixOptions("/m", matrix_file=matrix, only=only))
    tree = tmp_path / "site"
    shutil.copytree(STANDIN, tree)
    runtime = ROOT / "patches" / "dynamic_spec_disable" / "runtime.py"
    shutil.copy(runtime, tree / "sglang" / "srt" / "speculative" / "patchkit_spec_disable.py")
    armed = make_plan(SPEC, Target("sglang", version, tree, TargetKind.DIRECTORY),
                      MatrixOptions("/m", matrix_file=matrix, only=only))
    return bare, armed


def test_the_flashinfer_matrix_runs_both_cells_with_the_host_length_check(tmp_path):
    """bench/gpu/flashinfer_matrix.toml (SMOKE_FI=1 in bench_on_host.sh): EAGLE3 and STANDALONE on
    FlashInfer with the flag on, and the patch's own checker (PATCHKIT_SPEC_DISABLE_HOST_LENS=check)
    armed once the target's source carries it, i.e. after apply writes the runtime; on a tree that
    lacks it the plan says so instead of passing a variable nothing reads."""
    only = ("eagle3-flashinfer", "standalone-flashinfer")
    bare, armed = _bench_matrix_plans(tmp_path, "flashinfer_matrix.toml", only, "0.5.12")
    assert [c.name for c in bare.cells] == list(only)
    for c in bare.cells:
        assert c.flag_on and c.args[c.args.index("--attention-backend") + 1] == "flashinfer"
    assert "PATCHKIT_SPEC_DISABLE_HOST_LENS" not in bare.checker_env
    assert "PATCHKIT_SPEC_DISABLE_HOST_LENS" in bare.notes["checkers_missing"]
    assert armed.checker_env["PATCHKIT_SPEC_DISABLE_HOST_LENS"] == "check"


def test_the_kv_matrix_runs_kv_on_flashinfer_and_triton_with_the_kv_check_armed(tmp_path):
    """bench/gpu/kv_matrix.toml (SMOKE_MATRIX in bench_on_host.sh): EAGLE3 with
    ``--speculative-disable-draft-extend kv`` and the flag on, one cell per backend the GPU host can
    run, and the patch's KV check (PATCHKIT_SPEC_DISABLE_KV_CHECK) armed once the runtime is in the
    tree; before apply the plan names it as missing."""
    only = ("eagle3-kv-flashinfer", "eagle3-kv-triton", "eagle3-kv-page16-triton", "eagle3-kv-overlap-off-triton",
            "eagle3-kv-topk2-triton")
    bare, armed = _bench_matrix_plans(tmp_path, "kv_matrix.toml", only, "0.5.16")
    assert [c.name for c in bare.cells] == list(only)
    assert [c.args[c.args.index("--attention-backend") + 1] for c in bare.cells] == ["flashinfer"] + ["triton"] * 4
    # the three option cells each differ from eagle3-kv-triton in the one option their name gives
    base = set(bare.cells[1].args)
    assert [[a for a in c.args if a.startswith("--") and a not in base] for c in bare.cells[2:]] == [
        ["--page-size"], ["--disable-overlap-schedule"], ["--speculative-eagle-topk", "--speculative-num-draft-tokens"]]
    assert bare.cells[4].args[bare.cells[4].args.index("--speculative-eagle-topk") + 1] == "2"
    # the patch refuses topk > 1 with the threshold at start-up (session 47's H100 run): that cell
    # passes on the clean refusal, the others on a serving server
    assert [c.expect for c in bare.cells] == ["serve"] * 4 + ["refuse"]
    for c in bare.cells:
        assert c.flag_on and c.args[c.args.index("--speculative-disable-draft-extend") + 1] == "kv"
    assert "PATCHKIT_SPEC_DISABLE_KV_CHECK" in bare.notes["checkers_missing"]
    assert int(armed.checker_env["PATCHKIT_SPEC_DISABLE_KV_CHECK"]) > 0
