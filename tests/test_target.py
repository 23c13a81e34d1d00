"""The three kinds of target: installed distribution (found without importing), folder, release."""
import sys

import pytest

from patchkit import target as tgt
from patchkit.ftypes import FetchError, TargetKind, TargetNotFound, UsageError


def test_installed_distribution_is_found_through_metadata_without_import(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "sglang").mkdir(parents=True)
    (site / "sglang" / "__init__.py").write_text("raise RuntimeError('imported!')\n")
    info = site / "sglang-0.5.16.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.16\n")
    monkeypatch.syspath_prepend(str(site))
    t = tgt.installed("sglang")
    assert (t.version, t.root, t.kind) == ("0.5.16", site.resolve(), TargetKind.INSTALLED)
    assert "sglang" not in sys.modules or not getattr(sys.modules["sglang"], "__file__", "").startswith(str(site))


def test_folder_target_accepts_the_package_folder_itself(tmp_path):
    (tmp_path / "sglang").mkdir()
    (tmp_path / "sglang" / "version.py").write_text('__version__ = "0.5.13"\n')
    for p in (tmp_path, tmp_path / "sglang"):
        t = tgt.directory(p, "sglang")
        assert t.root == tmp_path.resolve() and t.version == "0.5.13"


def test_bad_targets_say_what_is_wrong(tmp_path):
    with pytest.raises(TargetNotFound, match="holds no 'sglang/' package folder"):
        tgt.directory(tmp_path, "sglang")
    with pytest.raises(UsageError, match="give one of --target, --target-dir, --release"):
        tgt.resolve("sglang", tmp_path, None)
    with pytest.raises(UsageError, match="'abc' is not a version|write it as NAME==VERSION"):
        tgt.parse_requirement("sglang==abc")


@pytest.mark.network
def test_release_is_fetched_once_then_served_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    try:
        t = tgt.fetch("sglang==0.5.6")
    except FetchError as exc:  # no registry: say so, do not fake
        pytest.skip(f"cannot fetch sglang==0.5.6 from the package registry: {exc}")
    assert t.kind is TargetKind.RELEASE and (t.root / "sglang" / "srt").is_dir()
    assert any(t.root.glob("sglang-0.5.6.dist-info"))
    calls = []
    monkeypatch.setattr(tgt.subprocess, "run", lambda *a, **k: calls.append(a) or (_ for _ in ()).throw(AssertionError))
    again = tgt.fetch("sglang==0.5.6")
    assert again.root == t.root and calls == []  # offline: no pip call the second time


def test_a_release_patched_in_place_by_an_old_patchkit_is_unpacked_afresh(tmp_path, monkeypatch):
    """A cached release holding a .patchkit journal was patched in place: fetch restores the pristine tree
    from the cached wheel (no network), so matrix and `cp -r` never see a patched release."""
    import zipfile
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "c"))
    wheels = tmp_path / "c" / "wheels"
    wheels.mkdir(parents=True)
    with zipfile.ZipFile(wheels / "sglang-9.9.9-py3-none-any.whl", "w") as z:
        z.writestr("sglang/__init__.py", "ORIGINAL = True\n")
        z.writestr("sglang-9.9.9.dist-info/METADATA", "Name: sglang\nVersion: 9.9.9\n")
    t = tgt.fetch("sglang==9.9.9")
    (t.root / "sglang" / "__init__.py").write_text("PATCHED = True\n")
    (t.root / ".patchkit").mkdir()
    assert tgt.cached_release("sglang", "9.9.9") is None
    t2 = tgt.fetch("sglang==9.9.9")
    assert (t2.root / "sglang" / "__init__.py").read_text() == "ORIGINAL = True\n"
    assert not (t2.root / ".patchkit").exists() and tgt.is_shared_release(t2)
