"""Write-ahead recovery, in-process (bench/mutation.py runs these against mutants of
patchkit/journal.py; tests/test_fault_injection.py covers the same ground with real SIGKILLs in a
forked child, which is too slow to run per mutant). Each test builds the state an interrupted
apply or revert leaves on disk, then checks what the next command does with it."""
from __future__ import annotations

import json
import os

import pytest
from packaging.specifiers import SpecifierSet

from patchkit import engine, fsutil, journal as jr
from patchkit.ftypes import Outcome, RecoveryError, Target, TargetKind
from patchkit.patchdef import Patch, Strategy, new_file_edit

from test_engine import BASE, REL, make_patch
from test_engine_new_file import NEW, TEXT, patch_with_file


@pytest.fixture
def toy(tmp_path) -> Target:
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    return Target("toy", "1.2", tmp_path, TargetKind.DIRECTORY)


def interrupted_apply(t: Target, committed: bool, patch=None):
    """The disk as a kill leaves it after the source writes of an apply: before the journal
    commit (``committed=False``) or after it, before the intent was removed."""
    p = patch or patch_with_file()
    engine.apply(p, t)
    j = jr.load(t)
    entries = tuple(j.for_patch(p.name))
    if not committed:
        j.entries = []
        j.save()
    jr.begin(t, jr.Intent("apply", p.name, entries))
    return p, entries


def interrupted_revert(t: Target, restored: bool):
    p = patch_with_file()
    engine.apply(p, t)
    j = jr.load(t)
    entries = tuple(j.for_patch(p.name))
    jr.begin(t, jr.Intent("revert", p.name, entries))
    if restored:  # the kill came after the files were restored, before the journal was saved
        t.file(REL).write_text(BASE)
        t.file(NEW).unlink()
    return p, entries


def test_an_uncommitted_apply_is_rolled_back_from_the_kept_originals(toy):
    p, entries = interrupted_apply(toy, committed=False)
    assert toy.file(REL).read_text() != BASE and toy.file(NEW).exists()
    assert jr.pending(toy) and jr.snapshot(toy)[0] is True
    rec = jr.recover(toy)
    assert (rec.op, rec.patch, rec.action) == ("apply", p.name, "rolled back")
    assert set(rec.files) == {REL, NEW}
    assert toy.file(REL).read_text() == BASE and not toy.file(NEW).exists()
    assert not jr.intent_path(toy).exists() and jr.load(toy).entries == []
    assert not jr.pending(toy) and jr.recover(toy) is None  # idempotent: nothing left to do


def test_a_committed_apply_is_finished_not_undone(toy):
    p, entries = interrupted_apply(toy, committed=True)
    patched = toy.file(REL).read_bytes()
    rec = jr.recover(toy)
    assert (rec.op, rec.action, rec.files) == ("apply", "finished", ())
    assert toy.file(REL).read_bytes() == patched and toy.file(NEW).read_text() == TEXT
    assert jr.load(toy).for_patch(p.name) == list(entries)
    assert not jr.intent_path(toy).exists()


def test_a_rollback_skips_files_the_apply_had_not_reached(toy):
    p, entries = interrupted_apply(toy, committed=False)
    toy.file(REL).write_text(BASE)  # the kill came before this file was written
    rec = jr.recover(toy)
    assert rec.action == "rolled back" and rec.files == (NEW,)
    assert toy.file(REL).read_text() == BASE and not toy.file(NEW).exists()


def test_a_hand_edit_during_an_interrupted_apply_is_left_alone_and_named(toy):
    p, entries = interrupted_apply(toy, committed=False)
    toy.file(REL).write_text(BASE + "# hand edit\n")
    with pytest.raises(RecoveryError, match=f"{REL}: neither the original nor what the interrupted apply"):
        jr.recover(toy)
    assert toy.file(REL).read_text() == BASE + "# hand edit\n"
    assert jr.intent_path(toy).exists()  # the intent stays until a person decides


def test_a_hand_edited_created_file_is_not_removed(toy):
    p, entries = interrupted_apply(toy, committed=False)
    toy.file(NEW).write_text(TEXT + "# mine\n")
    with pytest.raises(RecoveryError, match=f"{NEW}: changed by hand after an interrupted apply"):
        jr.recover(toy)
    assert toy.file(NEW).read_text() == TEXT + "# mine\n"


@pytest.mark.parametrize("restored", [False, True])
def test_an_interrupted_revert_is_finished(toy, restored):
    p, entries = interrupted_revert(toy, restored)
    rec = jr.recover(toy)
    assert (rec.op, rec.patch, rec.action) == ("revert", p.name, "finished")
    assert set(rec.files) == {REL, NEW}
    assert toy.file(REL).read_text() == BASE and not toy.file(NEW).exists()
    assert jr.load(toy).entries == [] and not jr.intent_path(toy).exists()
    assert engine.apply(p, toy).outcome is Outcome.APPLIED  # and the tree works as before


def test_a_revert_whose_journal_was_saved_only_drops_the_intent(toy):
    p, entries = interrupted_revert(toy, restored=True)
    j = jr.load(toy)
    j.entries = []
    j.save()
    before = jr.snapshot(toy)
    rec = jr.recover(toy)
    assert rec.action == "finished" and jr.load(toy).entries == []
    assert jr.snapshot(toy)[1] == before[1]  # the journal was not rewritten


def test_an_interrupted_revert_keeps_the_other_patches_entries(toy):
    other = Patch("toy-other", "1.0", "toy", "toy", SpecifierSet(">=1.0,<2"),
                  lambda v, r: Strategy("only", (new_file_edit("toy/extra.py", "X = 1\n", "add extra"),), "toy"))
    engine.apply(other, toy)
    p, entries = interrupted_revert(toy, restored=False)
    jr.recover(toy)
    assert [e.patch for e in jr.load(toy).entries] == ["toy-other"]
    assert toy.file("toy/extra.py").read_text() == "X = 1\n" and toy.file(REL).read_text() == BASE


def test_temp_files_of_an_interrupted_write_are_removed(toy):
    p, entries = interrupted_apply(toy, committed=True)
    stray = toy.file(REL).parent / f".worker.py.1.2{fsutil.TMP_SUFFIX}"
    stray.write_bytes(b"half")
    other = toy.file(REL).parent / f".unrelated.py.1.2{fsutil.TMP_SUFFIX}"
    other.write_bytes(b"not ours")
    jr.recover(toy)
    assert not stray.exists() and other.exists()


def test_status_reports_what_it_recovered_first(toy):
    p, entries = interrupted_apply(toy, committed=False)
    rows = engine.status([p], toy)
    assert rows[0].patch == "(journal)" and rows[0].state == "recovered"
    assert "rolled back" in rows[0].detail and p.name in rows[0].detail
    assert rows[1].state == "not-applied"


def test_an_intent_is_written_durably_and_read_back(toy):
    p = patch_with_file()
    engine.apply(p, toy)
    entries = tuple(jr.load(toy).entries)
    jr.begin(toy, jr.Intent("revert", p.name, entries))
    doc = json.loads(jr.intent_path(toy).read_text())
    assert doc["schema"] == jr.SCHEMA and doc["op"] == "revert" and len(doc["entries"]) == 2
    assert jr.read_intent(toy) == jr.Intent("revert", p.name, entries)
    jr.end(toy)
    assert jr.read_intent(toy) is None and not jr.pending(toy)


def test_created_entries_and_state_paths(toy):
    p = patch_with_file()
    engine.apply(p, toy)
    j = jr.load(toy)
    created = [e for e in j.entries if e.created]
    assert [e.file for e in created] == [NEW] and created[0].sha_before == jr.CREATED
    assert j.state_dir == toy.root / ".patchkit" and j.root == toy.root
    assert jr.journal_path(toy) == toy.root / ".patchkit" / "journal.json"
    assert j.original_path("a" * 64) == toy.root / ".patchkit" / "originals" / ("a" * 64)
    assert set(os.listdir(toy.root / ".patchkit" / "originals")) == {e.sha_before for e in j.entries if not e.created}


def test_apply_reports_what_it_recovered_first(toy):
    p, entries = interrupted_apply(toy, committed=False)
    r = engine.apply(p, toy, dry_run=True)  # a dry run recovers too (it takes the lock only for that)
    assert r.outcome is Outcome.WOULD_APPLY and r.recovered.action == "rolled back"
    engine.apply(p, toy)
    j = jr.load(toy)
    j.entries = []
    j.save()
    jr.begin(toy, jr.Intent("apply", p.name, entries))  # uncommitted again
    r = engine.apply(p, toy)
    assert r.outcome is Outcome.APPLIED and r.recovered.action == "rolled back" and r.recovered.patch == p.name


def test_already_applied_reports_a_finished_recovery(toy):
    p, entries = interrupted_apply(toy, committed=True)
    r = engine.apply(p, toy)
    assert r.outcome is Outcome.ALREADY_APPLIED and r.recovered.action == "finished"


def test_an_unreadable_journal_is_one_journal_error(toy, monkeypatch):
    from patchkit.ftypes import JournalError
    engine.apply(make_patch(), toy)

    def denied(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(jr, "read_nofollow", denied)
    with pytest.raises(JournalError) as info:
        jr.load(toy)
    assert str(info.value) == f"{jr.journal_path(toy)}: unreadable (Permission denied)"
