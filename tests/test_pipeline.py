"""The one pipeline for "try this patch on this tree" (patchkit.pipeline) and the typed contracts
around it, on the toy sglang tree (no network): every step passes on the real patch, and every
step rejects the broken input built for it."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import given, strategies as st
from packaging.specifiers import SpecifierSet

from conftest import ROOT, toy_release
from patchkit import engine, matrix, pipeline, registry
from patchkit.ftypes import (Anchor, AnchorNotFound, CheckFailed, DriftError, Finding, Outcome, PatchkitError,
                             Refused, Severity, VersionOutOfRange)
from patchkit.patchdef import Edit, Example, Patch, Strategy

WORKER = "sglang/srt/speculative/eagle_worker_v2.py"
SERVER_ARGS = "sglang/srt/server_args.py"


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def line_patch(is_applied=None, transform=None, name="toy-line") -> Patch:
    """A one-edit patch: appends ``PATCHED = 1`` to server_args.py."""
    def add(module: cst.Module) -> cst.Module:
        return cst.parse_module(module.code + "PATCHED = 1\n")

    edit = Edit(SERVER_ARGS, "append PATCHED", (Anchor(SERVER_ARGS, "<module>"),), transform or add,
                is_applied or (lambda m: "PATCHED = 1" in m.code), id="append-patched")
    return Patch(name, "1.0", "test patch", "sglang", SpecifierSet(">=0"),
                 lambda version, read: Strategy("append", (edit,), "appends a line"), checks=())


# ---------------------------------------------------------------------------- the whole trial
def test_every_step_passes_on_the_toy_tree_and_the_tree_is_only_read(tmp_path):
    t = toy_release(tmp_path / "toy")
    before = tree_bytes(t.root)
    with pipeline.Trial(registry.patch("dynamic-spec-disable"), t) as trial:
        steps = trial.run()
        scratch = trial.scratch.root
    assert [s.step for s in steps] == list(pipeline.STEPS)
    assert all(s.ok for s in steps), [(s.step, s.detail) for s in steps if not s.ok]
    assert steps[0].detail == "bring-zero-step"
    assert tree_bytes(t.root) == before  # the target itself is never written
    assert not scratch.exists()  # the scratch folder is gone after the block


def test_refused_release_fails_anchors_with_the_patch_reason(tmp_path):
    t = toy_release(tmp_path / "toy")
    w = t.file(WORKER)
    w.write_text(w.read_text().replace("def build_adaptive_runtime_state", "def build_other_state"))
    with pipeline.Trial(registry.patch("dynamic-spec-disable"), t) as trial:
        steps = trial.run()
    assert [s.step for s in steps] == ["anchors"] and not steps[0].ok
    assert isinstance(steps[0].error, Refused)
    assert steps[0].error.reason.startswith(f"{WORKER}: EAGLEWorkerV2 has no 'build_adaptive_runtime_state'")


def test_drifted_anchor_fails_applies(tmp_path):
    def drifted(module):
        raise AnchorNotFound(f"{SERVER_ARGS}: class ServerArgs has no method 'add_cli_args'")

    t = toy_release(tmp_path / "toy")
    with pipeline.Trial(line_patch(transform=drifted), t) as trial:
        steps = trial.run()
    assert [(s.step, s.ok) for s in steps] == [("anchors", True), ("applies", False)]
    assert isinstance(steps[1].error, AnchorNotFound) and "add_cli_args" in steps[1].detail


def test_compiles_names_the_file_and_line_of_a_syntax_error(tmp_path):
    t = toy_release(tmp_path / "toy")
    with pipeline.Trial(line_patch(), t) as trial:
        assert trial.plan().ok
        trial.copy()
        assert trial.apply().ok and trial.compiles().ok
        f = trial.scratch.file(SERVER_ARGS)
        f.write_text(f.read_text() + "return 1\n")  # parses (libcst), does not compile (CPython)
        res = trial.compiles()
    assert not res.ok and res.detail.startswith(f"{SERVER_ARGS}:") and "'return' outside function" in res.detail


def test_checks_catch_the_wrong_class_patch(tmp_path, broken_patches):
    t = toy_release(tmp_path / "toy")
    with pipeline.Trial(registry.patch(broken_patches), t) as trial:
        steps = {s.step: s for s in trial.run()}
    assert steps["applies"].ok and not steps["checks"].ok
    assert "PK003" in steps["checks"].detail and "spec_disable_batch_threshold" in steps["checks"].detail


def test_idempotent_fails_when_the_detector_misses_its_own_edit(tmp_path):
    t = toy_release(tmp_path / "toy")
    with pipeline.Trial(line_patch(is_applied=lambda m: False), t) as trial:
        steps = {s.step: s for s in trial.run()}
    assert steps["applies"].ok and not steps["idempotent"].ok
    assert isinstance(steps["idempotent"].error, DriftError)


def test_reverts_fails_when_the_patched_file_was_edited_after_apply(tmp_path):
    t = toy_release(tmp_path / "toy")
    with pipeline.Trial(line_patch(), t) as trial:
        assert trial.plan().ok
        trial.copy()
        assert trial.apply().ok
        f = trial.scratch.file(SERVER_ARGS)
        f.write_text(f.read_text() + "# hand edit\n")
        res = trial.reverts()
    assert not res.ok and isinstance(res.error, DriftError) and "changed since patch" in res.detail


def test_applied_reverts_what_it_applied_and_leaves_a_patched_tree_patched(tmp_path):
    t = toy_release(tmp_path / "toy")
    pristine = tree_bytes(t.root)
    patch = registry.patch("dynamic-spec-disable")
    with pipeline.applied(patch, t) as r:
        assert r.outcome is Outcome.APPLIED and t.file(WORKER).read_bytes() != pristine[WORKER]
    after = tree_bytes(t.root)
    assert {k: v for k, v in after.items() if not k.startswith(".patchkit/")} == pristine
    engine.apply(patch, t)
    patched = t.file(WORKER).read_bytes()
    with pipeline.applied(patch, t) as r:
        assert r.outcome is Outcome.ALREADY_APPLIED
    assert t.file(WORKER).read_bytes() == patched  # found patched, left patched


def test_scratch_copy_takes_the_parts_without_caches(tmp_path):
    t = toy_release(tmp_path / "toy")
    (t.root / "sglang" / "srt" / "__pycache__").mkdir()
    (t.root / "sglang" / "srt" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (t.root / "sglang" / "srt" / "fast.so").write_bytes(b"\0")
    s = pipeline.scratch_copy(t, tmp_path / "s", ["sglang/srt", "sglang/missing.py"], dist_info=True)
    got = set(tree_bytes(s.root))
    assert got == {"sglang/srt/__init__.py", SERVER_ARGS, WORKER, "sglang/srt/speculative/__init__.py",
                   "sglang-0.5.12.dist-info/METADATA"}
    assert (s.version, s.distribution) == ("0.5.12", "sglang")
    whole = pipeline.scratch_copy(t, tmp_path / "w")
    assert set(tree_bytes(whole.root)) == {k for k in tree_bytes(t.root) if "__pycache__" not in k
                                           and not k.endswith(".so")}


# ---------------------------------------------------------------------------- matrix on the toy tree
def test_matrix_row_on_the_toy_tree(tmp_path, monkeypatch):
    t = toy_release(tmp_path / "toy")
    monkeypatch.setattr(matrix.tgt, "fetch", lambda spec, pip_output=None: t)
    row = matrix.run_one(registry.patch("dynamic-spec-disable"), "0.5.12")
    assert (row.verdict, row.strategy) == ("applies", "bring-zero-step")
    assert row.detail.startswith("above T: patchkit's trivial_verify_input")
    w = t.file(WORKER)
    w.write_text(w.read_text().replace("def apply_runtime_state", "def apply_other_state"))
    row = matrix.run_one(registry.patch("dynamic-spec-disable"), "0.5.12")
    assert row.verdict == "refused"
    assert row.detail.startswith(f"{WORKER}: EAGLEWorkerV2 has no 'apply_runtime_state'")  # the whole reason


def test_matrix_failure_verdicts_come_from_the_error_class():
    assert matrix._failure(Refused("a: b: c", "patch p refused for sglang 1: a: b: c")) == ("refused", "a: b: c")
    assert matrix._failure(AnchorNotFound("f.py: gone")) == ("anchors missing", "f.py: gone")
    assert matrix._failure(CheckFailed("patch p: x")) == ("check failed", "patch p: x")
    assert matrix._failure(VersionOutOfRange("patch p supports x: y")) == ("refused", "patch p supports x: y")


# ---------------------------------------------------------------------------- typed contracts
def test_refused_is_a_patchkit_error_with_its_reason(tmp_path):
    exc = Refused("no worker here")
    assert isinstance(exc, PatchkitError) and isinstance(exc, VersionOutOfRange) and exc.exit_code == 1
    assert str(exc) == exc.reason == "no worker here"
    back = pickle.loads(pickle.dumps(Refused("why", "patch p refused: why")))
    assert (type(back), back.reason, str(back)) == (Refused, "why", "patch p refused: why")
    t = toy_release(tmp_path / "toy")
    t.file(WORKER).unlink()
    with pytest.raises(Refused) as info:
        engine.apply(registry.patch("dynamic-spec-disable"), t, dry_run=True)
    assert info.value.reason == f"{WORKER} does not exist in this release (no spec-v2 EAGLE worker)"
    assert str(info.value) == f"patch dynamic-spec-disable refused for sglang 0.5.12: {info.value.reason}"


def test_edit_ids_are_unique_and_the_broken_fixture_drops_the_on_init_hooks(tmp_path, broken_patches):
    t = toy_release(tmp_path / "toy")
    read = engine.reader(t)
    good = registry.patch("dynamic-spec-disable").plan("0.5.12", read)
    bad = registry.patch(broken_patches).plan("0.5.12", read)
    ids = [e.id for e in good.edits]
    assert len(ids) == len(set(ids)) and all(ids)
    assert good.edit("on-init:EAGLEWorkerV2.__init__").file == WORKER
    # the broken variant: the on_init hook gone, the threshold assigned in the other class
    assert {e.id for e in good.edits} - {e.id for e in bad.edits} == {"on-init:EAGLEWorkerV2.__init__",
                                                                       "assign-threshold:EAGLEWorkerV2.__init__"}
    assert {e.id for e in bad.edits} - {e.id for e in good.edits} == {"assign-threshold:EagleDraftWorker.__init__"}
    with pytest.raises(KeyError, match="has no edit 'nope'"):
        good.edit("nope")


def test_an_edit_without_an_id_gets_one_from_its_description():
    e = Edit("a.py", "Add the X field to Y", (), lambda m: m, lambda m: False)
    assert e.id == "add-the-x-field-to-y"


def test_examples_are_typed_records():
    p = registry.patch("dynamic-spec-disable")
    assert p.examples and all(isinstance(e, Example) for e in p.examples)
    assert {e.strategy for e in p.examples} == {"bring-zero-step", "reuse-upstream-zero-step"}
    legacy = line_patch().__class__(**{**line_patch().__dict__, "examples": (("s", {"a.py": "stem"}),)})
    assert legacy.examples == (Example("s", {"a.py": "stem"}),)
    with pytest.raises(TypeError):
        legacy.examples[0].files["b.py"] = "x"  # read-only


@pytest.mark.parametrize("first", ["patches", "patchkit.patches"])
def test_one_module_per_patch_whichever_name_comes_first(first):
    other = "patchkit.patches" if first == "patches" else "patches"
    code = (f"import {first}.dynamic_spec_disable as a, {other}.dynamic_spec_disable as b\n"
            f"from {first}.dynamic_spec_disable import runtime as r1\n"
            f"from {other}.dynamic_spec_disable import runtime as r2\n"
            "import checks.attr_init as c, patchkit.checks.attr_init as d\n"
            "print(a.PATCH is b.PATCH, r1 is r2, c is d, a.__spec__.name)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.stdout.split() == ["True", "True", "True", "patchkit.patches.dynamic_spec_disable"], r.stderr


_name = st.text(alphabet="abcxyz_019", min_size=1, max_size=8)


@given(file=st.builds(lambda a, b: f"{a}/{b}.py", _name, _name), cls=_name,
       method=st.none() | _name | st.builds(lambda m: f"{m}#draft", _name))
def test_anchor_keys_parse_back_to_the_anchor(file, cls, method):
    a = Anchor(file, cls, method, "some shape")
    assert Anchor.from_key(a.key) == Anchor(file, cls, method)


def test_journal_entries_give_their_anchors_as_values(tmp_path):
    from patchkit import journal as jr
    t = toy_release(tmp_path / "toy")
    engine.apply(registry.patch("dynamic-spec-disable"), t)
    j = jr.load(t)
    worker = [e for e in j.entries if e.file == WORKER][0]
    assert ("EAGLEWorkerV2", "__init__") in {(a.cls, a.method) for a in worker.anchor_values}
    assert all(a.key in worker.anchors for a in worker.anchor_values)


@given(st.builds(Finding, st.text(max_size=10), st.integers(0, 999), st.integers(0, 99), st.text(max_size=5),
                 st.text(max_size=20), st.text(max_size=5), st.text(max_size=5), st.sampled_from(Severity),
                 st.text(max_size=10), st.text(max_size=10)))
def test_finding_round_trips_through_its_dict(f):
    assert Finding.from_dict(f.to_dict()) == f


def test_one_compile_check():
    assert engine.syntax_error("a.py", "x = 1\n") is None
    assert engine.syntax_error("a.py", b"x = 1\n") is None
    exc = engine.syntax_error("a.py", "def f(:\n")
    assert isinstance(exc, SyntaxError) and exc.filename == "a.py" and exc.lineno == 1


def test_an_example_still_unpacks_as_the_pair_it_replaced():
    strategy, files = Example("s", {"a.py": "stem"})
    assert (strategy, dict(files)) == ("s", {"a.py": "stem"})
