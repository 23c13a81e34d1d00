"""Session 41's rules from its red team (bench/results/analyzer-redteam-session41.md), each with the
shapes of the same kind that stay reported.

1. A set-up method spelt like a hook a base runs during construction (``setUp`` for ``setup``,
   ``Prepare`` for ``prepare``) that nothing calls: what it assigns is an error naming the hook
   (case125). A test framework's hooks (``setUp``, ``setup_method``) are taken as run only on a
   test class; before, any class's ``setUp`` was.
2. ``__getattr__ = dict.__getitem__`` in a class body is a ``__getattr__`` (fp248, an AttrDict).
3. ``getattr(super(), "__init__")(...)``, called at once or through a local, runs the base's
   ``__init__`` (fp257).
4. ``functools.partial(super().__init__, ...)`` hands the base initialiser over (fp202).
"""
from __future__ import annotations

import textwrap

from patchkit.analysis import analyse_source


def _keys(src: str) -> set[tuple[str, str, str, str]]:
    return {(f.cls, f.attr, f.code, f.severity.value) for f in analyse_source("m.py", textwrap.dedent(src))}


HOOK = """
class Task:
    def __init__(self, name):
        self.name = name
        self.setup()

    def setup(self):
        \"\"\"Override to prepare resources.\"\"\"


class Download(Task):
    def {name}(self):
        self.urls = ["a", "b"]

    def run(self):
        return len(self.urls)
"""


def test_an_override_spelt_like_the_hook_is_an_error_naming_it():
    got = [f for f in analyse_source("m.py", textwrap.dedent(HOOK.format(name="setUp"))) if f.attr == "urls"]
    assert [(f.code, f.severity.value) for f in got] == [("PK004", "error")]
    assert "Task.setup" in got[0].why and got[0].hint == "rename setUp to setup"
    assert ("Download", "urls", "PK004", "error") in _keys(HOOK.format(name="set_up"))
    # spelt right: the base's hook runs the override, nothing to report
    assert not {k for k in _keys(HOOK.format(name="setup")) if k[1] == "urls"}
    # a name unlike any hook construction runs stays a two-phase warning
    assert ("Download", "urls", "PK004", "warning") in _keys(HOOK.format(name="load"))


def test_an_override_someone_calls_stays_a_warning():
    called = HOOK.format(name="setUp") + "\n\ndef main():\n    d = Download('x')\n    d.setUp()\n    return d.run()\n"
    assert ("Download", "urls", "PK004", "warning") in _keys(called)


def test_test_framework_hooks_count_on_test_classes_only():
    src = """
    import unittest


    class TestThing(unittest.TestCase):
        def setUp(self):
            self.x = 1

        def test_a(self):
            self.assertEqual(self.x, 1)


    class TestPlain:
        def setup_method(self):
            self.y = 2

        def test_b(self):
            assert self.y == 2


    class Helper:
        def setUp(self):
            self.z = 3

        def use(self):
            return self.z
    """
    keys = _keys(src)
    assert not {k for k in keys if k[0] in ("TestThing", "TestPlain")}
    assert ("Helper", "z", "PK004", "warning") in keys  # nothing runs a setUp outside a test class


def test_a_class_body_binding_getattr_opens_the_class():
    src = """
    class DbConfig(dict):
        __getattr__ = dict.__getitem__

        def url(self):
            return f"{self.host}:{self.port}"


    class Plain(dict):
        def url(self):
            return self.host
    """
    keys = _keys(src)
    assert not {k for k in keys if k[0] == "DbConfig"} and ("Plain", "host", "PK003", "error") in keys


def test_getattr_of_super_runs_the_named_method():
    src = """
    import functools


    class Host:
        def __init__(self, parent=None):
            self.registry = {}
            self.parent = parent


    class ViaGetattr(Host):
        def __init__(self):
            getattr(super(), "__init__")()

        def add(self, k):
            return self.registry


    class ViaLocal(Host):
        def __init__(self):
            init = getattr(super(), "__init__")
            init(None)

        def add(self, k):
            return self.registry


    class ViaPartial(Host):
        def __init__(self, parent):
            init = functools.partial(super().__init__, parent)
            init()

        def add(self, k):
            return self.registry


    class Skips(Host):
        def __init__(self):
            getattr(super(), "__len__", None)

        def add(self, k):
            return self.registry
    """
    keys = _keys(src)
    assert not {k for k in keys if k[0] in ("ViaGetattr", "ViaLocal", "ViaPartial")}
    assert ("Skips", "registry", "PK003", "error") in keys
