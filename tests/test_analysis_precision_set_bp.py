"""Session 48's rules from set BP (analyzer-precision-session48.md in
bench/results/analyzer-precision-history.tar.xz), with the cases of the same shape that stay reported.

- A class that skips a base's initialiser and builds that base itself (skippedinit.py): hanlp's
  ``ScalarMixWithDropoutBuilder.build()`` returns ``ScalarMixWithDropout(**self.config)``; what
  only the skipped initialiser stores, read in the base's methods, is a warning.
- Not evidence: another linter's suppression comment (``# pylint: disable=super-init-not-called``,
  ``# noinspection PyMissingConstructor``); nerfstudio's ``TrivialDataset`` carries one and is a
  real bug.
- Methods a classmethod installs on its class (installers.py): visidata's ``Extensible.api`` does
  ``setattr(cls, func.__name__, func)``, and ``@VisiData.api def drawRightStatus(vd, ...)`` in
  another module gives ``VisiData`` that method once the module runs: a warning naming it.
- The review's cases that a first version got wrong stay errors: a read during construction, a
  read in the builder's own method, a base reached only by short name, a decorator example in a
  docstring, an owner of the same short name in another module, an overriding classmethod that
  installs nothing.
"""
from __future__ import annotations

from _analysed_package import package_keys as findings

def _handler(base: str, sub: str, comment_on_def: str = "", comment_above: str = "") -> str:
    """A base whose initialiser stores ``_auth`` and a subclass that skips it (one base per case:
    the run reports a base's read once, for the most severe of the classes that share it)."""
    above = f"    {comment_above}\n" if comment_above else ""
    return f"""
class {base}:
    def __init__(self, auth):
        self._auth = auth

    def authenticate(self):
        return self._auth.check()


class {sub}({base}):
{above}    def __init__(self, adapter):{comment_on_def}
        self.adapter = adapter

    def run(self):
        return self.authenticate()
"""


HANDLER = (_handler("H1", "Quiet", comment_on_def="  # pylint: disable=super-init-not-called")
           + _handler("H2", "Above", comment_above="# noinspection PyMissingConstructor")
           + _handler("H3", "Forgot"))


def test_another_linters_suppression_comment_is_no_evidence(tmp_path):
    got = findings(tmp_path, {"handler.py": HANDLER})
    for cls in ("Quiet", "Above", "Forgot"):
        assert (cls, "_auth", "PK003", "error") in got


def _builder(base: str, sub: str, method: str, made: str) -> str:
    """A base with its own reads and a subclass that skips its initialiser and whose ``method``
    returns ``made(**self.config)``."""
    return f"""
class {base}:
    def __init__(self, size, dropout=0.0):
        self.size = size
        self.dropout = dropout

    def forward(self, xs):
        return [x * self.dropout for x in xs[: self.size]]


class {sub}({base}):
    def __init__(self, size, dropout=0.0):
        self.config = dict(size=size, dropout=dropout)

    def {method}(self):
        return {made}(**self.config)
"""


CONSTRUCTION = """
class Mix4:
    def __init__(self, size):
        self.size = size

    def check(self):
        return self.size > 0


class Checked(Mix4):
    def __init__(self, size):
        self.config = dict(size=size)
        self.check()

    def build(self):
        return Mix4(**self.config)

    def describe(self):
        return f"{self.size}"
"""

BUILDER = (_builder("Mix", "MixBuilder", "build", "Mix")
           + _builder("Mix2", "MixCopy", "copy", "Mix2")  # `copy` is no factory verb
           + _builder("Mix3", "OtherBuilder", "build", "dict"))  # builds something else


def test_a_class_that_builds_the_base_it_skips_is_a_factory(tmp_path):
    got = findings(tmp_path, {"mix.py": BUILDER})
    for attr in ("size", "dropout"):
        assert ("MixBuilder", attr, "PK003", "warning") in got
        assert ("MixBuilder", attr, "PK003", "error") not in got
        # a copy() of the base, or a build() of something else, is no evidence
        assert ("MixCopy", attr, "PK003", "error") in got
        assert ("OtherBuilder", attr, "PK003", "error") in got


def test_a_builder_still_fails_where_it_reads_the_skipped_state_itself(tmp_path):
    got = findings(tmp_path, {"mix.py": CONSTRUCTION})
    assert ("Checked", "size", "PK002", "error") in got  # check() runs during construction: every instance fails


OTHER_LINEAR = """
class Linear:
    def __init__(self, n):
        self.n = n
"""

LINEAR = """
from . import other


class Linear:
    def __init__(self, weight):
        self.weight = weight

    def forward(self, x):
        return x * self.weight


class Adapter(Linear):
    def __init__(self, n):
        self.n = n

    def make(self):
        return other.Linear(self.n)
"""


def test_a_factory_of_another_class_with_the_base_s_name_is_no_builder(tmp_path):
    got = findings(tmp_path, {"other.py": OTHER_LINEAR, "linear.py": LINEAR})
    assert ("Adapter", "weight", "PK003", "error") in got



EXTENSIBLE = '''
class Extensible:
    @classmethod
    def api(cls, func):
        """Install ``func`` on the class. Example::

            @VisiData.api
            def drawLeftStatus(vd, scr): ...
        """
        setattr(cls, func.__name__, func)
        return func

    @classmethod
    def named(cls, func):
        setattr(cls, "fixed", func)
        return func


class VisiData(Extensible):
    def __init__(self):
        self.sheets = []

    def draw(self, scr):
        self.drawRightStatus(scr)
        self.drawTopStatus(scr)
        self.drawLeftStatus(scr)
        self.fixedStatus(scr)
        self.renderCell(scr)


class Plugin(Extensible):
    @classmethod
    def api(cls, func):  # only registers: installs nothing
        cls.registry = [func]
        return func

    def __init__(self):
        self.name = "p"

    def load(self):
        return self.on_load()
'''

STATUSBAR = """
from typing import TYPE_CHECKING

from .vd import VisiData, Plugin

if TYPE_CHECKING:
    @VisiData.api
    def drawTopStatus(vd, scr):
        return scr


@VisiData.api
def drawRightStatus(vd, scr):
    return scr


@VisiData.named
def fixedStatus(vd, scr):
    return scr


@Plugin.api
def on_load(p):
    return p
"""

LEGACY = """
class VisiData:
    @classmethod
    def api(cls, func):
        setattr(cls, func.__name__, func)
        return func


@VisiData.api
def renderCell(vd, scr):
    return scr
"""


def test_functions_decorated_with_an_installing_classmethod_are_methods_of_the_class(tmp_path):
    got = findings(tmp_path, {"vd.py": EXTENSIBLE, "statusbar.py": STATUSBAR, "legacy.py": LEGACY})
    # set up when the decorating module runs: a warning naming the function, as a store on the class is
    assert ("VisiData", "drawRightStatus", "PK003", "warning") in got
    assert ("VisiData", "drawRightStatus", "PK003", "error") not in got
    # under `if TYPE_CHECKING:` an import never runs it
    assert ("VisiData", "drawTopStatus", "PK003", "error") in got
    # an example in the installer's docstring installs nothing
    assert ("VisiData", "drawLeftStatus", "PK003", "error") in got
    # `named` stores a literal name: it installs `fixed`, not the function's own name
    assert ("VisiData", "fixedStatus", "PK003", "error") in got
    # another module's class of the same short name installs on itself, not on vd.VisiData
    assert ("VisiData", "renderCell", "PK003", "error") in got
    # a subclass whose `api` only registers installs nothing
    assert ("Plugin", "on_load", "PK003", "error") in got
