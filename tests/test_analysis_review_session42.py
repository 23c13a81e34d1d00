"""The review of session 42's analyzer changes (a helper that probed them with its own programs,
each run with python first): the shapes it found wrong, kept as regressions. Each program either
raises AttributeError on the named attribute (it must stay an error) or runs (no new error).

- a ``self.__dict__.pop`` helper takes an attribute away where the walk does not follow: the
  ``not hasattr`` branch stays open (review item 1);
- a parameter defaulting to ``type(self)`` may be another class (item 2);
- a factory of the same name in another module, a store under a branch (item 3);
- a base registered by a class decorator may be built by the registry (item 4);
- ``self.__attrs_init__()`` runs the generated initialiser and its post-init (item 5);
- a library class's class-level default, a static method's parameter, a helper only its
  ``__init__`` calls (item 6); an ndarray subclass's operator and pickling dunders (item 7).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from patchkit.analysis.runner import analyse_paths

SINGLE = {
    'h/e1.py': ('loader', 'error', 'class Cache:\n    def __init__(self, data):\n        self.value = data\n        self._invalidate("value")\n        if not hasattr(self, "value"):\n            self.value = self.loader(data)\n\n    def _invalidate(self, name):\n        self.__dict__.pop(name, None)\n\n\nCache(3)\n'),
    's/s9.py': ('registered', 'error', 'class Widget:\n    def __init__(self, owner=None):\n        self.name = "w"\n        if owner is None:\n            owner = type(self)\n        owner.registered = True\n\n    def show(self):\n        return self.registered\n\n\nclass Panel:\n    pass\n\n\nWidget(Panel).show()\n'),
    'tb/tb1.py': ('accepted', 'error', 'REGISTRY = {}\n\n\ndef register(cls):\n    REGISTRY[cls.__name__.lower()] = cls\n    return cls\n\n\nclass StateSpec:\n    def __init__(self):\n        self.accepted = []\n\n\n@register\nclass BooleanState(StateSpec):\n    def __init__(self):\n        self.flag = True\n\n    def check(self, x):\n        return x in self.accepted\n\n\n@register\nclass CleanState(BooleanState):\n    def __init__(self):\n        super().__init__()\n        self.accepted = ["dirt"]\n\n\nfor key in ("cleanstate", "booleanstate"):\n    print(key, REGISTRY[key]().check("dirt"))\n'),
    'd/d4.py': (None, 'no-error', 'import attr\n\n\n@attr.s(init=False)\nclass Base:\n    x = attr.ib()\n\n    def __attrs_post_init__(self):\n        self.y = self.x * 2\n\n\nclass Sub(Base):\n    def __init__(self, x):\n        self.__attrs_init__(x)\n\n    def use(self):\n        return self.y\n\n\nprint(Sub(3).use())\n'),
    'L/l1.py': (None, 'no-pk006-error', 'import getopt\n\n\nclass UsageError(getopt.GetoptError):\n    def __init__(self, option):\n        self.option = option\n\n\ntry:\n    raise UsageError("-x")\nexcept getopt.GetoptError as e:\n    print(repr(str(e)), e.option)\n'),
    'L/l8.py': (None, 'no-pk006-error', 'from fakelib.nodes import Node\n\n\nclass Leaf(Node):\n    def __init__(self, label):\n        self.label = label\n\n\nclass Named:\n    def __init__(self, name):\n        self.name = name\n\n\nprint(Leaf("x").kind(), sorted([Named("b"), Named("a")], key=Leaf.sort_key)[0].name)\n'),
    'L/l9.py': (None, 'no-pk006-error', 'from fakelib.service import Service\n\n\nclass Fake(Service):\n    def __init__(self):\n        self.calls = 0\n\n    def ping(self):\n        self.calls += 1\n        return "fake"\n\n    def status(self):\n        return "ok"\n\n\nprint(Fake().ping())\n'),
    'n/n8.py': (None, 'no-error', 'import numpy as np\n\n\nclass Grid(np.ndarray):\n    def __new__(cls, n):\n        return np.zeros(n).view(cls)\n\n    def __init__(self, n):\n        self.meta = {"n": n}\n\n    def restore(self, state):\n        self.__setstate__(state)\n        return self\n\n    def adder(self):\n        return self.__add__\n\n    def dup(self):\n        return self.__deepcopy__({})\n\n    def size_of(self):\n        return self.meta["n"]\n\n\ng = Grid(3)\nprint(g.adder()(1), g.dup(), g.restore(g.__reduce__()[2]), g.size_of())\n'),
}
PACKAGES = {
    'tf1': ('_framework', {'__init__.py': '', 'engines.py': 'class Engine:\n    def __init__(self, name):\n        self.name = name\n\n    def run(self):\n        return self._framework + self.name\n\n\ndef create_class(cls, count):\n    return [cls] * count\n\n\nENGINES = create_class(Engine, 2)\n', 'frameworks.py': 'def create_class(cls, framework):\n    new_class = type(cls.__name__, (cls,), {})\n    new_class._framework = framework\n    return new_class\n', 'main.py': 'from pkg.engines import ENGINES\n\nprint(ENGINES[0]("x").run())\n'}),
    'tf2': ('_loop_kind', {'__init__.py': '', 'core.py': 'def create_class(cls, framework):\n    new_class = type(cls.__name__, (cls,), {})\n    if framework == "asyncio":\n        new_class._loop_kind = "asyncio"\n    return new_class\n\n\nclass Cursor:\n    def __init__(self, name):\n        self.name = name\n\n    def kind(self):\n        return self._loop_kind\n\n\nTornadoCursor = create_class(Cursor, "tornado")\nprint(TornadoCursor("x").kind())\n'}),
}


def _findings(path: Path) -> list:
    return [f for r in analyse_paths([path], use_cache=False, jobs=1) for f in r.findings]


@pytest.mark.parametrize("name", sorted(SINGLE))
def test_review_single_file_shape(tmp_path, name):
    attr, expect, src = SINGLE[name]
    p = tmp_path / "m.py"
    p.write_text(src)
    fs = _findings(p)
    errors = [f for f in fs if f.severity.value == "error"]
    if expect == "error":
        assert any(f.attr == attr for f in errors), [str(f) for f in fs]
    elif expect == "no-error":
        assert not errors, [str(f) for f in errors]
    else:
        assert not [f for f in errors if f.code == "PK006"], [str(f) for f in errors]


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_review_package_shape(tmp_path, name):
    attr, files = PACKAGES[name]
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for rel, text in files.items():
        (pkg / rel).write_text(text)
    errors = [f for f in _findings(pkg) if f.severity.value == "error"]
    assert any(f.attr == attr for f in errors), [str(f) for f in errors]
