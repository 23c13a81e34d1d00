"""apply / revert / status on a small target we write ourselves (fast), incl. bad input."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from packaging.specifiers import SpecifierSet

from patchkit import codemod as cm, engine
from patchkit.ftypes import (AnchorNotFound, ConflictError, DriftError, JournalError, LockError, NotWritable,
                             Outcome, Target, TargetKind, TargetSyntaxError, VersionOutOfRange)
from patchkit.patchdef import Edit, Patch, Strategy
from patchkit.ftypes import Anchor

REL = "toy/worker.py"
BASE = '''"""toy"""


class Draft:
    def __init__(self, a):
        self.steps = a


class Worker:
    def __init__(self, a):
        self.steps = a

    def forward(self, batch):
        return batch
'''


def make_patch(name="toy-threshold", method="__init__", attr="limit", spec=">=1.0,<2"):
    shape = cm.assigns_self_attr("steps")

    def transform(module):
        fn = cm.find_method(REL, module, "Worker", method)
        return cm.insert(module, cm.find_stmt(REL, fn, shape, f"Worker.{method}"),
                         cm.statements(f"self.{attr} = 4"), after=True)

    def applied(module):
        try:
            return cm.contains_stmt(cm.find_method(REL, module, "Worker", method), cm.assigns_self_attr(attr))
        except AnchorNotFound:
            return False

    edit = Edit(REL, f"assign self.{attr}", (Anchor(REL, "Worker", method, shape.text),), transform, applied)
    return Patch(name, "1.0", "toy", "toy", SpecifierSet(spec), lambda v, r: Strategy("only", (edit,), "toy"))


@pytest.fixture
def toy(tmp_path) -> Target:
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    return Target("toy", "1.2", tmp_path, TargetKind.DIRECTORY)


def test_apply_is_idempotent_and_revert_is_byte_identical(toy):
    p = make_patch()
    before = toy.file(REL).read_bytes()
    dry = engine.apply(p, toy, dry_run=True)
    assert dry.outcome is Outcome.WOULD_APPLY and dry.pending
    assert toy.file(REL).read_bytes() == before  # dry run writes nothing
    r = engine.apply(p, toy)
    assert r.outcome is Outcome.APPLIED
    text = toy.file(REL).read_text()
    assert text.count("self.limit = 4") == 1 and text.index("self.limit") > text.index("class Worker")
    again = engine.apply(p, toy)
    assert again.outcome is Outcome.ALREADY_APPLIED and again.reason == "already applied"
    assert toy.file(REL).read_text() == text
    j = json.loads((toy.root / ".patchkit" / "journal.json").read_text())
    assert j["entries"][0]["file"] == REL and j["entries"][0]["patch"] == "toy-threshold"
    assert engine.revert(p, toy).outcome is Outcome.REVERTED
    assert toy.file(REL).read_bytes() == before


def test_mode_is_kept(toy):
    os.chmod(toy.file(REL), 0o640)
    engine.apply(make_patch(), toy)
    assert toy.file(REL).stat().st_mode & 0o777 == 0o640


def test_version_out_of_range_names_the_range(toy):
    before = toy.file(REL).read_bytes()
    with pytest.raises(VersionOutOfRange, match=r"supports toy>=3; the target is 1.2"):
        engine.apply(make_patch(spec=">=3"), toy)
    assert toy.file(REL).read_bytes() == before


def test_anchor_drift_is_loud_and_changes_nothing(toy):
    before = toy.file(REL).read_bytes()
    with pytest.raises(AnchorNotFound, match="class Worker has no method 'setup'"):
        engine.apply(make_patch(method="setup"), toy)
    assert toy.file(REL).read_bytes() == before
    assert not (toy.root / ".patchkit" / "journal.json").exists()


def test_syntax_error_in_target(toy):
    toy.file(REL).write_text(BASE + "\ndef broken(:\n")
    with pytest.raises(TargetSyntaxError, match=r"toy/worker.py:\d+"):
        engine.apply(make_patch(), toy)


def test_read_only_target(toy, monkeypatch):
    """Root ignores mode bits, so the denial comes from os.access, which is what the engine asks."""
    before = toy.file(REL).read_bytes()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, m: False if str(p).endswith("worker.py") else real(p, m))
    with pytest.raises(NotWritable, match=r"toy/worker.py: file is not writable"):
        engine.apply(make_patch(), toy)
    assert toy.file(REL).read_bytes() == before


def test_revert_refuses_after_hand_edit_unless_forced(toy):
    p = make_patch()
    before = toy.file(REL).read_bytes()
    engine.apply(p, toy)
    toy.file(REL).write_text(toy.file(REL).read_text() + "# hand edit\n")
    with pytest.raises(DriftError, match="changed since patch toy-threshold was applied"):
        engine.revert(p, toy)
    rows = engine.status([p], toy)
    assert rows[0].state == "drifted"
    engine.revert(p, toy, force=True)
    assert toy.file(REL).read_bytes() == before


def test_conflicting_patches_on_the_same_anchor(toy):
    engine.apply(make_patch("first"), toy)
    with pytest.raises(ConflictError, match="first"):
        engine.apply(make_patch("second", attr="other"), toy)


def test_second_patch_must_be_reverted_first(toy):
    first = make_patch("first")
    engine.apply(first, toy)
    other = make_patch("other", attr="other")
    # same anchor -> conflict; a patch on another method stacks, and reverting the first is refused
    # while the later one is on the same file
    shape = cm.contains_code("return batch")

    def transform(module):
        fn = cm.find_method(REL, module, "Worker", "forward")
        return cm.insert(module, cm.find_stmt(REL, fn, shape, "Worker.forward"), cm.statements("self.seen = 1"), after=False)

    def applied(module):
        return "self.seen = 1" in module.code

    edit = Edit(REL, "mark", (Anchor(REL, "Worker", "forward", shape.text),), transform, applied)
    second = Patch("second", "1.0", "toy", "toy", SpecifierSet(">=1"), lambda v, r: Strategy("s", (edit,), ""),
                   checks=())
    engine.apply(second, toy)
    with pytest.raises(ConflictError, match="patch second was applied after first; revert it first"):
        engine.revert(first, toy)
    engine.revert(second, toy)
    engine.revert(first, toy)
    assert toy.file(REL).read_text() == BASE
    del other


def test_corrupted_and_foreign_journal(toy):
    engine.apply(make_patch(), toy)
    jp = toy.root / ".patchkit" / "journal.json"
    good = jp.read_text()
    jp.write_text("{not json")
    with pytest.raises(JournalError, match="corrupted journal"):
        engine.apply(make_patch(), toy)
    doc = json.loads(good)
    doc["version"] = "1.1"
    jp.write_text(json.dumps(doc))
    with pytest.raises(JournalError, match="written for toy 1.1 but the target is toy 1.2"):
        engine.revert(make_patch(), toy)


def test_lock_held_by_another_process(toy):
    lock = toy.root / ".patchkit" / "lock"
    code = (f"from patchkit.fsutil import file_lock; from pathlib import Path; import time\n"
            f"with file_lock(Path({str(lock)!r})):\n    print('held', flush=True); time.sleep(5)\n")
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
    assert holder.stdout.readline().strip() == "held"
    try:
        with pytest.raises(LockError, match="another patchkit process holds the lock"):
            engine.apply(make_patch(), toy, lock_timeout=0.3)
    finally:
        holder.kill()
        holder.wait()


KILLER = r'''
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
sys.path.insert(0, {tests!r})
from test_engine import make_patch
from patchkit import engine
from patchkit.ftypes import Target, TargetKind
t = Target("toy", "1.2", Path({target!r}), TargetKind.DIRECTORY)
p = make_patch()
while True:
    engine.apply(p, t)
    engine.revert(p, t)
'''


def test_killed_mid_write_leaves_original_or_fully_patched(toy, tmp_path):
    """Kill a real apply/revert loop at random moments; the file is always one of two texts."""
    p = make_patch()
    original = toy.file(REL).read_bytes()
    engine.apply(p, toy)
    patched = toy.file(REL).read_bytes()
    engine.revert(p, toy)
    root = str(Path(__file__).parent.parent)
    script = tmp_path / "killer.py"
    script.write_text(KILLER.format(root=root, tests=str(Path(__file__).parent), target=str(toy.root)))
    rng = random.Random(42)
    for _ in range(25):
        proc = subprocess.Popen([sys.executable, str(script)])
        time.sleep(0.25 + rng.random() * 0.4)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        data = toy.file(REL).read_bytes()
        assert data in (original, patched)
        # whatever state the kill left, the next command recovers it (write-ahead journal), and a
        # revert then restores the original: no temp file, no journal that disagrees
        engine.revert(p, toy, force=True)
        assert toy.file(REL).read_bytes() == original
        assert [x for x in toy.root.rglob("*") if x.name.endswith(".patchkit-tmp")] == []
        assert not (toy.root / ".patchkit" / "intent.json").exists()


fmt = st.sampled_from(["", "    # c\n", "\n", "  \n", "    pass\n"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fmt, fmt, st.sampled_from(["", "# header\n", "\ufeff" * 0 + "#!/usr/bin/env python\n"]),
       st.sampled_from(["\n", "\r\n"]), st.sampled_from(["", "x = 1  # trailing", "'''doc'''"]))
def test_apply_revert_roundtrip_any_formatting(toy, pre, post, header, nl, tail):
    src = header + BASE.replace("    def forward", pre + "    def forward").replace(
        "        return batch\n", "        return batch\n" + post) + tail
    src = src.replace("\n", nl)
    toy.file(REL).write_bytes(src.encode())
    (toy.root / ".patchkit").exists() and __import__("shutil").rmtree(toy.root / ".patchkit")
    p = make_patch()
    engine.apply(p, toy)
    assert engine.apply(p, toy).outcome is Outcome.ALREADY_APPLIED
    engine.revert(p, toy)
    assert toy.file(REL).read_bytes() == src.encode()
