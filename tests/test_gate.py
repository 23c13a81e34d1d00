"""The pre-launch gate on a patched tree (the toy tree, offline; release 0.5.12, with the registry):
a clean tree passes; each failure mode stops at its own stage with a clear message; launch execs
only when the gate passes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from patchkit import engine, gate, registry, signoff
from patchkit.ftypes import Target

ROOT = Path(__file__).resolve().parent.parent
WORKER = "sglang/srt/speculative/eagle_worker_v2.py"


@pytest.fixture
def patched(sglang_tree) -> Target:
    """A patched tree: the toy tree offline, release 0.5.12 where the registry answers."""
    t = sglang_tree.make()
    engine.apply(registry.patch("dynamic-spec-disable"), t)
    return t


def stages(res):
    return [(s.name, s.verdict) for s in res.stages]


def test_clean_patched_tree_passes(patched):
    res = gate.run(patched)
    assert res.exit_code == 0, res.to_dict()
    assert [s.name for s in res.stages] == ["range", "hashes", "compile", "lint", "analyzer", "invariants"]


def test_reinstalled_unpatched_file_fails_at_hashes(patched, sglang_tree):
    orig = sglang_tree.pristine(WORKER)
    patched.file(WORKER).write_bytes(orig)
    res = gate.run(patched)
    assert res.failed_stage.name == "hashes" and res.exit_code == 1
    assert "unpatched original again" in res.failed_stage.detail


def test_hand_edit_fails_at_hashes(patched):
    patched.file(WORKER).write_text(patched.file(WORKER).read_text() + "\n# tweak\n")
    res = gate.run(patched)
    assert res.failed_stage.name == "hashes" and "hand edit" in res.failed_stage.detail


def test_wrong_class_fails_at_analyzer(sglang_tree, broken_patches):
    t = sglang_tree.make()
    engine.apply(registry.patch(broken_patches), t, run_check=False)
    res = gate.run(t)
    assert res.failed_stage.name == "analyzer" and res.exit_code == 1
    assert "spec_disable_batch_threshold" in res.failed_stage.detail
    assert "EagleDraftWorker.__init__" in res.failed_stage.detail


def test_version_outside_range_fails_at_range(patched):
    import shutil
    info = next(patched.root.glob("sglang-*.dist-info"))
    shutil.move(info, patched.root / "sglang-0.6.0.dist-info")
    t = Target("sglang", "0.6.0", patched.root, patched.kind)
    jp = patched.root / ".patchkit" / "journal.json"
    doc = json.loads(jp.read_text())
    doc["version"] = "0.6.0"
    jp.write_text(json.dumps(doc))
    res = gate.run(t)
    assert res.failed_stage.name == "range" and "supports sglang" in res.failed_stage.detail


def test_missing_and_mismatched_signoff(patched, tmp_path):
    res = gate.run(patched, require_signoff=True)
    assert res.failed_stage.name == "signoff" and "no sign-off on record" in res.failed_stage.detail
    rec = signoff.build(patched, True, signoff.environment_now(), {"tp": 1}, [], {}, None)
    path = tmp_path / "so.json"
    signoff.write(rec, path)
    assert gate.run(patched, True, path, tp=1).exit_code == 0
    res = gate.run(patched, True, path, tp=8)
    assert res.failed_stage.name == "signoff" and "--tp 1, this launch uses --tp 8" in res.failed_stage.detail
    patched.file(WORKER).write_text(patched.file(WORKER).read_text() + "\n")
    res = gate.run(patched, True, path, tp=1)
    assert res.failed_stage.name == "hashes"  # hashes fail first: the sign-off is never reached
    failing = signoff.build(patched, False, {}, {"tp": 1}, [], {}, {"stage": "first-decode", "message": "boom"})
    signoff.write(failing, path)
    engine.revert(registry.patch("dynamic-spec-disable"), patched, force=True)


def test_bad_journal_is_exit_2(patched):
    (patched.root / ".patchkit" / "journal.json").write_text("[]")
    res = gate.run(patched)
    assert res.exit_code == 2 and res.stages[0].name == "journal"


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "patchkit.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, cwd=ROOT)


def test_launch_execs_only_when_the_gate_passes(patched, tmp_path):
    marker = tmp_path / "ran"
    code = f"import os; open({str(marker)!r}, 'w').write(str(os.getpid()))"
    r = _cli("launch", "--target-dir", str(patched.root), "--", sys.executable, "-c", code)
    assert r.returncode == 0, r.stderr
    assert marker.exists()
    marker.unlink()
    patched.file(WORKER).write_text(patched.file(WORKER).read_text() + "# edit\n")
    r = _cli("launch", "--target-dir", str(patched.root), "--", sys.executable, "-c", code)
    assert r.returncode == 1 and "not launching" in r.stderr and "hashes" in r.stderr
    assert not marker.exists()


def test_launch_replaces_the_process(tmp_path):
    """exec keeps the PID: the launched command reports the same PID patchkit had."""
    script = tmp_path / "t.py"
    script.write_text(
        "import os, sys\n"
        "sys.argv = ['patchkit', 'launch', '--target-dir', sys.argv[1], '--', sys.executable, '-c',"
        " 'import os; print(os.getpid())']\n"
        "print(os.getpid(), flush=True)\n"
        "from patchkit import gate\n"
        "class R:\n    exit_code = 0\n    stages = []\n    failed_stage = None\n"
        "gate.run = lambda *a, **k: R()\n"
        "from patchkit.cli import main\nmain()\n")
    (tmp_path / "tgt" / "sglang").mkdir(parents=True)
    (tmp_path / "tgt" / "sglang" / "version.py").write_text("__version__ = '0.5.12'\n")
    r = subprocess.run([sys.executable, str(script), str(tmp_path / "tgt")], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    pids = r.stdout.split()
    assert len(pids) == 2 and pids[0] == pids[1], (r.stdout, r.stderr)
