"""Overridden methods a class still runs (superreach.py): ``super().m()``, ``super(Cls, self).m()``
and ``Base.m(self)`` in a method the class runs reach the base's body, on this class's instance.

Found by a blind red-team batch (session 50, case515): a ``Timer`` stores ``_start`` in
``__enter__``; ``SyncTimer`` (another module) overrides ``__enter__`` without ``super()`` and extends
``__exit__`` with ``return super().__exit__(*exc)``, whose body reads ``self._start``. The analyzer
judged only each name's effective method, so the read in ``Timer.__exit__`` was never judged for
``SyncTimer``. It is the field bug's shape too: a subclass of the patched worker that skips its
``__init__`` and extends ``forward_batch_generation`` through ``super()``. Each bug below is run
and raises AttributeError; each control is run and does not."""
from __future__ import annotations

import sys
import textwrap

import pytest

from _analysed_package import package_keys as findings

TIMER = """
import time


class Timer:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self._start
        return False
"""

SYNC = """
from .timer import Timer


class SyncTimer(Timer):
    def __enter__(self):
        {enter}
        return self

    def __exit__(self, *exc):
        return {exit_call}
"""


def _run(tmp_path, files: dict, code: str):
    """Run ``code`` against the package written to ``tmp_path`` (a fresh import each time)."""
    sys.path.insert(0, str(tmp_path))
    try:
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]
        ns: dict = {}
        exec(textwrap.dedent(code), ns)
        return ns
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]


USE = "from pkg.sync import SyncTimer\nwith SyncTimer('t'):\n    pass\n"


@pytest.mark.parametrize("exit_call", ["super().__exit__(*exc)", "super(SyncTimer, self).__exit__(*exc)",
                                       "Timer.__exit__(self, *exc)"])
def test_a_base_method_an_override_reaches_is_judged_for_the_subclass(tmp_path, exit_call):
    files = {"timer.py": TIMER, "sync.py": SYNC.format(enter="pass", exit_call=exit_call)}
    got = findings(tmp_path, files)
    assert ("SyncTimer", "_start", "PK003", "error") in got
    with pytest.raises(AttributeError, match="_start"):
        _run(tmp_path, files, USE)


def test_an_override_that_chains_to_the_base_is_clean(tmp_path):
    files = {"timer.py": TIMER, "sync.py": SYNC.format(enter="super().__enter__()", exit_call="super().__exit__(*exc)")}
    assert not {k for k in findings(tmp_path, files) if k[1] == "_start"}
    _run(tmp_path, files, USE)


def test_the_field_bugs_shape_through_super(tmp_path):
    """A worker subclass skips the patched worker's ``__init__`` and extends the decode step
    through ``super()``: the threshold the base's step reads is never stored on it."""
    files = {
        "worker.py": """
            class Worker:
                def __init__(self, args):
                    self.args = args
                    self.threshold = args.get("threshold")

                def step(self, batch):
                    if self.threshold is not None and len(batch) > self.threshold:
                        return "plain"
                    return "speculative"
        """,
        "standalone.py": """
            from .worker import Worker


            class StandaloneWorker(Worker):
                def __init__(self, args):
                    self.args = args

                def step(self, batch):
                    return super().step(batch) + "-standalone"
        """,
    }
    got = findings(tmp_path, files)
    assert ("StandaloneWorker", "threshold", "PK003", "error") in got
    with pytest.raises(AttributeError, match="threshold"):
        _run(tmp_path, {k: textwrap.dedent(v) for k, v in files.items()},
             "from pkg.standalone import StandaloneWorker\nStandaloneWorker({}).step([1])\n")


def test_a_library_class_between_stops_the_lookup(tmp_path):
    """``super().m()`` may land in a library class's own ``m``: the base's body further down the
    MRO is not taken as run."""
    files = {
        "base.py": """
            class Base:
                def close(self):
                    return self._handle
        """,
        "sub.py": """
            import io
            from .base import Base


            class Sub(io.StringIO, Base):
                def close(self):
                    return super().close()
        """,
    }
    assert not {k for k in findings(tmp_path, files) if k[1] == "_handle"}


def test_a_module_level_alias_of_the_base_initialiser_runs_it(tmp_path):
    """``_base_init = Loader.__init__`` at the top level, called as ``_base_init(self, root)``:
    construction runs Loader's initialiser (red-team control fp232, exposed by the rule above)."""
    files = {
        "loader.py": """
            class Loader:
                def __init__(self, root):
                    self.root = root
                    self._opened = []

                def load(self, name):
                    self._opened.append(name)
                    return self.root + "/" + name
        """,
        "cached.py": """
            from .loader import Loader

            _base_init = Loader.__init__


            class CachedLoader(Loader):
                def __init__(self, root):
                    _base_init(self, root)
                    self._memo = {}

                def load(self, name):
                    if name not in self._memo:
                        self._memo[name] = super().load(name)
                    return self._memo[name]
        """,
    }
    assert not {k for k in findings(tmp_path, files) if k[3] == "error"}
    ns = _run(tmp_path, {k: textwrap.dedent(v) for k, v in files.items()},
              "from pkg.cached import CachedLoader\nout = CachedLoader('/d').load('x')\n")
    assert ns["out"] == "/d/x"
