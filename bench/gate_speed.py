#!/usr/bin/env python3
"""`patchkit gate` on the patched SGLang files, cold (fresh interpreter, fresh analyzer state) and
warm (second call), against its peer: `python -m py_compile` of the same files (the least any
pre-launch check does). Goals: <= 3 s cold, <= 1 s warm."""
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from _timing import timed  # noqa: E402
sys.path.insert(0, str(ROOT))




def main():
    from patchkit import target
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.16"
    rel = target.fetch(f"sglang=={version}")
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        shutil.copytree(rel.root, site, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
        assert timed([sys.executable, "-m", "patchkit", "apply", "dynamic-spec-disable", "--target-dir", str(site)])[1].returncode == 0
        cold, r = timed([sys.executable, "-m", "patchkit", "gate", "--target-dir", str(site)])
        warm, r2 = timed([sys.executable, "-m", "patchkit", "gate", "--target-dir", str(site)])
        files = [str(site / "sglang/srt/speculative/eagle_worker_v2.py"), str(site / "sglang/srt/server_args.py")]
        peer, _ = timed([sys.executable, "-m", "py_compile", *files])
        print(f"gate on sglang {version} (patched): exit {r.returncode}, cold {cold:.2f}s, warm {warm:.2f}s")
        print(f"peer py_compile of the same files: {peer:.2f}s; ratio gate/peer cold {cold / peer:.1f}x warm {warm / peer:.1f}x")
        print(f"goals: cold {cold:.2f}s / 3 s, warm {warm:.2f}s / 1 s")


if __name__ == "__main__":
    main()
