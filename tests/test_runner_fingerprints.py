"""The warm run's fingerprint index (patchkit/analysis/fingerprints.py): an unchanged file is not
read again, and every way a file can change under an unchanged-looking stat is still seen."""
import json
import os

import pytest

from patchkit.analysis import fingerprints, runner
from patchkit.analysis.checker import Settings
from patchkit.ftypes import NotWritable

BUG = "class A:\n    def __init__(self):\n        self.x = 1\n    def f(self):\n        return self.y\n"
FIXED = BUG.replace("self.y", "self.x")  # the same size: only the content tells them apart
BASE = "class Base:\n    def __init__(self):\n        self.t = 1\n    def f(self):\n        return self.t\n"
SUB = "from pkg.base import Base\n\nclass Sub(Base):\n    def __init__(self):\n        pass\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(fingerprints, "RACY_NS", 0)  # files written a moment ago count as settled
    return tmp_path / "cache" / "analysis" / fingerprints.INDEX


def _tree(tmp_path, files: dict):
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).write_text(text)
    return pkg


def _codes(reports):
    return sorted((os.path.basename(f.path), f.line, f.attr, f.code) for r in reports for f in r.findings)


def test_a_warm_run_reads_no_unchanged_file(tmp_path, cache, monkeypatch):
    pkg = _tree(tmp_path, {"base.py": BASE, "sub.py": SUB, "m.py": BUG})
    cold = runner.analyse_paths([pkg], Settings())
    assert cache.is_file() and len(json.loads(cache.read_text())) == 4
    monkeypatch.setattr(runner, "read_text", lambda p: pytest.fail(f"read {p}"))
    warm = runner.analyse_paths([pkg], Settings())
    assert [r.cached for r in warm] == [True] * 4
    assert _codes(warm) == _codes(cold) and ("m.py", 5, "y", "PK003") in _codes(warm)


def test_an_edit_keeping_size_and_mtime_is_seen(tmp_path, cache):
    """``cp -p`` / ``touch -r`` after an edit: the ctime, which nothing sets back, still moves."""
    pkg = _tree(tmp_path, {"m.py": BUG})
    m = pkg / "m.py"
    assert ("m.py", 5, "y", "PK003") in _codes(runner.analyse_paths([pkg], Settings()))
    st = os.stat(m)
    m.write_text(FIXED)
    os.utime(m, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(m).st_size == st.st_size and os.stat(m).st_mtime_ns == st.st_mtime_ns
    again = runner.analyse_paths([pkg], Settings())
    assert [r.cached for r in again if r.path.endswith("m.py")] == [False] and _codes(again) == []


def test_an_edit_to_a_base_module_invalidates_the_subclass(tmp_path, cache):
    pkg = _tree(tmp_path, {"base.py": BASE, "sub.py": SUB})
    assert ("base.py", 5, "t", "PK003") in _codes(runner.analyse_paths([pkg / "sub.py"], Settings()))
    base = pkg / "base.py"
    st = os.stat(base)
    base.write_text(BASE.replace("self.t", "self.u", 1))  # the base now assigns u: t is never assigned anywhere
    os.utime(base, ns=(st.st_atime_ns, st.st_mtime_ns))
    again = runner.analyse_paths([pkg / "sub.py"], Settings())
    assert [r.cached for r in again] == [False]


def test_an_edit_between_the_stat_and_the_read_is_read_again(tmp_path, cache, monkeypatch):
    """The stamp is taken before the read: a file rewritten while it is being analysed keeps an
    older stamp than its content, so the next run does not trust it."""
    pkg = _tree(tmp_path, {"m.py": BUG})
    m = pkg / "m.py"
    real = runner.read_text

    def read_then_edit(path):
        got = real(path)
        if path.endswith("m.py"):
            st = os.stat(path)
            m.write_text(FIXED)
            os.utime(m, ns=(st.st_atime_ns, st.st_mtime_ns))
        return got
    monkeypatch.setattr(runner, "read_text", read_then_edit)
    first = runner.analyse_paths([pkg], Settings())
    assert ("m.py", 5, "y", "PK003") in _codes(first)  # what was read: the old text
    monkeypatch.setattr(runner, "read_text", real)
    second = runner.analyse_paths([pkg], Settings())
    assert [r.cached for r in second if r.path.endswith("m.py")] == [False] and _codes(second) == []


def test_a_file_younger_than_the_racy_window_is_not_recorded(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(fingerprints, "RACY_NS", 3_600 * 10**9)
    pkg = _tree(tmp_path, {"m.py": BUG})
    runner.analyse_paths([pkg], Settings())
    runner.analyse_paths([pkg], Settings())
    assert not cache.exists() or json.loads(cache.read_text()) == {}


def test_a_base_module_with_a_byte_order_mark_is_read_and_its_hash_kept(tmp_path, cache, monkeypatch):
    """A base module starting with a UTF-8 byte order mark was read with ``utf-8`` (the mark kept,
    so the module did not parse): the missing super call across modules went unreported when
    the subclass's file was checked alone, and a warm run re-analysed it every time."""
    pkg = _tree(tmp_path, {"sub.py": SUB})
    (pkg / "base.py").write_bytes(b"\xef\xbb\xbf" + BASE.encode())
    alone = runner.analyse_paths([pkg / "sub.py"], Settings(), use_cache=False)
    assert _codes(alone) == [("base.py", 5, "t", "PK003")]
    cold = runner.analyse_paths([pkg], Settings())
    assert _codes(cold) == _codes(alone)
    monkeypatch.setattr(runner, "read_text", lambda p: pytest.fail(f"read {p}"))
    warm = runner.analyse_paths([pkg], Settings())
    assert all(r.cached for r in warm) and _codes(warm) == _codes(cold)


def test_a_garbled_index_and_an_unwritable_cache_cost_time_not_the_run(tmp_path, cache, monkeypatch):
    pkg = _tree(tmp_path, {"m.py": BUG})
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"\x00not json")
    want = [("m.py", 5, "y", "PK003")]
    assert _codes(runner.analyse_paths([pkg], Settings())) == want

    def refuse(path, *a, **k):
        raise NotWritable(f"{path}: not writable")
    monkeypatch.setattr(fingerprints, "atomic_write", refuse)
    monkeypatch.setattr(runner, "atomic_write", refuse)
    (pkg / "m.py").write_text(BUG + "\n")
    assert _codes(runner.analyse_paths([pkg], Settings())) == want


def test_the_racy_window_is_judged_when_the_stat_was_taken_not_when_recorded(tmp_path):
    """On a filesystem with 2 s timestamps an edit in the same tick as the stat keeps the stamp; the
    recording comes after a long analysis, so judging at recording time would trust it."""
    fps = fingerprints.Fingerprints(tmp_path)
    st = os.stat(tmp_path)
    now = max(st.st_mtime_ns, st.st_ctime_ns)
    fps.record(str(tmp_path / "young.py"), st, "a" * 64, seen_ns=now + fingerprints.RACY_NS // 2)
    fps.record(str(tmp_path / "settled.py"), st, "b" * 64, seen_ns=now + 2 * fingerprints.RACY_NS)
    assert set(map(os.path.basename, fps.new)) == {"settled.py"}
