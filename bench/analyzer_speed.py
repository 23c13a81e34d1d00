#!/usr/bin/env python3
"""Analyzer speed on a whole real tree against pyrefly, measured in the same run.

    python3 bench/analyzer_speed.py [--version 0.5.16]

Cold: an empty patchkit cache; warm: the same run again (results cached by content hash +
analyzer version). Peer: `pyrefly check` on the same folder (pip install pyrefly). Prints
seconds and the ratios pyrefly/patchkit (above 1 means patchkit is faster). Goals: cold <= 5 s,
warm <= 1 s on a 2-core machine, faster than pyrefly.
"""
import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import timed  # noqa: E402




def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", default="0.5.16")
    ap.add_argument("--recursion-only", action="store_true")
    args = ap.parse_args()
    if args.recursion_only:
        return recursion()
    from patchkit import target
    rel = target.fetch(f"sglang=={args.version}")
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "sglang"
        shutil.copytree(rel.root / "sglang", tree)
        for info in rel.root.glob("*.dist-info"):  # marks the import root, as in a real install
            shutil.copytree(info, Path(tmp) / info.name)
        srt = tree / "srt"
        n = sum(1 for _ in srt.rglob("*.py"))
        cache = {"PATCHKIT_CACHE_DIR": str(Path(tmp) / "cache")}
        pk = [sys.executable, "-m", "patchkit", "check", str(srt), "--format", "json"]
        cold, r = timed(pk, cache, cwd=Path(__file__).resolve().parent.parent)
        warm, r2 = timed(pk, cache, cwd=Path(__file__).resolve().parent.parent)
        import json
        found = len(json.loads(r.stdout)["findings"])
        print(f"patchkit check  sglang {args.version} srt/ ({n} files): cold {cold:.2f}s  warm {warm:.2f}s  ({found} findings)")
        if shutil.which("pyrefly"):
            peer, _ = timed(["pyrefly", "check", str(srt), "--output-format", "min-text"], cwd=tmp)
            print(f"pyrefly check   same folder: {peer:.2f}s")
            print(f"ratio pyrefly/patchkit: cold {peer / cold:.2f}x  warm {peer / warm:.2f}x")
        else:
            print("pyrefly not installed (pip install pyrefly): no peer ratio")
        print(f"goals: cold {cold:.2f}s / 5 s, warm {warm:.2f}s / 1 s")
    recursion()


def _mutual(n: int) -> str:
    """``n`` methods, each calling one of three others under configuration flags (exponential
    without construction-path summaries: 16 methods took 9 s, 200 more than 120 s and 3 GB)."""
    out = ["class Rec:", "    def __init__(self, cfg):", "        self.cfg = cfg", "        self.m0(cfg)", ""]
    for i in range(n):
        out += [f"    def m{i}(self, cfg):", f"        if cfg.opt{i}:", f"            self.a{i} = 1",
                f"            self.m{(i + 1) % n}(cfg)", f"        elif cfg.alt{i}:", f"            self.m{(i + 2) % n}(cfg)",
                "        else:", f"            self.m{(i + 3) % n}(cfg)", f"        return self.a{(i + 5) % n}", ""]
    return "\n".join(out)


def recursion() -> None:
    """Mutual recursion over 10/20/30/200 methods, each in a fresh process (goal: 200 in < 2 s)."""
    code = ("import sys; from patchkit.analysis import analyse_source; "
            "fs = analyse_source('rec.py', sys.stdin.read()); print(len(fs), sum(f.code == 'PK901' for f in fs))")
    import subprocess
    import time
    for n in (10, 20, 30, 200):
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-c", code], input=_mutual(n), capture_output=True, text=True,
                           cwd=Path(__file__).resolve().parent.parent)
        dt = time.perf_counter() - t0
        found, over = (r.stdout.split() + ["?", "?"])[:2]
        print(f"mutual recursion {n:>3} methods: {dt:.2f}s ({found} findings, {over} over budget)")


if __name__ == "__main__":
    main()
