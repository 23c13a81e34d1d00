"""Issue 17's bad inputs: each is a one-line error with a documented exit code (never a
traceback), changes nothing, leaves no lock; and containment: nothing is written outside the target."""
from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from patchkit import engine, fsutil, journal as jr
from patchkit.ftypes import (DiskFull, DriftError, FileTooLarge, JournalError, NotWritable, Outcome, OutsideTarget,
                             PatchkitError, SourceEncodingError, Target, TargetKind, UsageError)

from test_engine import BASE, REL, make_patch
from test_engine_new_file import NEW, patch_with_file

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def toy(tmp_path) -> Target:
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    return Target("toy", "1.2", tmp_path, TargetKind.DIRECTORY)


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text
    return text


def no_leftovers(t: Target) -> None:
    sd = t.root / ".patchkit"
    assert not (sd / "lock").exists()
    assert not (sd / "intent.json").exists()
    assert [p for p in t.root.rglob("*") if p.name.endswith(".patchkit-tmp")] == []


# ---------------------------------------------------------------------------- disk full
def _enospc_on(monkeypatch, when):
    real = os.write

    def write(fd, data):
        try:
            where = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            where = ""
        if when(where):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize("where", ["originals", "intent.json", "worker.py", "runtime_helper.py", "journal.json"])
def test_disk_full_at_each_write_of_apply_is_one_line_and_rolled_back(toy, monkeypatch, where):
    p = patch_with_file()
    _enospc_on(monkeypatch, lambda path: where in path)
    with pytest.raises(DiskFull) as exc:
        engine.apply(p, toy)
    assert "no space left on the device" in one_line(exc.value) and exc.value.exit_code == 2
    monkeypatch.undo()
    assert toy.file(REL).read_text() == BASE and not toy.file(NEW).exists()
    no_leftovers(toy)
    assert engine.apply(p, toy).outcome is Outcome.APPLIED  # and the next apply just works


def test_disk_full_during_revert_is_finished_by_the_next_command(toy, monkeypatch):
    p = patch_with_file()
    engine.apply(p, toy)
    _enospc_on(monkeypatch, lambda path: "journal.json" in path)
    with pytest.raises(DiskFull, match="the next patchkit command finishes it"):
        engine.revert(p, toy)
    monkeypatch.undo()
    rows = engine.status([p], toy)
    assert rows[0].state == "recovered" and "finished an interrupted revert of toy-with-file" in rows[0].detail
    assert rows[1].state == "not-applied"
    assert toy.file(REL).read_text() == BASE and not toy.file(NEW).exists()
    no_leftovers(toy)


def test_disk_full_on_fsync_is_a_disk_full_error(toy, monkeypatch):
    def fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(DiskFull):
        engine.apply(make_patch(), toy)
    monkeypatch.undo()
    assert toy.file(REL).read_text() == BASE
    no_leftovers(toy)


@pytest.fixture
def tmpfs(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root/CAP_SYS_ADMIN): {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "patchkit", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, cwd=ROOT)


def _sglang_toy(root: Path) -> Path:
    """A folder the CLI resolves as sglang 0.5.16 (no patch applies to it: enough for bad inputs)."""
    (root / "sglang").mkdir(parents=True, exist_ok=True)
    (root / "sglang" / "version.py").write_text("__version__ = '0.5.16'\n")
    (root / "toy").mkdir(exist_ok=True)
    (root / REL).write_text(BASE)
    return root


def test_real_disk_full_on_a_small_tmpfs(tmpfs):
    t = Target("toy", "1.2", tmpfs, TargetKind.DIRECTORY)
    (tmpfs / "toy").mkdir()
    (tmpfs / REL).write_text(BASE)
    filler = tmpfs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # fill the device to the last byte
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    with pytest.raises(DiskFull) as exc:
        engine.apply(patch_with_file(), t)
    one_line(exc.value)
    assert t.file(REL).read_text() == BASE and not t.file(NEW).exists()
    no_leftovers(t)
    filler.unlink()
    assert engine.apply(patch_with_file(), t).outcome is Outcome.APPLIED


def test_read_only_tree_revert_is_one_line_and_leaves_no_lock(tmpfs):
    """A read-only mount refuses root too (EROFS): the CLI says so in one line, exit 2."""
    root = _sglang_toy(tmpfs)
    t = Target("toy", "1.2", root, TargetKind.DIRECTORY)
    engine.apply(make_patch(), t)
    r = subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot remount read-only: {r.stderr.strip()}")
    with pytest.raises(NotWritable) as exc:
        engine.revert(make_patch(), t)
    assert "read-only" in one_line(exc.value).lower()
    res = _cli("revert", "dynamic-spec-disable", "--target-dir", str(root))
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.startswith("error:") and len(res.stderr.strip().splitlines()) == 1
    assert not (root / ".patchkit" / "lock").exists()


def test_revert_as_non_root_on_a_read_only_tree(toy, monkeypatch):
    """A non-root user cannot open .patchkit/lock for writing: simulated by the errno the kernel
    gives (running Python as another user is not possible here: the interpreter lives under /root)."""
    p = make_patch()
    engine.apply(p, toy)
    real = os.open

    def deny(path, flags, *a, **k):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and str(path).startswith(str(toy.root)):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(NotWritable) as exc:
        engine.revert(p, toy)
    assert ".patchkit/lock" in one_line(exc.value) and exc.value.exit_code == 2
    monkeypatch.undo()
    assert not (toy.root / ".patchkit" / "lock").exists()
    assert "self.limit = 4" in toy.file(REL).read_text()


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv")
def test_non_root_user_gets_one_line(tmp_path):
    """With setpriv: a real unprivileged user, when it can run this Python at all."""
    probe = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", "import click, libcst, rich"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"an unprivileged user cannot run {sys.executable}: {probe.stderr.strip()[:120]}")
    root = _sglang_toy(tmp_path / "t")
    t = Target("toy", "1.2", root, TargetKind.DIRECTORY)
    engine.apply(make_patch(), t)
    os.chmod(tmp_path, 0o755)
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                        "patchkit", "revert", "dynamic-spec-disable", "--target-dir", str(root)],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd="/")
    assert r.returncode == 2 and "Traceback" not in r.stderr


# ---------------------------------------------------------------------------- encodings and sizes
LATIN1 = "# -*- coding: latin-1 -*-\n" + BASE.replace('"""toy"""', '"""caf\u00e9"""')


@pytest.mark.parametrize("data,why", [
    (LATIN1.encode("latin-1"), "declares '# coding: latin-1'"),
    (b"\xef\xbb\xbf" + BASE.encode(), "byte-order mark"),
    (BASE.encode().replace(b'"""toy"""', b'"""\xff"""'), "not valid UTF-8"),
])
def test_non_utf8_sources_are_one_line_errors(toy, data, why):
    toy.file(REL).write_bytes(data)
    for call in (lambda: engine.apply(make_patch(), toy), lambda: engine.apply(make_patch(), toy, dry_run=True)):
        with pytest.raises(SourceEncodingError) as exc:
            call()
        assert why in one_line(exc.value) and REL in str(exc.value) and exc.value.exit_code == 2
    rows = engine.status([make_patch()], toy)
    assert rows[0].state == "error" and why in rows[0].detail
    assert toy.file(REL).read_bytes() == data
    no_leftovers(toy)


def test_utf8_coding_cookie_and_ascii_latin1_cookie_are_fine(toy):
    toy.file(REL).write_text("# -*- coding: utf-8 -*-\n" + BASE.replace('"""toy"""', '"""caf\u00e9"""'))
    assert engine.apply(make_patch(), toy).outcome is Outcome.APPLIED
    toy.file(REL).write_text("# coding: latin-1\n" + BASE)
    shutil.rmtree(toy.root / ".patchkit")
    assert engine.apply(make_patch(), toy).outcome is Outcome.APPLIED


def test_size_limit_refuses_before_parsing(toy, monkeypatch):
    toy.file(REL).write_text(BASE + "#" * 5000 + "\n")
    monkeypatch.setenv(engine.MAX_FILE_BYTES_ENV, "4096")
    with pytest.raises(FileTooLarge, match=r"toy/worker.py: \d+ bytes is over the 4096-byte limit") as exc:
        engine.apply(make_patch(), toy)
    assert exc.value.exit_code == 2
    no_leftovers(toy)
    monkeypatch.setenv(engine.MAX_FILE_BYTES_ENV, "lots")
    with pytest.raises(UsageError, match="PATCHKIT_MAX_FILE_BYTES='lots'"):
        engine.apply(make_patch(), toy)
    monkeypatch.delenv(engine.MAX_FILE_BYTES_ENV)
    assert engine.max_file_bytes() == 2 * 1024 * 1024
    assert engine.apply(make_patch(), toy).outcome is Outcome.APPLIED


# ---------------------------------------------------------------------------- the journal
@pytest.mark.parametrize("field,value,why", [
    ("file", 5, "'file' must be a relative path string, got 5"),
    ("file", "/etc/passwd", "is absolute or holds '..'"),
    ("file", "../outside.py", "is absolute or holds '..'"),
    ("file", "toy/../../outside.py", "is absolute or holds '..'"),
    ("sha_before", "../../x", "'sha_before' must be a sha256"),
    ("anchors", "x", "'anchors' must be a list of strings"),
    ("patch", None, "'patch' must be a string"),
])
def test_malformed_journal_entry_names_the_entry(toy, field, value, why):
    p = make_patch()
    engine.apply(p, toy)
    jp = toy.root / ".patchkit" / "journal.json"
    doc = json.loads(jp.read_text())
    doc["entries"][0][field] = value
    jp.write_text(json.dumps(doc))
    outside = toy.root.parent / "outside.py"
    for call in (lambda: engine.revert(p, toy), lambda: engine.revert(p, toy, force=True),
                 lambda: engine.apply(p, toy), lambda: engine.diff(p, toy), lambda: engine.status([p], toy)):
        with pytest.raises(JournalError) as exc:
            call()
        assert "entry 0" in one_line(exc.value) and why in str(exc.value)
    assert not outside.exists()
    no_leftovers(toy)


def test_cli_bad_journal_entry_is_one_line_exit_2(tmp_path):
    root = _sglang_toy(tmp_path)
    t = Target("sglang", "0.5.16", root, TargetKind.DIRECTORY)
    (root / ".patchkit").mkdir()
    entry = {"patch": "dynamic-spec-disable", "patch_version": "1", "strategy": "s", "distribution": "sglang",
             "target_version": "0.5.16", "file": 5, "sha_before": "0" * 64, "sha_after": "1" * 64,
             "anchors": [], "time": "t"}
    (root / ".patchkit" / "journal.json").write_text(json.dumps(
        {"schema": 1, "distribution": "sglang", "version": t.version, "entries": [entry]}))
    for args in (["status"], ["diff", "dynamic-spec-disable"], ["gate"], ["revert", "dynamic-spec-disable"]):
        r = _cli(*args, "--target-dir", str(root))
        text = r.stdout + r.stderr
        assert r.returncode == 2 and "Traceback" not in text, (args, text)
        assert "entry 0 (patch dynamic-spec-disable): 'file' must be a relative path string, got 5" in text, args


def test_launch_with_a_bad_tp_size_is_a_usage_error(tmp_path):
    root = _sglang_toy(tmp_path)
    r = _cli("launch", "--target-dir", str(root), "--", sys.executable, "-m", "sglang.launch_server", "--tp-size=abc")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--tp-size 'abc' in the launch command: not an integer" in r.stderr
    r = _cli("launch", "--target-dir", str(root), "--", "x", "--tp", "2.5")
    assert r.returncode == 2 and "--tp '2.5'" in r.stderr


def test_a_plugin_that_raises_on_import_is_one_line(tmp_path):
    plug = tmp_path / "plugins" / "bad_patch"
    plug.mkdir(parents=True)
    (plug / "__init__.py").write_text("raise RuntimeError('plugin exploded')\n")
    root = _sglang_toy(tmp_path / "t")
    env = {"PATCHKIT_PATCH_PATH": str(tmp_path / "plugins")}
    for args in (["list"], ["status", "--target-dir", str(root)], ["apply", "x", "--target-dir", str(root)]):
        r = _cli(*args, env=env)
        assert r.returncode == 2 and "Traceback" not in r.stderr, (args, r.stderr)
        assert f"plugin {plug}: import failed: RuntimeError: plugin exploded" in r.stderr.replace("\n", " "), args
        assert not (root / ".patchkit" / "lock").exists()


def test_a_failed_command_leaves_no_lock_and_no_state_folder(toy):
    with pytest.raises(PatchkitError):
        engine.apply(make_patch(method="setup"), toy)
    assert not (toy.root / ".patchkit").exists()
    engine.apply(make_patch(), toy)
    with pytest.raises(DriftError):
        toy.file(REL).write_text(toy.file(REL).read_text() + "# edit\n")
        engine.revert(make_patch(), toy)
    assert not (toy.root / ".patchkit" / "lock").exists()


# ---------------------------------------------------------------------------- containment
def test_symlinked_lock_is_refused_and_its_target_untouched(toy, tmp_path_factory):
    victim = tmp_path_factory.mktemp("victim") / "precious"
    victim.write_text("keep me\n")
    (toy.root / ".patchkit").mkdir()
    os.symlink(victim, toy.root / ".patchkit" / "lock")
    with pytest.raises(OutsideTarget, match="lock: is a symlink"):
        engine.apply(make_patch(), toy)
    assert victim.read_text() == "keep me\n"
    assert toy.file(REL).read_text() == BASE


@pytest.mark.parametrize("which", [".patchkit", ".patchkit/originals"])
def test_symlinked_state_folder_is_refused(toy, tmp_path_factory, which):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    if which == ".patchkit/originals":
        (toy.root / ".patchkit").mkdir()
    os.symlink(elsewhere, toy.root / which)
    with pytest.raises(OutsideTarget, match="is a symlink"):
        engine.apply(make_patch(), toy)
    assert list(elsewhere.iterdir()) == []
    assert toy.file(REL).read_text() == BASE


def test_symlinked_journal_is_refused(toy, tmp_path_factory):
    engine.apply(make_patch(), toy)
    other = tmp_path_factory.mktemp("o") / "journal.json"
    jp = toy.root / ".patchkit" / "journal.json"
    other.write_text(jp.read_text())
    jp.unlink()
    os.symlink(other, jp)
    with pytest.raises(OutsideTarget, match="journal.json: is a symlink"):
        engine.revert(make_patch(), toy)


def test_journal_pointing_outside_never_writes_there(toy, tmp_path_factory):
    """A hand-made journal whose entry escapes through a symlinked folder is refused at write time."""
    p = make_patch()
    engine.apply(p, toy)
    outside = tmp_path_factory.mktemp("out")
    (outside / "worker.py").write_text("precious\n")
    os.symlink(outside, toy.root / "escape")
    jp = toy.root / ".patchkit" / "journal.json"
    doc = json.loads(jp.read_text())
    doc["entries"][0]["file"] = "escape/worker.py"
    jp.write_text(json.dumps(doc))
    with pytest.raises(OutsideTarget, match="outside the target root"):
        engine.revert(p, toy, force=True)
    assert (outside / "worker.py").read_text() == "precious\n"


def test_inside_is_exact(tmp_path):
    (tmp_path / "a").mkdir()
    assert fsutil.inside(tmp_path, "a/b.py") == tmp_path / "a" / "b.py"
    for bad in ("", "/a", "a/../../b", "a//b", "./a", "a\\b", "a\x00b", 5, None):
        with pytest.raises(OutsideTarget):
            fsutil.inside(tmp_path, bad)


# ---------------------------------------------------------------------------- journal vs tree
def test_status_on_a_partly_patched_unjournalled_tree_is_not_not_applied(toy):
    p = patch_with_file()
    engine.apply(p, toy)
    shutil.rmtree(toy.root / ".patchkit")  # as if an old patchkit was killed before its journal
    toy.file(NEW).unlink()
    rows = engine.status([p], toy)
    assert rows[0].state == "partial" and REL in rows[0].detail and NEW in rows[0].detail
    with pytest.raises(DriftError, match="carries it"):
        engine.revert(p, toy)


def test_apply_replaces_stale_entries_instead_of_duplicating(toy):
    p = patch_with_file()
    engine.apply(p, toy)
    toy.file(REL).write_text(BASE)  # package reinstalled under the journal
    toy.file(NEW).unlink()
    assert engine.apply(p, toy).outcome is Outcome.APPLIED
    assert len(jr.load(toy).entries) == 2
    assert engine.revert(p, toy).outcome is Outcome.REVERTED
    assert toy.file(REL).read_text() == BASE


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
                     | st.sampled_from(["../x", "/etc/passwd", "toy/worker.py", "a" * 64, "created", ""]),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                     max_leaves=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(list(jr._ENTRY_FIELDS) + ["extra"]), value=_json)
def test_any_journal_entry_value_loads_or_is_a_journal_error(toy, field, value):
    """Whatever a field holds, loading gives a valid entry whose file stays inside, or one JournalError."""
    jp = toy.root / ".patchkit" / "journal.json"
    jp.parent.mkdir(exist_ok=True)
    entry = {"patch": "p", "patch_version": "1", "strategy": "s", "distribution": "toy", "target_version": "1.2",
             "file": REL, "sha_before": "0" * 64, "sha_after": "1" * 64, "anchors": [], "time": "t"}
    entry[field] = value
    jp.write_text(json.dumps({"schema": 1, "distribution": "toy", "version": "1.2", "entries": [entry]}))
    try:
        j = jr.load(toy)
    except JournalError as exc:
        assert "entry 0" in one_line(exc)
        return
    assert fsutil.inside(toy.root, j.entries[0].file) == toy.root / j.entries[0].file
