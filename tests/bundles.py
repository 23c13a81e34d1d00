"""A GPU-host bundle for CPU tests of the bench/gpu/*_on_host.sh scripts: the files the patch and the
matrix read from a real cached release, with the STAND-IN server as sglang.launch_server."""
from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "fixtures" / "standin_sglang" / "sglang"
PARTS = ("sglang/srt/speculative", "sglang/srt/server_args.py", "sglang/srt/environ.py",
         "sglang/srt/arg_groups", "sglang/__init__.py", "sglang/version.py")


def standin_bundle(rel, tmp_path: Path) -> Path:
    """<tmp_path>/bundle/site.tar.xz, as shared/gpu/build_bundle.py lays it out."""
    site = tmp_path / "bundle-src"
    for part in PARTS:
        src = rel.root / part
        if src.is_dir():
            shutil.copytree(src, site / part, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        elif src.is_file():
            (site / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, site / part)
    (site / "sglang" / "__init__.py").write_text("")  # nothing imported at start-up
    shutil.copy2(STANDIN / "launch_server.py", site / "sglang" / "launch_server.py")
    for info in rel.root.glob("*.dist-info"):
        shutil.copytree(info, site / info.name)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    with tarfile.open(bundle / "site.tar.xz", "w:xz", preset=0) as tf:
        for p in site.iterdir():
            tf.add(p, arcname=p.name)
    return bundle
