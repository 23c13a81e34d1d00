"""A GPU-host bundle for CPU tests of the bench/gpu/*_on_host.sh scripts: the files the patch and the
matrix read from a real cached release, with the STAND-IN server as sglang.launch_server."""
from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

from patchkit.pipeline import scratch_copy

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "fixtures" / "standin_sglang" / "sglang"
PARTS = ("sglang/srt/speculative", "sglang/srt/server_args.py", "sglang/srt/environ.py",
         "sglang/srt/arg_groups", "sglang/__init__.py", "sglang/version.py")


def standin_bundle(rel, tmp_path: Path) -> Path:
    """<tmp_path>/bundle/site.tar.xz, as shared/gpu/build_bundle.py lays it out."""
    site = scratch_copy(rel, tmp_path / "bundle-src", PARTS, dist_info=True).root
    (site / "sglang" / "__init__.py").write_text("")  # nothing imported at start-up
    shutil.copy2(STANDIN / "launch_server.py", site / "sglang" / "launch_server.py")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    with tarfile.open(bundle / "site.tar.xz", "w:xz", preset=0) as tf:
        for p in site.iterdir():
            tf.add(p, arcname=p.name)
    return bundle
