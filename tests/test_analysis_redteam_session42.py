"""Session 42's blind red team (analyzer-redteam-session42.md in bench/results/analyzer-precision-history.tar.xz): the shapes it found
that the analyzer now judges right, each with its counterpart.

1. A plain subclass of a dataclass with its own ``__init__`` never runs the generated ``__init__``,
   so the base's ``__post_init__`` never runs either (case136); with ``super().__init__(...)`` it does.
2. ``cls = type(self); cls._registry = {}`` in ``__init__`` (under ``"_registry" not in
   cls.__dict__``) gives the instance a class attribute (fp268).
3. A library base read from source whose ``__init__`` never runs while its methods read what it
   stores: ``logging.Handler`` without ``super().__init__()`` (case135) is PK006.
"""
from __future__ import annotations

import textwrap

from _analysed_package import package_keys
from patchkit.analysis import analyse_source

SERIES = """
from dataclasses import dataclass, field
from typing import List


@dataclass
class Series:
    name: str
    points: List[float] = field(default_factory=list)

    def __post_init__(self):
        self._sorted = sorted(self.points)

    def median(self):
        return self._sorted[len(self._sorted) // 2]
"""


def _rolling(init: str) -> dict:
    return {"series.py": SERIES, "rolling.py": f"""
        from pkg.series import Series


        class RollingSeries(Series):
            def __init__(self, name, points, window):
        {textwrap.indent(textwrap.dedent(init), " " * 16)}
                self.window = window
    """}


def test_a_plain_subclass_own_init_skips_the_dataclass_post_init(tmp_path):
    keys = package_keys(tmp_path, _rolling("""
        self.name = name
        self.points = list(points)[-window:]
    """))
    assert ("RollingSeries", "_sorted", "PK003", "error") in keys


def test_a_plain_subclass_that_runs_the_generated_init_gets_the_post_init(tmp_path):
    keys = package_keys(tmp_path, _rolling("super().__init__(name, list(points)[-window:])"))
    assert not {k for k in keys if k[0] == "RollingSeries"}


def test_a_dataclass_subclass_of_a_dataclass_still_runs_the_post_init(tmp_path):
    keys = package_keys(tmp_path, {"series.py": SERIES, "tagged.py": """
        from dataclasses import dataclass

        from pkg.series import Series


        @dataclass
        class Tagged(Series):
            tag: str = ""
    """})
    assert not {k for k in keys if k[0] in ("Tagged", "Series")}


REGISTRY = """
class Plugin:
    def __init__(self, name):
        cls = type(self)
        if "_registry" not in cls.__dict__:
            {store}
        self.name = name
        self._registry[name] = self

    def peers(self):
        return sorted(self._registry)
"""


def _errors(src: str) -> set[tuple[str, str]]:
    return {(f.cls, f.attr) for f in analyse_source("m.py", textwrap.dedent(src)) if f.severity.value == "error"}


def test_a_store_on_type_self_gives_the_instance_a_class_attribute():
    assert _errors(REGISTRY.format(store="cls._registry = {}")) == set()
    assert _errors(REGISTRY.format(store="type(self)._registry = {}")) == set()


def test_a_store_on_another_local_class_gives_nothing():
    src = REGISTRY.format(store="other = dict\n            other._registry = {}")
    # the path that took the branch has no _registry: reported (path-dependent, so a warning)
    assert ("Plugin", "_registry") in {(f.cls, f.attr) for f in analyse_source("m.py", textwrap.dedent(src))}
    plain = "class Plugin:\n    def __init__(self):\n        other = dict\n        other._registry = {}\n" \
            "        self._registry['a'] = 1\n"
    assert ("Plugin", "_registry") in _errors(plain)


HANDLER = """
import logging


class ListHandler(logging.Handler):
    def __init__(self, sink):
        {init}
        self.sink = sink

    def emit(self, record):
        self.sink.append(self.format(record))
"""


def _codes(src: str) -> set[tuple[str, str, str]]:
    return {(f.code, f.attr, f.severity.value) for f in analyse_source("m.py", textwrap.dedent(src))}


def test_a_library_base_whose_init_never_runs_is_pk006():
    assert ("PK006", "Handler", "error") in _codes(HANDLER.format(init="pass"))


def test_a_library_base_whose_init_runs_or_whose_reads_are_given_is_fine():
    assert not _codes(HANDLER.format(init="super().__init__()"))
    assert not _codes(HANDLER.format(init="logging.Handler.__init__(self, logging.INFO)"))
    # a subclass that overrides every method reading the state, or sets it itself, needs nothing
    given = """
import json


class Enc(json.JSONEncoder):
    def __init__(self, precision):
        self.precision = precision

    def encode(self, o):
        return str(round(o, self.precision))

    def iterencode(self, o, _one_shot=False):
        yield self.encode(o)
"""
    assert not {c for c in _codes(given) if c[0] == "PK006"}


def test_a_library_init_run_by_a_later_set_up_method_is_not_pk006():
    """ray 2.49's ``_RemotePdb`` runs ``Pdb.__init__`` in ``listen()``, after construction."""
    src = """
import pdb


class RemotePdb(pdb.Pdb):
    def __init__(self, port):
        self.port = port

    def listen(self):
        pdb.Pdb.__init__(self, completekey="tab")
        return self
"""
    assert not {c for c in _codes(src) if c[0] == "PK006"}


def test_a_library_base_that_reads_nothing_its_init_stores_is_not_pk006():
    """xml.sax's ContentHandler.__init__ stores ``_locator``, which its methods only store again."""
    src = """
from xml.sax.handler import ContentHandler


class Collect(ContentHandler):
    def __init__(self):
        self.names = []

    def startElement(self, name, attrs):
        self.names.append(name)
"""
    assert not {c for c in _codes(src) if c[0] == "PK006"}


def test_a_base_initialiser_called_with_starred_arguments_is_not_pk006():
    """PyOpenGL 3.1.10's ``Opengl.__init__`` runs ``RawOpengl.__init__(*(self, master, cnf), **kw)``."""
    src = """
import logging


class Raw(logging.Handler):
    def __init__(self, level=0):
        logging.Handler.__init__(self, level)


class Cooked(Raw):
    def __init__(self, *args):
        Raw.__init__(*(self,) + args)

    def emit(self, record):
        return record
"""
    assert not {c for c in _codes(src) if c[0] == "PK006"}


def test_a_dataclass_behind_an_unreadable_base_keeps_its_post_init(tmp_path):
    """datasette 0.65.5's vendored pint: ``@dataclass class UnitDefinition(PintParsedStatement,
    definitions.UnitDefinition)`` with ``flexparser`` (not installed here) in the MRO before the
    base whose ``__post_init__`` sets ``_is_base``: the generated ``__init__`` runs it."""
    keys = package_keys(tmp_path, {"defs.py": """
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class UnitDefinition:
            name: str

            def __post_init__(self):
                object.__setattr__(self, "_is_base", not self.name)

            @property
            def is_base(self):
                return self._is_base
    """, "parser.py": """
        from dataclasses import dataclass

        import not_installed_parser_lib as fp

        from pkg import defs


        class Statement(fp.ParsedStatement):
            pass


        @dataclass(frozen=True)
        class UnitDefinition(Statement, defs.UnitDefinition):
            pass
    """})
    assert not {k for k in keys if k[3] == "error"}


def test_a_plain_class_with_a_mixin_post_init_is_no_missing_super():
    src = """
class Validated:
    def __post_init__(self):
        self._errors = []

    def is_valid(self):
        return not self._errors


class Form(Validated):
    def __init__(self, email):
        self.email = email
"""
    got = {(f.code, f.attr, f.severity.value) for f in analyse_source("m.py", textwrap.dedent(src))}
    assert ("PK003", "_errors", "error") not in got
