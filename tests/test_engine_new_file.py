"""A patch may create a file (real Python it ships, e.g. a runtime module): apply writes it and
journals it as created, status sees it, revert removes it, drift is refused."""
from __future__ import annotations

import pytest
from packaging.specifiers import SpecifierSet

from patchkit import engine
from patchkit.ftypes import DriftError, Outcome, Target, TargetKind
from patchkit.patchdef import Patch, Strategy, new_file_edit

from test_engine import BASE, REL, make_patch

NEW = "toy/runtime_helper.py"
TEXT = '"""shipped by the patch"""\n\n\ndef helper(x):\n    return x + 1\n'


def patch_with_file():
    base = make_patch()
    edits = base.plan("1.2", lambda r: None).edits + (new_file_edit(NEW, TEXT, "add the runtime module"),)
    return Patch("toy-with-file", "1.0", "toy", "toy", SpecifierSet(">=1.0,<2"),
                 lambda v, r: Strategy("only", edits, "toy"))


@pytest.fixture
def toy(tmp_path) -> Target:
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    return Target("toy", "1.2", tmp_path, TargetKind.DIRECTORY)


def test_created_file_is_written_journalled_and_removed_on_revert(toy):
    p = patch_with_file()
    dry = engine.apply(p, toy, dry_run=True)
    assert dry.outcome == Outcome.WOULD_APPLY
    assert "+def helper(x):" in engine.unified_diff(dry.changes)
    assert not toy.file(NEW).exists()
    assert engine.apply(p, toy).outcome == Outcome.APPLIED
    assert toy.file(NEW).read_text() == TEXT
    assert [r.state for r in engine.status([p], toy)] == ["applied"]
    assert engine.apply(p, toy).outcome == Outcome.ALREADY_APPLIED
    assert "+def helper(x):" in engine.diff(p, toy)
    assert engine.revert(p, toy).outcome == Outcome.REVERTED
    assert not toy.file(NEW).exists()
    assert toy.file(REL).read_text() == BASE


def test_a_foreign_file_of_that_name_is_not_overwritten(toy):
    toy.file(NEW).write_text("x = 1\n")
    with pytest.raises(Exception) as exc:
        engine.apply(patch_with_file(), toy)
    assert NEW in str(exc.value)
    assert toy.file(NEW).read_text() == "x = 1\n"
    assert toy.file(REL).read_text() == BASE


def test_edited_created_file_is_drift_on_revert(toy):
    p = patch_with_file()
    engine.apply(p, toy)
    toy.file(NEW).write_text(TEXT + "# hand edit\n")
    with pytest.raises(DriftError):
        engine.revert(p, toy)
    assert engine.revert(p, toy, force=True).outcome == Outcome.REVERTED
    assert not toy.file(NEW).exists()
