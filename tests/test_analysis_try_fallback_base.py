"""A base imported under ``try:`` from a package this environment does not have, with an ``except``
import from the tree, is the tree's class: that is what runs here. The field bug behind such a base
(the threshold assigned in another class's ``__init__``) used to be silent, because the alternative
opened the class. Where the ``try:`` package is importable, the class stays open."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from patchkit.analysis import external
from patchkit.analysis.runner import analyse_paths

RUNNER = '''
try:
    from {pkg} import Engine
except ImportError:
    from .engine import Engine


class Draft:
    def __init__(self, args):
        self.disable_threshold = args.t


class Target(Engine):
    def __init__(self, args):
        super().__init__(args)
        self.draft = Draft(args)

    def forward(self, batch):
        if batch.size > self.disable_threshold:
            return self.plain(batch)
        return batch
'''

ENGINE = '''
class Engine:
    def __init__(self, args):
        self.args = args

    def plain(self, batch):
        return batch
'''


def _tree(tmp_path: Path, pkg: str) -> Path:
    lib = tmp_path / "tree" / "lib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "engine.py").write_text(ENGINE)
    (lib / "runner.py").write_text(RUNNER.format(pkg=pkg))
    return lib


def _errors(lib: Path):
    return {(f.code, f.cls, f.attr) for r in analyse_paths([lib], use_cache=False, jobs=1) for f in r.findings
            if f.severity.value == "error"}


@pytest.fixture(autouse=True)
def _fresh_presence():
    external._PRESENT.clear()
    yield
    external._PRESENT.clear()


def test_the_fallback_base_runs_here_and_the_wrong_class_assignment_is_an_error(tmp_path):
    lib = _tree(tmp_path, "patchkit_test_no_such_accelerator")
    assert ("PK003", "Target", "disable_threshold") in _errors(lib)


def test_an_importable_try_package_keeps_the_class_open(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "fast_engine").mkdir(parents=True)
    (site / "fast_engine" / "__init__.py").write_text("class Engine:\n    pass\n")
    monkeypatch.setattr(sys, "path", [str(site)] + sys.path)
    lib = _tree(tmp_path, "fast_engine")
    assert ("PK003", "Target", "disable_threshold") not in _errors(lib)


def test_a_builtin_module_counts_as_present():
    assert external.top_level_present("sys.foo")
    assert not external.top_level_present("patchkit_test_no_such_accelerator.x")


MOCKED = '''
try:
    from torch.nn import Module
except ImportError:
    from .mocks import Module


class Loss(Module):
    def __init__(self, w):
        super().__init__()
        self.w = w

    def forward(self, x):
        if self.training:
            return x * self.w
        return self.modules(), self.scale
'''

MOCKS = '''
class Module:  # a stand-in for torch.nn.Module where torch is not installed
    def __init__(self, *args, **kwargs):
        self.args = args
'''


def test_a_known_library_base_behind_a_mock_fallback_stays_the_library_base(tmp_path):
    """autots: ``try: from torch.nn import Module / except: from autots.tools.mocks import Module``.
    Users run torch's Module (the analyzer knows what it sets up without torch installed); the mock
    is for machines without torch. Reads of what torch's Module gives are no findings; a name neither
    gives is still an error."""
    assert not external.top_level_present("torch")
    lib = tmp_path / "tree" / "lib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "mocks.py").write_text(MOCKS)
    (lib / "loss.py").write_text(MOCKED)
    errors = _errors(lib)
    assert not {e for e in errors if e[2] in ("training", "modules")}, errors
    assert ("PK003", "Loss", "scale") in errors


def test_an_in_tree_class_named_like_a_library_base_is_still_the_fallback(tmp_path):
    """Only a base that is certainly the library's stays the library's: a project's own ``Thread``
    (a pure-Python fallback of a missing accelerator) is what runs, and what its __init__ sets counts."""
    lib = tmp_path / "tree" / "lib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "pythreads.py").write_text(
        "import threading\n\nclass Thread(threading.Thread):\n    def __init__(self, jobs):\n"
        "        super().__init__(daemon=True)\n        self.jobs = jobs\n")
    (lib / "worker.py").write_text(
        "try:\n    from patchkit_test_no_speedups import Thread\nexcept ImportError:\n    from .pythreads import Thread\n\n\n"
        "class Worker(Thread):\n    def __init__(self, jobs):\n        super().__init__(jobs)\n        self.done = 0\n\n"
        "    def run(self):\n        for j in self.jobs:\n            self.done += 1\n")
    assert not {e for e in _errors(lib) if e[2] == "jobs"}
