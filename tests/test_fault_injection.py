"""SIGKILL apply / revert at every write, fsync, rename and unlink (forked child, wrapped os calls,
bench/fault_injection.py's harness) on a toy target whose patch edits one file and creates another;
then patchkit recovers by itself: no half-written file, the journal agrees with the tree, the
tree is fully original or fully patched, nothing is written outside the target."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from patchkit import engine, journal as jr
from patchkit.ftypes import Outcome, Target, TargetKind

from test_engine import BASE, REL
from test_engine_new_file import NEW, patch_with_file

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import fault_injection as fi  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks")


@pytest.fixture
def toy(tmp_path) -> Target:
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    return Target("toy", "1.2", tmp_path, TargetKind.DIRECTORY)


class Tree:
    def __init__(self, t: Target):
        self.t, self.p = t, patch_with_file()
        self.original = self.snap()
        engine.apply(self.p, t)
        self.patched = self.snap()
        engine.revert(self.p, t)
        assert self.snap() == self.original

    def snap(self):
        return {rel: (self.t.file(rel).read_bytes() if self.t.file(rel).exists() else None) for rel in (REL, NEW)}

    def state(self):
        s = self.snap()
        return "original" if s == self.original else "patched" if s == self.patched else "mixed"

    def fresh(self):
        for rel, b in self.original.items():
            if b is None:
                self.t.file(rel).unlink(missing_ok=True)
            else:
                self.t.file(rel).write_bytes(b)
        shutil.rmtree(self.t.root / ".patchkit", ignore_errors=True)

    def half_written(self):
        return [rel for rel, b in self.snap().items() if b not in (self.original[rel], self.patched[rel])]

    def assert_consistent(self):
        assert not (self.t.root / ".patchkit" / "intent.json").exists()
        temps = [p for p in self.t.root.rglob("*") if p.name.endswith(".patchkit-tmp")]
        assert temps == []
        entries = jr.load(self.t).for_patch(self.p.name)
        st = self.state()
        if entries:
            assert st == "patched" and sorted(e.file for e in entries) == sorted([REL, NEW])
        else:
            assert st == "original"
        return st

    def run(self, fn, k=None, torn=False):
        r = fi.run_child(fn, k, torn)
        assert not r.traceback, r.err
        assert fi.outside(r.points, (self.t.root,)) == []
        return r


def _apply(tree):
    return lambda: engine.apply(tree.p, tree.t) and 0


def _revert(tree):
    return lambda: engine.revert(tree.p, tree.t) and 0


def test_kill_at_every_write_point_of_apply_then_status_recovers(toy):
    tree = Tree(toy)
    tree.fresh()
    ref = tree.run(_apply(tree))
    assert ref.rc == 0 and tree.state() == "patched"
    points = fi.kill_points(ref)
    ops = {op for op, _ in ref.points}
    assert {"write", "fsync", "replace", "unlink", "mkdir"} <= ops and len(points) > 30
    outcomes = set()
    for k, torn in points:
        tree.fresh()
        r = tree.run(_apply(tree), k, torn)
        assert r.killed, (k, torn)
        assert tree.half_written() == []
        rows = engine.status([tree.p], toy)  # any command recovers first
        outcomes.add(tree.assert_consistent())
        if (toy.root / ".patchkit").exists() and any(row.state == "recovered" for row in rows):
            assert "interrupted apply of toy-with-file" in rows[0].detail
    assert outcomes == {"original", "patched"}  # kills before the commit roll back, after it finish


def test_kill_at_every_write_point_of_revert_then_apply_recovers_without_duplicates(toy):
    tree = Tree(toy)
    engine.apply(tree.p, toy)
    ref = tree.run(_revert(tree))
    assert ref.rc == 0 and tree.state() == "original"
    for k, torn in fi.kill_points(ref):
        if tree.state() != "patched":
            engine.apply(tree.p, toy)
        r = tree.run(_revert(tree), k, torn)
        assert r.killed
        assert tree.half_written() == []
        res = engine.apply(tree.p, toy)  # apply after an interrupted revert: the revert finishes first
        assert res.outcome is Outcome.APPLIED or res.outcome is Outcome.ALREADY_APPLIED
        assert tree.assert_consistent() == "patched"
        assert len(jr.load(toy).entries) == 2
        assert engine.revert(tree.p, toy).outcome is Outcome.REVERTED
        assert tree.assert_consistent() == "original"


def test_a_kill_during_recovery_is_recovered_the_same_way(toy):
    tree = Tree(toy)
    tree.fresh()
    ref = tree.run(_apply(tree))
    commit = next(i for i, (op, p) in enumerate(ref.points, 1) if op == "replace" and p.endswith("/journal.json"))
    tree.fresh()
    assert tree.run(_apply(tree), commit - 2).killed  # sources written, journal not: must roll back
    assert (toy.root / ".patchkit" / "intent.json").exists()
    k = 1
    while True:
        r = tree.run(lambda: (jr.recover(toy), 0)[1], k)
        assert tree.half_written() == []
        if not r.killed:
            break
        k += 1
    assert k > 3
    assert tree.assert_consistent() == "original"


def test_cli_says_what_it_recovered_in_one_line(tmp_path):
    (tmp_path / "toy").mkdir()
    (tmp_path / REL).write_text(BASE)
    (tmp_path / "sglang").mkdir()
    (tmp_path / "sglang" / "version.py").write_text("__version__ = '0.5.16'\n")
    t = Target("sglang", "0.5.16", tmp_path, TargetKind.DIRECTORY)
    p = patch_with_file()
    from patchkit.patchdef import Patch
    from packaging.specifiers import SpecifierSet
    p = Patch("toy-sglang", "1.0", "toy", "sglang", SpecifierSet(">=0"), p.select)
    engine.apply(p, t)
    engine.revert(p, t)  # originals kept: the reference and the killed run take the same path
    ref = fi.run_child(lambda: engine.apply(p, t) and 0)
    engine.revert(p, t)
    commit = next(i for i, (op, f) in enumerate(ref.points, 1) if op == "replace" and f.endswith("/journal.json"))
    assert fi.run_child(lambda: engine.apply(p, t) and 0, commit - 1).killed
    r = subprocess.run([sys.executable, "-m", "patchkit", "status", "--target-dir", str(tmp_path)],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    assert "recovered: rolled back an interrupted apply of toy-sglang (2 files restored)" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    assert t.file(REL).read_text() == BASE and not t.file(NEW).exists()
    assert not (tmp_path / ".patchkit" / "lock").exists()


def test_concurrent_commands_serialise_on_the_lock(toy):
    """Two processes applying and reverting in a loop, a third reading status: every command
    succeeds, and the end state is consistent with no lock file left."""
    tree = Tree(toy)

    def loop():
        for _ in range(6):
            engine.apply(tree.p, toy, lock_timeout=60)
            engine.revert(tree.p, toy, lock_timeout=60)
        return 0

    def watch():
        for _ in range(20):
            rows = engine.status([tree.p], toy)
            assert rows[-1].state in ("applied", "not-applied"), rows
        return 0

    import threading
    results = []
    threads = [threading.Thread(target=lambda f=f: results.append(fi.run_child(f))) for f in (loop, loop, watch)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert [r.rc for r in results] == [0, 0, 0], [r.err[-500:] for r in results]
    assert tree.assert_consistent() == "original"
    assert not (toy.root / ".patchkit" / "lock").exists()
