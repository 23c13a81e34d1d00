"""File discovery and the result cache of the analyzer's runner."""
from pathlib import Path

from hypothesis import given, settings, strategies as st

from patchkit.analysis import runner
from patchkit.analysis.checker import Settings

BUG = "class A:\n    def __init__(self, c):\n        if c:\n            self.x = 1\n    def f(self):\n        return self.x\n"


def test_a_tree_below_a_hidden_folder_is_analysed_but_hidden_subfolders_are_not(tmp_path):
    # ~/.cache/..., ~/.pyenv/..., .venv/lib/site-packages: the folder named may sit below a dot-folder
    root = tmp_path / ".cache" / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text(BUG)
    (root / "pkg" / ".hidden").mkdir()
    (root / "pkg" / ".hidden" / "b.py").write_text(BUG)
    files = runner.expand([root])
    assert [f.name for f in files] == ["a.py"]
    reports = runner.analyse_paths([root], Settings(), use_cache=False)
    assert [(Path(r.path).name, [f.code for f in r.findings]) for r in reports] == [("a.py", ["PK001"])]


def test_cached_results_match_fresh_ones_and_follow_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text(BUG)
    first = runner.analyse_paths([src], Settings())
    second = runner.analyse_paths([src], Settings())
    assert [r.cached for r in first] == [False] and [r.cached for r in second] == [True]
    assert [(f.line, f.code) for f in first[0].findings] == [(f.line, f.code) for f in second[0].findings]
    (src / "m.py").write_text(BUG.replace("        if c:\n            self.x = 1", "        self.x = 1"))
    third = runner.analyse_paths([src], Settings())
    assert third[0].cached is False and third[0].findings == []


def test_an_internal_error_is_reported_but_never_replayed_from_the_cache(tmp_path, monkeypatch):
    """A file of the tree removed while a run read it (two CI runs sharing one cache, one clone
    deleted under the other) made an internal error that the cache then replayed for every later
    run of the same file: reported once, it must be analysed afresh the next time."""
    from patchkit.analysis import checker
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text(BUG)
    real = checker.Analyzer.analyse

    def vanished(self, mods):
        raise FileNotFoundError(2, "No such file or directory")
    monkeypatch.setattr(checker.Analyzer, "analyse", vanished)
    first = runner.analyse_paths([src], Settings(), jobs=1)
    assert first[0].error.startswith("internal error: FileNotFoundError")
    monkeypatch.setattr(checker.Analyzer, "analyse", real)
    second = runner.analyse_paths([src], Settings(), jobs=1)
    assert second[0].cached is False and second[0].error is None
    assert [f.code for f in second[0].findings] == ["PK001"]


def test_the_cache_key_covers_the_rule_units_and_their_examples():
    """A change to a rule alone (patchkit/analysis/rules/...) must invalidate cached results: the
    key hashed only the top-level analysis modules before (a review of session 32 found it)."""
    from patchkit.analysis.runner import hashed_sources
    names = {p.as_posix().split("patchkit/analysis/")[-1] for p in hashed_sources()}
    assert "rules/pk003_never_assigned.py" in names and "rules/examples/pk003.py" in names
    assert "checker.py" in names and "nearname.py" in names


def _path_order(paths):
    """The reference: the files as Path objects sorted them before expand_names worked on strings."""
    import os
    import stat
    out = []
    for p in paths:
        mode = os.stat(p).st_mode
        if stat.S_ISDIR(mode):
            found = []
            for d, dirs, files in os.walk(p):
                dirs[:] = [x for x in dirs if not x.startswith(".")]
                found += [os.path.join(d, f) for f in files if f.endswith(".py") and not f.startswith(".")]
            out += sorted(map(Path, found))
        else:
            out.append(Path(p))
    return [str(x) for x in out]


_NAME = st.text("ab-._Z0", min_size=1, max_size=3).filter(lambda s: s not in (".", ".."))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_NAME, min_size=1, max_size=3), min_size=1, max_size=10))
def test_file_discovery_keeps_the_order_and_spelling_of_paths(tree):
    """expand_names (strings) gives the same files, in the same order and spelling, as sorting
    Path objects did, whatever the names (``-`` and ``.`` sort before ``/``) and however the
    folder is spelt (``./top``, ``top/``)."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        root = Path(t) / "top"
        for parts in tree:
            f = root.joinpath(*parts[:-1]) / (parts[-1] + ".py")
            try:
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text("")
            except OSError:  # a name both a file and a folder: skip it
                pass
        here = os.getcwd()
        os.chdir(t)
        try:
            for spelt in ("top", "./top", "top/", str(root)):
                assert runner.expand_names([spelt]) == _path_order([spelt]), spelt
        finally:
            os.chdir(here)
