"""Tests written to kill mutants that the rest of the suite let live (issue 21, item 7): the
durability protocol of ``atomic_write`` (fsync the temp file, rename over, fsync the folder),
the hash check of a kept original before a revert, and the drift error when a patch is half
present. Each test names the mutant it kills; bench/mutation.py runs them against mutants."""
from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from patchkit import engine, fsutil, journal as jr
from patchkit.ftypes import (DiskFull, DriftError, JournalError, NotWritable, Outcome, OutsideTarget, Target,
                             TargetKind, WriteFailed)
from patchkit.patchdef import Patch, Strategy

from test_engine import BASE, REL, make_patch


@pytest.fixture
def toy(tmp_path) -> Target:
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    return Target("toy", "1.2", tmp_path, TargetKind.DIRECTORY)


def _kind(fd: int) -> str:
    mode = os.fstat(fd).st_mode
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


@pytest.fixture
def syscalls(monkeypatch):
    """Record fsync / replace / write calls in order (the real calls still run)."""
    log: list[tuple] = []
    real_fsync, real_replace, real_write = os.fsync, os.replace, os.write

    def fsync(fd):
        log.append(("fsync", _kind(fd), os.readlink(f"/proc/self/fd/{fd}")))
        return real_fsync(fd)

    def replace(src, dst, *a, **k):
        log.append(("replace", str(src), str(dst)))
        return real_replace(src, dst, *a, **k)

    def write(fd, data):
        log.append(("write", os.readlink(f"/proc/self/fd/{fd}")))
        return real_write(fd, data)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "write", write)
    return log


# ---------------------------------------------------------------------------- fsutil.atomic_write
@pytest.mark.parametrize("exists", [True, False])
def test_atomic_write_fsyncs_the_data_before_the_rename_and_the_folder_after(tmp_path, syscalls, exists):
    """Kills: atomic_write skipping the fsync of the temp file (or of the folder)."""
    dest = tmp_path / "f.py"
    if exists:
        dest.write_bytes(b"old\n")
    fsutil.atomic_write(dest, b"new\n")
    assert dest.read_bytes() == b"new\n"
    ops = [x[0] for x in syscalls]
    assert "replace" in ops, syscalls
    r = ops.index("replace")
    tmp = syscalls[r][1]
    assert syscalls[r][2] == str(dest) and tmp != str(dest) and tmp.endswith(fsutil.TMP_SUFFIX)
    # the data reached the disk before the name points at it ...
    assert ("fsync", "file", tmp) in syscalls[:r], syscalls
    # ... and every write went to the temp file, never to the destination
    assert all(x[1] == tmp for x in syscalls if x[0] == "write"), syscalls
    # the rename itself is made durable by an fsync of the folder, after it
    assert ("fsync", "dir", str(tmp_path)) in syscalls[r + 1:], syscalls


def test_atomic_write_not_durable_skips_every_fsync(tmp_path, syscalls):
    fsutil.atomic_write(tmp_path / "f", b"x", durable=False)
    assert [x for x in syscalls if x[0] == "fsync"] == []
    assert (tmp_path / "f").read_bytes() == b"x"


def test_atomic_write_renames_over_the_target_instead_of_writing_it_in_place(tmp_path):
    """Kills: writing the target in place. A rename leaves the old inode (and every hard link or
    open descriptor on it) with the old bytes; an in-place write would change them."""
    dest = tmp_path / "f.py"
    dest.write_bytes(b"old contents\n")
    link = tmp_path / "hardlink"
    os.link(dest, link)
    ino = os.stat(dest).st_ino
    with open(dest, "rb") as reader:
        fsutil.atomic_write(dest, b"new\n")
        assert reader.read() == b"old contents\n"  # a reader that opened before sees the old bytes whole
    assert dest.read_bytes() == b"new\n"
    assert os.stat(dest).st_ino != ino
    assert link.read_bytes() == b"old contents\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(fsutil.TMP_SUFFIX)] == []


def test_atomic_write_keeps_the_mode_or_applies_the_given_one(tmp_path):
    dest = tmp_path / "f.py"
    dest.write_bytes(b"a")
    os.chmod(dest, 0o640)
    fsutil.atomic_write(dest, b"b")
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o640
    fsutil.atomic_write(dest, b"c", mode=0o600)
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o600
    fsutil.atomic_write(tmp_path / "new", b"d")
    assert stat.S_IMODE(os.stat(tmp_path / "new").st_mode) == 0o644


@pytest.mark.parametrize("err,kind", [(errno.ENOSPC, DiskFull), (errno.EDQUOT, DiskFull), (errno.EACCES, NotWritable),
                                      (errno.EROFS, NotWritable), (errno.EPERM, NotWritable), (errno.EIO, WriteFailed)])
def test_a_failed_write_leaves_the_old_bytes_and_no_temp_file(tmp_path, monkeypatch, err, kind):
    """A write that fails half way: the destination still holds the old bytes (never a mix)."""
    dest = tmp_path / "f.py"
    dest.write_bytes(b"old\n" * 100)
    real_write = os.write
    calls = []

    def failing_write(fd, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(err, os.strerror(err))
        return real_write(fd, bytes(data[:3]))  # a short write first, then the failure

    monkeypatch.setattr(os, "write", failing_write)
    with pytest.raises(kind) as info:
        fsutil.atomic_write(dest, b"new\n" * 100)
    assert str(dest) in str(info.value) and "\n" not in str(info.value)
    monkeypatch.undo()
    assert dest.read_bytes() == b"old\n" * 100
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.py"]


def test_write_all_finishes_after_short_writes(tmp_path, monkeypatch):
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data[:2])))
    fsutil.atomic_write(tmp_path / "f", b"0123456789")
    monkeypatch.undo()
    assert (tmp_path / "f").read_bytes() == b"0123456789"


def test_remove_says_whether_the_file_was_there(tmp_path, syscalls):
    f = tmp_path / "f"
    f.write_bytes(b"x")
    assert fsutil.remove(f) is True and not f.exists()
    assert ("fsync", "dir", str(tmp_path)) in syscalls
    assert fsutil.remove(f) is False


def test_check_rel_and_inside(tmp_path):
    assert fsutil.check_rel("a/b.py") is None
    for bad in ("", "/a", "a/../b", "a//b", "./a", "a\\b", "a\x00b", 3, None, "a/.", ".."):
        assert fsutil.check_rel(bad), bad
    (tmp_path / "a").mkdir()
    assert fsutil.inside(tmp_path, "a/b.py") == tmp_path / "a" / "b.py"
    outside = tmp_path.parent / (tmp_path.name + "-out")
    outside.mkdir(exist_ok=True)
    try:
        (tmp_path / "esc").symlink_to(outside)
        with pytest.raises(OutsideTarget, match="outside the target root"):
            fsutil.inside(tmp_path, "esc/x.py")
        (tmp_path / "a" / "ln").symlink_to(tmp_path / "a" / "b.py")
        with pytest.raises(OutsideTarget, match="symlink"):
            fsutil.inside(tmp_path, "a/ln")
    finally:
        os.rmdir(outside)


def test_real_dir_and_read_nofollow(tmp_path):
    assert fsutil.real_dir(tmp_path / "d") is False and not (tmp_path / "d").exists()
    assert fsutil.real_dir(tmp_path / "d", create=True) is True and (tmp_path / "d").is_dir()
    (tmp_path / "f").write_bytes(b"data")
    with pytest.raises(OutsideTarget, match="not a folder"):
        fsutil.real_dir(tmp_path / "f")
    (tmp_path / "l").symlink_to(tmp_path / "d")
    with pytest.raises(OutsideTarget, match="symlink"):
        fsutil.real_dir(tmp_path / "l")
    assert fsutil.read_nofollow(tmp_path / "f") == b"data"
    (tmp_path / "lf").symlink_to(tmp_path / "f")
    with pytest.raises(OutsideTarget, match="symlink"):
        fsutil.read_nofollow(tmp_path / "lf")
    with pytest.raises(OutsideTarget, match="not a regular file"):
        fsutil.read_nofollow(tmp_path / "d")
    big = os.urandom((1 << 20) + 17)  # more than one read chunk
    (tmp_path / "big").write_bytes(big)
    assert fsutil.read_nofollow(tmp_path / "big") == big


def test_write_error_maps_errno_to_the_error_class(tmp_path):
    p = tmp_path / "x"
    assert isinstance(fsutil.write_error(p, OSError(errno.ENOSPC, "full")), DiskFull)
    assert isinstance(fsutil.write_error(p, OSError(errno.EROFS, "ro")), NotWritable)
    e = fsutil.write_error(p, OSError(errno.EIO, "io"), "reading")
    assert type(e) is WriteFailed and str(e) == f"{p}: io while reading"


def test_cache_dir_order(monkeypatch, tmp_path):
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert fsutil.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("PATCHKIT_CACHE_DIR")
    assert fsutil.cache_dir() == tmp_path / "x" / "patchkit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert fsutil.cache_dir() == tmp_path / "h" / ".cache" / "patchkit"


def test_check_writable_names_the_path(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"")
    fsutil.check_writable(f)
    if os.geteuid() == 0:
        pytest.skip("root can write read-only files; the permission branch needs a normal user")
    os.chmod(f, 0o444)
    try:
        with pytest.raises(NotWritable, match="file is not writable"):
            fsutil.check_writable(f)
    finally:
        os.chmod(f, 0o644)


def test_file_lock_writes_the_pid_and_removes_the_file(tmp_path):
    lock = tmp_path / "state" / "lock"
    with fsutil.file_lock(lock, timeout=1):
        assert lock.read_text() == str(os.getpid())
    assert not lock.exists() and not lock.parent.exists()  # a folder it made is removed when empty


# ---------------------------------------------------------------------------- journal: kept originals
def test_revert_refuses_a_corrupted_kept_original_and_leaves_the_file_patched(toy):
    """Kills: no hash check of a kept original before revert (a corrupted original would be
    written over the source as if it were the upstream file)."""
    p = make_patch()
    engine.apply(p, toy)
    patched = toy.file(REL).read_bytes()
    e = jr.load(toy).entries[0]
    orig = toy.root / ".patchkit" / "originals" / e.sha_before
    assert orig.read_bytes() == BASE.encode()
    orig.write_bytes(BASE.encode().replace(b"toy", b"TOY"))  # bit rot / a hand edit of the kept copy
    with pytest.raises(JournalError, match="corrupted"):
        engine.revert(p, toy)
    assert toy.file(REL).read_bytes() == patched
    assert jr.load(toy).for_patch(p.name)  # still journalled: nothing was half done
    with pytest.raises(JournalError, match="corrupted"):
        jr.load(toy).original(e.sha_before)


def test_a_missing_kept_original_is_a_journal_error(toy):
    p = make_patch()
    engine.apply(p, toy)
    e = jr.load(toy).entries[0]
    (toy.root / ".patchkit" / "originals" / e.sha_before).unlink()
    with pytest.raises(JournalError, match="missing"):
        engine.revert(p, toy)
    with pytest.raises(JournalError, match="not a sha256"):
        jr.load(toy).original("../../etc/passwd")


def test_keep_original_rewrites_a_damaged_copy(toy):
    j = jr.load(toy)
    sha = j.keep_original(b"abc")
    path = toy.root / ".patchkit" / "originals" / sha
    path.write_bytes(b"abd")
    assert j.keep_original(b"abc") == sha and path.read_bytes() == b"abc"
    assert j.original(sha) == b"abc"


def test_journal_round_trip_and_version_binding(toy):
    p = make_patch()
    engine.apply(p, toy)
    j = jr.load(toy, must_exist=True)
    assert [e.patch for e in j.entries] == [p.name] and j.patches() == [p.name]
    assert j.for_file(REL) == j.entries and j.for_file("other.py") == []
    moved = Target("toy", "1.3", toy.root, TargetKind.DIRECTORY)
    with pytest.raises(JournalError, match="written for toy 1.2"):
        jr.load(moved)
    assert jr.load(moved, check_version=False).entries == j.entries
    with pytest.raises(JournalError, match="no journal"):
        jr.load(Target("toy", "1.2", toy.root / "toy", TargetKind.DIRECTORY), must_exist=True)


@pytest.mark.parametrize("doc,why", [
    ({"schema": 2, "distribution": "toy", "version": "1.2", "entries": []}, "unknown schema"),
    ({"schema": True, "distribution": "toy", "version": "1.2", "entries": []}, "unknown schema"),
    ({"schema": 1, "distribution": 1, "version": "1.2", "entries": []}, "'distribution' must be a string"),
    ({"schema": 1, "distribution": "toy", "version": None, "entries": []}, "'version' must be a string"),
    ({"schema": 1, "distribution": "toy", "version": "1.2", "entries": {}}, "'entries' must be a list"),
    ([], "unknown schema"),
])
def test_a_malformed_journal_document_is_one_journal_error(toy, doc, why):
    jp = toy.root / ".patchkit" / "journal.json"
    jp.parent.mkdir()
    jp.write_text(json.dumps(doc))
    with pytest.raises(JournalError, match=why):
        jr.load(toy)


def test_a_malformed_intent_is_a_recovery_error(toy):
    from patchkit.ftypes import RecoveryError
    sd = toy.root / ".patchkit"
    sd.mkdir()
    (sd / "intent.json").write_text(json.dumps({"schema": 1, "op": "delete", "patch": "p", "entries": []}))
    assert jr.pending(toy)
    with pytest.raises(RecoveryError, match="'op' must be apply or revert"):
        jr.recover(toy)
    (sd / "intent.json").write_text(json.dumps({"schema": 9, "op": "apply", "patch": "p", "entries": []}))
    with pytest.raises(RecoveryError, match="unknown schema"):
        jr.recover(toy)


def test_leftover_temp_files_are_pending_and_removed(toy):
    sd = toy.root / ".patchkit"
    (sd / "originals").mkdir(parents=True)
    assert not jr.pending(toy)
    tmp = sd / "originals" / f".x.1.2{fsutil.TMP_SUFFIX}"
    tmp.write_bytes(b"half")
    assert jr.pending(toy)
    assert jr.recover(toy) is None  # nothing to recover beyond the temp file
    assert not tmp.exists() and not jr.pending(toy)


# ---------------------------------------------------------------------------- engine: half present
def two_edit_patch() -> Patch:
    """One file, two edits: ``self.limit = 4`` and ``self.cap = 4`` after ``self.steps = a``."""
    edits = make_patch(attr="limit").plan("1.2", lambda r: None).edits \
        + make_patch(attr="cap").plan("1.2", lambda r: None).edits
    return Patch("toy-two", "1.0", "toy", "toy", SpecifierSet(">=1.0,<2"),
                 lambda v, r: Strategy("only", edits, "toy"))


def test_a_half_present_patch_is_drift_and_nothing_is_written(toy):
    """Kills: no drift error when a patch is half present (apply would add the missing half on
    top of a hand edit, or a second copy of the present one)."""
    p = two_edit_patch()
    half = BASE.replace("        self.steps = a\n\n    def forward",
                        "        self.steps = a\n        self.limit = 4\n\n    def forward")
    assert half != BASE
    toy.file(REL).write_text(half)
    for dry in (True, False):
        with pytest.raises(DriftError, match=r"partially present \(assign self.limit\)") as info:
            engine.apply(p, toy, dry_run=dry)
        assert REL in str(info.value) and p.name in str(info.value)
        assert toy.file(REL).read_text() == half
    assert not (toy.root / ".patchkit" / "journal.json").exists()
    rows = engine.status([p], toy)
    assert rows[0].state == "refused" and "partially present" in rows[0].detail
    with pytest.raises(DriftError, match="carries part of it"):  # revert does not claim 'not applied'
        engine.revert(p, toy)


def test_two_edits_apply_and_revert_whole(toy):
    p = two_edit_patch()
    assert engine.apply(p, toy).outcome is Outcome.APPLIED
    text = toy.file(REL).read_text()
    assert text.count("self.limit = 4") == 1 and text.count("self.cap = 4") == 1
    assert engine.transform(p, toy)[2] == "applied"
    assert engine.apply(p, toy).outcome is Outcome.ALREADY_APPLIED
    assert engine.revert(p, toy).outcome is Outcome.REVERTED
    assert toy.file(REL).read_text() == BASE
    assert engine.transform(p, toy)[2] == "pending"


# ---------------------------------------------------------------------------- survivors of the mutmut run
def test_remove_names_the_path_when_it_cannot_unlink(tmp_path, monkeypatch):
    f = tmp_path / "f"
    f.write_bytes(b"x")

    def unlink(path, *a, **k):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "unlink", unlink)
    with pytest.raises(WriteFailed) as info:
        fsutil.remove(f)
    assert str(info.value) == f"{f}: Input/output error while removing it"


def test_journal_entry_fields_are_validated_by_name(toy):
    good = {"patch": "p", "patch_version": "1", "strategy": "s", "distribution": "toy", "target_version": "1.2",
            "file": REL, "sha_before": "0" * 64, "sha_after": "1" * 64, "anchors": [], "time": "t"}
    assert jr.validate_entry(dict(good)).file == REL
    for change, why in [({"patch": ""}, "'patch' must be a string, got ''"),
                        ({"strategy": 3}, "'strategy' must be a string, got 3"),
                        ({"extra": 1}, "unknown field(s) extra"),
                        ({"sha_after": "created"}, "'sha_after' must be a sha256"),
                        ({"sha_before": "created"}, None)]:
        d = dict(good, **change)
        if why is None:
            assert jr.validate_entry(d).created
            continue
        with pytest.raises(ValueError) as info:
            jr.validate_entry(d)
        assert str(info.value).startswith(why)
    d = dict(good)
    del d["time"]
    with pytest.raises(ValueError, match="missing field"):
        jr.validate_entry(d)
    with pytest.raises(ValueError, match="must be an object, got list"):
        jr.validate_entry([])


@pytest.mark.parametrize("raw,name", [(5, "?"), (["p"], "?"), ({"patch": 7}, "?"), ({"patch": "mine"}, "mine")])
def test_a_bad_journal_entry_names_its_index_and_patch(toy, raw, name):
    jp = toy.root / ".patchkit" / "journal.json"
    jp.parent.mkdir()
    jp.write_text(json.dumps({"schema": 1, "distribution": "toy", "version": "1.2", "entries": [raw]}))
    with pytest.raises(JournalError) as info:
        jr.load(toy)
    assert f"journal entry 0 (patch {name}): " in str(info.value)


def test_a_rollback_refusal_names_the_current_hash(toy):
    from patchkit.ftypes import RecoveryError
    p = make_patch()
    engine.apply(p, toy)
    j = jr.load(toy)
    entries = tuple(j.entries)
    j.entries = []
    j.save()
    jr.begin(toy, jr.Intent("apply", p.name, entries))
    toy.file(REL).write_text("# someone else\n")
    with pytest.raises(RecoveryError) as info:
        jr.recover(toy)
    assert f"(sha256 {fsutil.sha256_bytes(b'# someone else' + bytes([10]))[:12]})" in str(info.value)
    assert str(j.original_path(entries[0].sha_before)) in str(info.value)


def test_diff_is_the_unified_diff_of_the_original(toy):
    import difflib
    p = make_patch()
    engine.apply(p, toy)
    after = toy.file(REL).read_text()
    want = "".join(difflib.unified_diff(BASE.splitlines(True), after.splitlines(True), f"a/{REL}", f"b/{REL}"))
    assert engine.diff(p, toy) == want and "+        self.limit = 4\n" in want
    with pytest.raises(JournalError, match="is not applied"):
        engine.diff(make_patch(name="other"), toy)


def test_dry_run_revert_says_what_it_would_do_and_writes_nothing(toy):
    p = make_patch()
    engine.apply(p, toy)
    patched = toy.file(REL).read_bytes()
    r = engine.revert(p, toy, dry_run=True)
    assert r.outcome is Outcome.WOULD_APPLY and r.reason == "would revert" and r.strategy == "only"
    assert [(c.rel, c.after) for c in r.changes] == [(REL, BASE)]
    assert toy.file(REL).read_bytes() == patched and jr.load(toy).for_patch(p.name)


def test_revert_of_an_applied_but_unjournalled_patch_is_drift(toy):
    p = make_patch()
    engine.apply(p, toy)
    import shutil
    shutil.rmtree(toy.root / ".patchkit")  # as if applied by hand
    with pytest.raises(DriftError, match=r"carries it \(applied\)"):
        engine.revert(p, toy)
    rows = engine.status([p], toy)
    assert [(r.state, r.files) for r in rows] == [("applied-unjournalled", (REL,))]


def test_status_reads_once_when_nothing_changes(toy, monkeypatch):
    p = make_patch()
    engine.apply(p, toy)
    calls = []
    real = engine._status_rows
    monkeypatch.setattr(engine, "_status_rows", lambda *a: calls.append(1) or real(*a))
    rows = engine.status([p], toy)
    assert len(calls) == 1 and rows[0].state == "applied"


def test_status_rows_for_each_kind_of_patch(toy):
    applied, refused, other_dist = make_patch(), make_patch(name="old", spec="<1.0"), make_patch(name="x")
    other_dist = dataclasses_replace(other_dist, distribution="other")
    pending = make_patch(name="pend", attr="cap", method="__init__")
    engine.apply(applied, toy)
    rows = engine.status([refused, applied, other_dist], toy)
    assert [(r.patch, r.state) for r in rows] == [("old", "refused"), ("toy-threshold", "applied")]
    assert rows[0].detail.startswith("patch old supports toy<1.0")
    assert rows[1].files == (REL,) and rows[1].strategy == "only"
    toy.file(REL).write_text(toy.file(REL).read_text() + "# edit\n")
    rows = engine.status([applied], toy)
    assert rows[0].state == "drifted" and rows[0].detail == f"changed since apply: {REL}" and rows[0].files == (REL,)
    engine.revert(applied, toy, force=True)
    rows = engine.status([pending], toy)
    assert rows[0].state == "not-applied" and rows[0].files == (REL,)


def test_status_of_a_journal_entry_through_a_symlink_is_an_error_row(toy, tmp_path_factory):
    p = make_patch()
    engine.apply(p, toy)
    outside = tmp_path_factory.mktemp("outside")
    (outside / "worker.py").write_text("x = 1\n")
    real = toy.root / "toy"
    real.rename(toy.root / "toy-real")
    (toy.root / "toy").symlink_to(outside)
    rows = engine.status([p], toy)
    assert rows[0].state == "error" and "outside the target root" in rows[0].detail


def test_status_partial_names_what_is_done_and_what_is_not(toy):
    from test_engine_new_file import NEW, patch_with_file
    p = patch_with_file()
    engine.apply(p, toy)
    import shutil
    shutil.rmtree(toy.root / ".patchkit")
    toy.file(NEW).unlink()
    rows = engine.status([p], toy)
    assert rows[0].state == "partial"
    assert rows[0].detail == f"not journalled: {REL} carry the patch, {NEW} do not (apply finishes it)"


def dataclasses_replace(obj, **kw):
    import dataclasses
    return dataclasses.replace(obj, **kw)


def test_a_check_finding_stops_the_apply_and_names_the_first_finding(toy):
    from patchkit import codemod as cm
    from patchkit.ftypes import Anchor, CheckFailed
    from patchkit.patchdef import Edit

    def transform(module):
        fn = cm.find_method(REL, module, "Worker", "__init__")
        return cm.insert(module, cm.find_stmt(REL, fn, cm.assigns_self_attr("steps"), "Worker.__init__"),
                         cm.statements("self.limit = self.cap"), after=True)

    def applied(module):
        return "self.limit = self.cap" in module.code

    edit = Edit(REL, "read cap", (Anchor(REL, "Worker", "__init__", "self.steps = ..."),), transform, applied)
    p = Patch("toy-bad-read", "1.0", "toy", "toy", SpecifierSet(">=1.0,<2"), lambda v, r: Strategy("only", (edit,), "toy"))
    for dry in (True, False):
        with pytest.raises(CheckFailed) as info:
            engine.apply(p, toy, dry_run=dry)
        msg = str(info.value)
        assert msg.startswith("patch toy-bad-read: check failed on the patched code, nothing written: ")
        assert "self.cap" in msg and "(+" not in msg
    assert toy.file(REL).read_text() == BASE and not (toy.root / ".patchkit" / "journal.json").exists()
    assert engine.apply(p, toy, run_check=False).outcome is Outcome.APPLIED  # the check is what refused it


def test_apply_checks_every_file_is_writable_before_it_starts(toy, monkeypatch):
    seen = []

    def not_writable(path):
        seen.append(path)
        raise NotWritable(f"{path}: file is not writable")

    monkeypatch.setattr(engine, "check_writable", not_writable)
    base = make_patch()
    reading = dataclasses_replace(base, select=lambda v, read: read(REL) and base.select(v, read))  # plans read the code
    with pytest.raises(NotWritable):
        engine.apply(reading, toy)
    assert seen == [toy.root / REL]
    assert not (toy.root / ".patchkit").exists() and toy.file(REL).read_text() == BASE  # refused before the lock


def test_reader_prefers_the_overlay(toy):
    read = engine.reader(toy, {REL: "OVERLAY", "toy/new.py": "NEW"})
    assert read(REL) == "OVERLAY" and read("toy/new.py") == "NEW"
    assert engine.reader(toy)(REL) == BASE and engine.reader(toy)("toy/absent.py") is None


def test_atomic_write_does_not_collide_with_stale_temp_files(tmp_path):
    """A stale temp file of an earlier process with the same pid must not block the write: the
    temp name carries a clock value wide enough that a few stale names never all collide."""
    dest = tmp_path / "f.py"
    stale = [tmp_path / f".f.py.{os.getpid()}.{k * 9}{fsutil.TMP_SUFFIX}" for k in range(10)]
    stale += [tmp_path / f".f.py.{os.getpid()}.{k}{fsutil.TMP_SUFFIX}" for k in range(100)]
    for s in stale:
        s.write_bytes(b"stale")
    for i in range(5):
        fsutil.atomic_write(dest, b"v%d" % i)
        assert dest.read_bytes() == b"v%d" % i
    assert all(s.read_bytes() == b"stale" for s in stale)
