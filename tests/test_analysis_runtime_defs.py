"""What a class defines at run time: an ``__init__`` (or any method) under ``if TYPE_CHECKING:`` or
decorated ``@typing.overload`` is a signature for the type checker, never the class's own method, so
the base's initialiser still runs (sqlalchemy's DDL compilers and PGUuid were flagged: 11 of 82 false
positives on 13 untuned codebases). A real override that skips the base stays an error."""
from __future__ import annotations

from pathlib import Path

from _analysed_package import package_errors, package_findings

BASE = '''
class Compiled:
    def __init__(self, dialect):
        self.dialect = dialect
'''

SUB = '''
from typing import TYPE_CHECKING, overload
from .base import Compiled


class StubOnly(Compiled):
    if TYPE_CHECKING:
        def __init__(self, dialect, statement): ...

    def visit(self):
        return self.dialect


class OverloadOnly(Compiled):
    @overload
    def __init__(self, dialect: int) -> None: ...

    def visit(self):
        return self.dialect


class RuntimeElse(Compiled):
    if TYPE_CHECKING:
        def __init__(self, dialect): ...
    else:
        def __init__(self, dialect):
            self.other = dialect

    def visit(self):
        return self.dialect


class Real(Compiled):
    def __init__(self, dialect):
        self.other = dialect

    def visit(self):
        return self.dialect
'''


def _errors(tmp_path: Path) -> set[tuple[str, str]]:
    return {(c.split(".")[-1], a) for c, a in package_errors(tmp_path, {"base.py": BASE, "sub.py": SUB})}


def test_type_checking_and_overload_stubs_are_not_the_classes_init(tmp_path):
    errors = _errors(tmp_path)
    assert ("StubOnly", "dialect") not in errors and ("OverloadOnly", "dialect") not in errors
    assert ("RuntimeElse", "dialect") in errors  # the else branch is what runs, and it skips the base
    assert ("Real", "dialect") in errors


NESTED = '''
from . import base


class Mask:
    class Helper:
        def test_x(self):
            pass

    class Sync(Helper, base.Compiled):
        pass

    class Broken(Helper, base.Compiled):
        def __init__(self):
            self.other = 1


class Helper:  # a module-level class of the same name: its __init__ skips Compiled's
    def __init__(self):
        self.own = 1
'''


def test_a_nested_class_base_is_the_enclosing_class_bodys_name(tmp_path):
    """twisted's ``class Mask: class FailureLoggingMixin ...; class SynchronousFailureLogging(
    FailureLoggingMixin, SynchronousTestCase)``: the base is Mask.FailureLoggingMixin (no __init__),
    so SynchronousTestCase.__init__ runs; the module-level class of the same name (whose __init__
    skips the base's) is another class: resolving to it was a false error."""
    errors = package_errors(tmp_path, {"base.py": BASE + "\n    def read(self):\n        return self.dialect\n",
                                       "t.py": NESTED})
    assert ("Mask.Sync", "dialect") not in errors
    assert ("Mask.Broken", "dialect") in errors  # its own __init__ skips the base's


UNREADABLE = '''
from somelib.data import IterableDataset  # not in the tree, not installed: unreadable


class VideoDataset:
    def __init__(self, source):
        self.source = source

    def frame(self):
        return self.source


class CameraDataset(IterableDataset, VideoDataset):
    pass


class AudioDataset:
    def __init__(self, source):
        self.track = source

    def sample(self):
        return self.track


class OwnInit(IterableDataset, AudioDataset):
    def __init__(self):
        self.other = 1
'''


def test_an_unreadable_first_base_makes_the_inherited_init_unknown_not_missing(tmp_path):
    """monai's ``CameraDataset(IterableDataset, VideoDataset)`` with torch not readable: the
    ``__init__`` lookup goes into IterableDataset, which may define none (torch's does not), so
    VideoDataset.__init__ may well run: a warning saying why, not an error. A class whose own
    ``__init__`` skips the base stays an error."""
    found = {}
    for f in package_findings(tmp_path, {"video.py": UNREADABLE}):
        found.setdefault((f.cls, f.attr), []).append(f)
    cam = found[("CameraDataset", "source")]
    assert all(f.severity == "warning" for f in cam) and "unreadable here" in cam[0].why
    assert any(f.severity == "error" for f in found[("OwnInit", "track")])


TEMPLATE = '''
class Colormap:
    def __init__(self, name):
        self.name = name
        self._isinit = False

    def _init(self):
        """Generate the lookup table."""
        raise NotImplementedError("Abstract class only")

    def __call__(self, x):
        if not self._isinit:
            self._init()
        return self._lut[x]


class Listed(Colormap):
    def _init(self):
        self._lut = [0, 1]
        self._isinit = True


class Worker:
    def __init__(self):
        self.ready = True

    def backward(self):
        raise NotImplementedError("not supported on this backend")

    def step(self):
        return self.threshold  # never assigned anywhere: the field bug's shape
'''


def test_a_template_whose_hook_subclasses_implement_is_not_flagged_for_what_they_build(tmp_path):
    """matplotlib's ``Colormap``: ``_init`` only raises NotImplementedError and every subclass
    implements it and builds ``_lut``; the base's ``__call__`` read is the subclasses' contract. A
    concrete class whose unsupported path raises (nothing overrides it) keeps its error."""
    errors = package_errors(tmp_path, {"colors.py": TEMPLATE})
    assert ("Colormap", "_lut") not in errors
    assert ("Worker", "threshold") in errors
