"""The real thing: boot a patched SGLang on a GPU and sign off. Skips (with the reason) where
there is no GPU or no SGLang; the evidence from the H200 lives in bench/results/gpu/."""
from __future__ import annotations

import importlib.util
import shutil

import pytest

from patchkit import target as tgt

pytestmark = pytest.mark.gpu


def _why_not() -> str | None:
    if shutil.which("nvidia-smi") is None:
        return "no NVIDIA GPU on this machine (nvidia-smi not found)"
    if importlib.util.find_spec("sglang") is None:
        return "sglang is not importable here"
    return None


@pytest.fixture
def patched_installed():
    """The installed sglang with dynamic-spec-disable applied; reverted afterwards when this
    fixture applied it (an sglang that already carried the patch is left as it was found)."""
    from patchkit import registry
    from patchkit.pipeline import applied
    t = tgt.installed("sglang")
    with applied(registry.patch("dynamic-spec-disable"), t):
        yield t


@pytest.mark.skipif(_why_not() is not None, reason=_why_not() or "")
def test_patched_server_signs_off(tmp_path, patched_installed):
    from patchkit.smoke import tiny
    from patchkit.smoke.run import Smoke, SmokeConfig
    t = patched_installed
    mt, md = tiny.write(tmp_path)
    cfg = SmokeConfig(str(mt), str(md), 1, 4, 20, tiny.TINY_ARGS + ["--disable-cuda-graph"], log_dir=tmp_path)
    rec = Smoke(cfg, t).run()
    assert rec["passed"], rec["failure"]
