"""The CLI end to end on a toy target (tests/toytarget.py): what the release-based CLI tests prove
about the commands themselves, without the package registry; and the exit codes the README
documents where they used to drift (a journal entry outside the target, a bad [tool.patchkit])."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from toytarget import FILE, toy, toy_patch, toy_release, toy_target  # noqa: F401 (toy: a fixture)

from patchkit.cli import main

ROOT = Path(__file__).resolve().parent.parent


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_dry_run_apply_status_diff_revert(toy):
    t, name = toy
    d = t.root
    before = t.file(FILE).read_bytes()
    r = cli("apply", name, "--target-dir", d, "--dry-run")
    assert r.exit_code == 1  # changes pending
    assert "+        self.patchkit_toy_mark = True" in r.stdout and f"+++ b/{FILE}" in r.stdout
    assert t.file(FILE).read_bytes() == before and not (d / ".patchkit").exists()
    r = cli("apply", name, "--target-dir", d)
    assert r.exit_code == 0 and r.stdout.startswith(f"{name}: applied on sglang 0.5.16 [insert-at-start]")
    r = cli("apply", name, "--target-dir", d, "--dry-run")
    assert r.exit_code == 0 and "already-applied" in r.stdout
    doc = json.loads(cli("status", "--target-dir", d, "--json").stdout)
    row = next(p for p in doc["patches"] if p["patch"] == name)
    assert row["state"] == "applied" and row["strategy"] == "insert-at-start" and row["files"] == [FILE]
    r = cli("diff", name, "--target-dir", d)
    assert r.exit_code == 0 and r.output.startswith(f"--- a/{FILE}") and "+        self.patchkit_toy_mark" in r.output
    assert cli("revert", name, "--target-dir", d).exit_code == 0
    assert t.file(FILE).read_bytes() == before


def test_json_output_is_only_json(toy):
    t, name = toy
    r = cli("apply", name, "--target-dir", t.root, "--dry-run", "--json")
    doc = json.loads(r.stdout)
    assert doc["outcome"] == "would-apply" and doc["strategy"] == "insert-at-start"
    assert doc["files"] == [{"file": FILE, "changed": True}] and f"+++ b/{FILE}" in doc["diff"]


def test_revert_wording(toy):
    t, name = toy
    r = cli("revert", name, "--target-dir", t.root)
    assert r.exit_code == 0 and r.stdout.strip() == f"{name}: nothing-to-revert on sglang 0.5.16 (no journal entry)"
    assert cli("apply", name, "--target-dir", t.root).exit_code == 0
    r = cli("revert", name, "--target-dir", t.root, "--dry-run")
    assert r.exit_code == 1 and f"{name}: would-revert on sglang 0.5.16" in r.stdout and "would-apply" not in r.stdout
    doc = json.loads(cli("revert", name, "--target-dir", t.root, "--dry-run", "--json").stdout)
    assert doc["outcome"] == "would-revert"
    r = cli("revert", name, "--target-dir", t.root)
    assert r.exit_code == 0 and r.stdout.startswith(f"{name}: reverted on sglang 0.5.16")


def test_release_cache_is_never_patched_in_place(toy, tmp_path):
    _t, name = toy
    rel = toy_release(tmp_path / "cache", "0.5.16")
    before = rel.file(FILE).read_bytes()
    for cmd in ("apply", "revert"):
        r = cli(cmd, name, "--release", "sglang==0.5.16")
        assert r.exit_code == 2
        assert "is the shared release cache and is never patched in place" in r.stderr
        assert f"cp -r {rel.root} /tmp/site" in r.stderr
    assert rel.file(FILE).read_bytes() == before and not (rel.root / ".patchkit").exists()
    r = cli("apply", name, "--release", "sglang==0.5.16", "--dry-run")
    assert r.exit_code == 1 and "would-apply" in r.stdout
    assert rel.file(FILE).read_bytes() == before


def test_refused_patch_lists_every_finding(toy, tmp_path):
    t, _name = toy
    bad = toy_patch(tmp_path / "patches", "toy-broken", "self.toy_c = self.toy_a or self.toy_b\n")
    before = t.file(FILE).read_bytes()
    r = cli("apply", bad, "--target-dir", t.root)
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"error: patch {bad}: check failed on the patched code") and "(+1 more)" in lines[0]
    assert sorted(ln.split(": PK002 ")[1].split(" ")[0] for ln in lines[1:]) == ["self.toy_a", "self.toy_b"]
    assert all(ln.startswith(f"  {FILE}:") for ln in lines[1:])
    assert t.file(FILE).read_bytes() == before and "Traceback" not in r.output


def test_matrix_jobs_give_the_same_rows_as_one_job(toy, tmp_path):
    _t, name = toy
    for v in ("0.5.5", "0.5.12", "0.5.16"):
        toy_release(tmp_path / "cache", v)
    one = json.loads(cli("matrix", name, "--versions", "0.5.5,0.5.12,0.5.16", "--json").stdout)
    two = json.loads(cli("matrix", name, "--versions", "0.5.5,0.5.12,0.5.16", "--json", "-j", "2").stdout)
    # (a version-range refusal names the scratch folder it was tried in: a temp name of its own per run)
    strip = lambda rows: [{k: re.sub(r"patchkit-matrix-\w+", "<scratch>", str(v)) for k, v in r.items()  # noqa: E731
                           if k != "seconds"} for r in rows]
    assert strip(one) == strip(two) and [r["verdict"] for r in one] == ["refused", "applies", "applies"]
    assert "supports sglang>=0.5.6; the target is 0.5.5" in one[0]["detail"]
    assert not (tmp_path / "cache" / "releases" / "sglang-0.5.16" / ".patchkit").exists()


def test_launch_execs_only_after_the_gate_passes(toy, tmp_path):
    t, name = toy
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    launch = [sys.executable, "-m", "patchkit", "launch", "--target-dir", str(t.root), "--",
              sys.executable, "-c", "print('launched')"]
    r = subprocess.run(launch, capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "no journal" in r.stderr and "launched" not in r.stdout  # nothing applied
    assert cli("apply", name, "--target-dir", t.root).exit_code == 0
    r = subprocess.run(launch, capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "launched" and "gate passed" in r.stderr
    t.file(FILE).write_text(t.file(FILE).read_text() + "# hand edit\n")
    r = subprocess.run(launch, capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "launched" not in r.stdout
    assert "gate failed at stage 'hashes'" in r.stderr and "not launching" in r.stderr


# ----------------------------------------------------------------------- exit codes that drifted
def test_status_exits_2_when_the_journal_names_a_file_outside_the_target(toy, tmp_path):
    """The README: 'entry outside the target' is a bad journal (exit 2), not a drift (exit 1)."""
    t, name = toy
    assert cli("apply", name, "--target-dir", t.root).exit_code == 0
    outside = tmp_path / "elsewhere.py"
    outside.write_bytes(t.file(FILE).read_bytes())
    t.file(FILE).unlink()
    t.file(FILE).symlink_to(outside)  # the journalled file now leads out of the target
    r = cli("status", "--target-dir", t.root, "--json")
    assert r.exit_code == 2, r.output
    row = next(p for p in json.loads(r.stdout)["patches"] if p["patch"] == name)
    assert row["state"] == "error" and "journal entry of toy-mark" in row["detail"]


def test_status_still_exits_1_for_a_drifted_patch(toy):
    t, name = toy
    assert cli("apply", name, "--target-dir", t.root).exit_code == 0
    t.file(FILE).write_text(t.file(FILE).read_text() + "# hand edit\n")
    r = cli("status", "--target-dir", t.root)
    assert r.exit_code == 1 and "drifted" in r.stdout


def test_a_corrupt_journal_makes_status_exit_2(toy):
    t, name = toy
    assert cli("apply", name, "--target-dir", t.root).exit_code == 0
    (t.root / ".patchkit" / "journal.json").write_text('{"schema": 1, "entries": 5}')
    r = cli("status", "--target-dir", t.root)
    assert r.exit_code == 2 and "corrupted journal" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_bad_tool_patchkit_section_is_one_line_for_smoke(tmp_path, monkeypatch):
    """`smoke` read [tool.patchkit] outside its error handling: a traceback and exit 1 before."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "pyproject.toml").write_text("[tool.patchkit]\nsmoke = 5\n")
    monkeypatch.chdir(work)
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    site = toy_target(tmp_path / "site")
    r = cli("smoke", "--target-dir", site.root, "--tiny", "--no-gate")
    assert r.exit_code == 2, r.output  # a traceback was exit 1
    assert r.stderr.strip().splitlines() == [f"error: {work / 'pyproject.toml'}: [tool.patchkit] smoke = 5: expected "
                                             "a table ([tool.patchkit.smoke]: the smoke matrix, see "
                                             "patchkit/smoke/command.py)"]
    assert not (tmp_path / "cache").exists() and not (site.root / ".patchkit").exists()
