"""The working tree must leave room for the GPU bundle: the device tool carries at most 64 MiB per
call (tracked files + the bundle), and the SGLang 0.5.16 bundle is 58.9 MiB. Large evidence files
(server logs, records) are committed gzipped; the recall corpus and old labelling sheets are xz
archives (bench/analyzer_corpus.tar.xz, bench/results/analyzer-precision-sheets.tar.xz).

Measured in session 18 (the device tool's own check, which counts more than the files' bytes): the
bundle with 4.86 MiB of tracked files was refused as too large, with 3.98 MiB accepted; a 58.0 MiB
carry with the 4.86 MiB tree was accepted. Hence 4.0 MiB, not the 5.0 assumed before.

Session 29: bench/gpu/slim_bundle.sh makes the bundle 57.9 MiB with patchkit's wheels inside (no
`.whl` in the same call; carried with the 3.98 MiB tree, three calls accepted). 57.9 + 4.5 MiB stays
under the 62.9 MiB carried in session 18, so the budget is 4.5 MiB for the slim bundle.

Session 40: 4.6 MiB, for the analyzer's red-team corpus (bench/redteam_cases.tar.xz). The slim
bundle is 57.92 MiB (60,734,908 bytes): 57.92 + 4.6 = 62.52 MiB, still under the 62.9 MiB carried in
session 18, and session 40's two device calls carried the bundle with a 4.49 MiB tree.

Session 41: 4.7 MiB, for a second red-team batch and two precision sets: 57.92 + 4.7 = 62.62 MiB,
under the 62.86 MiB (58.0 + 4.86) the device tool accepted in session 18; the session's device call
carried the bundle with a 4.52 MiB tree.

Session 42: 4.75 MiB, for a third red-team batch and two more precision sets (older reports moved
into the history archive first): 57.92 + 4.75 = 62.67 MiB, still under the 62.86 MiB accepted in
session 18. The session's one device call that got a machine carried the bundle with a 4.73 MiB tree.

Session 43: 4.85 MiB, for the draft-KV mode's module, tests, GPU results and server logs and a
precision set (older reports moved into the history archive first): 57.92 + 4.85 = 62.77 MiB,
under the 62.86 MiB accepted in session 18; the session's two device calls that carried the bundle (60,723,312 bytes)
did so with a 4.79 MiB tree (5,025,589 bytes of tracked and untracked files): 62.70 MiB, accepted.

Session 50: 4.88 MiB, for a fourth red-team batch (24 bugs, 36 controls) in bench/redteam_cases.tar.xz
and its tests (older reports moved into the history archive and the README's history rows
shortened first): 57.92 + 4.88 = 62.80 MiB, still under the 62.86 MiB accepted in session 18. No
device call this session carried the bundle with this tree."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUDGET_MIB = 4.88


def test_tracked_files_leave_room_for_the_gpu_bundle():
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=60, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout: {exc}")
    files = [ROOT / f for f in out.decode().split("\0") if f]
    sizes = {f: f.stat().st_size for f in files if f.is_file()}
    total = sum(sizes.values()) / 2**20
    big = sorted(sizes, key=sizes.get, reverse=True)[:3]
    assert total <= BUDGET_MIB, (f"tracked files are {total:.2f} MiB (budget {BUDGET_MIB}); largest: "
                                 + ", ".join(f"{p.relative_to(ROOT)} ({sizes[p] // 1024} KiB)" for p in big))
    assert not [p for p in files if p.suffix == ".log" and "bench/results" in p.as_posix()], "gzip result logs"
