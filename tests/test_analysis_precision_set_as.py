"""Session 37's rules from sets AS/AT and the leftovers of sets AQ/AR (analyzer-precision-session37.md
in bench/results/analyzer-precision-history.tar.xz), each with the case of the same shape that is
still reported.

1. A package function that declares ``global X`` and imports ``X`` binds the package's ``X``:
   evennia 5.0.1's ``evennia/__init__.py`` sets ``DefaultObject = None`` and ``_init()`` does
   ``global DefaultObject; from .objects.objects import DefaultObject``. Before, ``class
   CrumblingWall(TutorialObject, evennia.DefaultExit)`` had an unknown base, and ``self.location``
   (a class-level property of ``ObjectDB``) was an error.
2. A metaclass (a class on ``type``) is open: its ``cls`` is the class being created, whose body
   gives it its attributes (evennia's ``_CmdSetMeta.__init__`` reading ``cls.key_mergetypes``).
3. ``super().__init__()`` passes a builtin base that defines no ``__init__`` (set AT: pipenv's
   vendored tomlkit ``String(str, Item)``).
4. A setter helper's calls with literal names are stores from outside the class (set AS:
   weasyprint's ``resolve_one_percentage(box, 'margin_left', ...)``).
"""
from __future__ import annotations

import textwrap

import pytest

from _analysed_package import package_keys as findings

INIT = """
Base = None


def _init():
    {decl}
    from .models import Base
"""

MODELS = """
class Base:
    def __init__(self):
        self.db_location = None
        self.home = None

    def _get(self):
        return self.db_location

    def _set(self, value):
        self.db_location = value

    location = property(_get, _set)
"""

GAME = """
import pkg


class Tutorial(pkg.Base):
    def reset(self):
        self.location = self.home


class Wall(Tutorial):
    def reset(self):
        print(self.location)
"""


def test_a_name_a_package_function_binds_globally_is_resolved(tmp_path):
    got = findings(tmp_path, {"__init__.py": INIT.format(decl="global Base"), "models.py": MODELS, "game.py": GAME})
    assert not [k for k in got if k[0] == "Wall" and k[3] == "error"], got


def test_a_local_import_of_the_same_name_resolves_nothing(tmp_path):
    """Without ``global`` the import binds a local of ``_init``: the package's ``Base`` stays the
    ``None`` the analyzer cannot read, and the read only an overridden method assigns stays an error."""
    got = findings(tmp_path, {"__init__.py": INIT.format(decl="pass"), "models.py": MODELS, "game.py": GAME})
    assert ("Wall", "location", "PK003", "error") in got, got


META = """
class _Meta({base}):
    def __init__(cls, *args, **kwargs):
        if not hasattr(cls, "key") or not cls.key:
            cls.key = cls.__name__
        if not isinstance(cls.key_mergetypes, dict):
            cls.key_mergetypes = {{}}
        super().__init__(*args, **kwargs)


class CmdSet(metaclass=_Meta):
    key_mergetypes = {{}}
"""


@pytest.mark.parametrize("base, reported", [("type", False), ("object", True)])
def test_a_metaclass_is_open(tmp_path, base, reported):
    """On ``type`` the read is no error (info, with ``--show-info``: the test below); the same body
    on ``object`` stays an error."""
    got = findings(tmp_path, {"meta.py": META.format(base=base)})
    assert (("_Meta", "key_mergetypes", "PK002", "error") in got) == reported, got


ITEMS = """
class Item:
    def __init__(self, trivia):
        self._trivia = trivia


class String({builtin}, Item):
    def __init__(self, value, trivia):
        super().__init__(trivia)

    def show(self):
        return self._trivia
"""


@pytest.mark.parametrize("builtin, reported", [("str", False), ("tuple", False), ("builtins.int", False), ("list", True)])
def test_super_init_passes_a_builtin_without_its_own_init(tmp_path, builtin, reported):
    """3. ``str`` defines no ``__init__`` (it builds itself in ``__new__``): ``super().__init__()``
    in ``String(str, Item)`` runs ``Item.__init__`` (tomlkit's ``String``, vendored by pipenv
    2026.10.3, set AT). ``list.__init__`` does not call on: ``Item.__init__`` never runs, and the
    read stays an error."""
    got = findings(tmp_path, {"items.py": ("import builtins\n" if "." in builtin else "") + ITEMS.format(builtin=builtin)})
    assert (("String", "_trivia", "PK003", "error") in got) == reported, got


BOXES = """
class Box:
    def __init__(self, style):
        self.style = style

    def margin_width(self):
        return self.{read} + self.width_used
"""

LAYOUT = """
def resolve_one(box, property_name, refer_to):
    {body}
    setattr(box, property_name, box.style[property_name] * refer_to)


def resolve(box, cb_width):
    resolve_one(box, {name}, cb_width)
    resolve_one(box, property_name="width_used", refer_to=cb_width)
    resolve_one(box, 'padding_top', cb_width)


def set_option(args):
    resolve_one(args, 'verbose', 1)
"""


def test_a_setter_helper_called_with_a_literal_name_injects_it(tmp_path):
    """4. weasyprint 70.0's ``resolve_one_percentage(box, 'margin_left', cb_width)`` does
    ``setattr(box, property_name, ...)``: each call stores that name on the box from outside the
    class (set AS), so a read of it is two-phase set-up (a warning), not a hole."""
    got = findings(tmp_path, {"boxes.py": BOXES.format(read="margin_top"),
                              "layout.py": LAYOUT.format(body="pass", name="'margin_top'")})
    assert not [k for k in got if k[3] == "error"], got
    assert ("Box", "margin_top", "PK003", "warning") in got, got


def test_what_no_setter_helper_call_names_stays_an_error(tmp_path):
    """A misspelt read (no call stores ``margn_top``), a helper that rebinds its name parameter
    (it may store anything) or only updates what ``hasattr`` finds, and a lone call on some other
    object (``set_option(args)``: one name says nothing of the receiver's class) excuse nothing."""
    got = findings(tmp_path, {"boxes.py": BOXES.format(read="margn_top"),
                              "layout.py": LAYOUT.format(body="pass", name="'margin_top'")})
    assert ("Box", "margn_top", "PK003", "error") in got, got
    (tmp_path / "rebound").mkdir()
    got = findings(tmp_path / "rebound", {"boxes.py": BOXES.format(read="margin_top"),
                                          "layout.py": LAYOUT.format(body="property_name = property_name.lower()",
                                                                     name="'margin_top'")})
    assert ("Box", "margin_top", "PK003", "error") in got, got
    (tmp_path / "guarded").mkdir()
    got = findings(tmp_path / "guarded", {"boxes.py": BOXES.format(read="margin_top"),
                                          "layout.py": LAYOUT.format(body="if not hasattr(box, property_name): return",
                                                                     name="'margin_top'")})
    assert ("Box", "margin_top", "PK003", "error") in got, got
    (tmp_path / "lone").mkdir()
    got = findings(tmp_path / "lone", {"boxes.py": BOXES.format(read="verbose"),
                                       "layout.py": LAYOUT.format(body="pass", name="'margin_top'")})
    assert ("Box", "verbose", "PK003", "error") in got, got


def test_the_metaclass_finding_becomes_info_naming_the_rule(tmp_path):
    """The metaclass's read is not dropped: with ``--show-info`` it comes out as info, and the open
    reason says a metaclass opened the class. A tree class named ``type`` is no metaclass."""
    from patchkit.analysis.runner import analyse_paths
    from patchkit.analysis.settings import Settings
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "meta.py").write_text(textwrap.dedent(META.format(base="type")))
    got = [f for r in analyse_paths([pkg], Settings(show_info=True), use_cache=False, jobs=1) for f in r.findings]
    info = [f for f in got if f.attr == "key_mergetypes"]
    assert info and all(f.severity.value == "info" and "is a metaclass" in f.why for f in info), got
    (tmp_path / "x").mkdir()
    got = findings(tmp_path / "x", {"kinds.py": "class type:\n    pass\n",
                                    "meta.py": "from .kinds import type\n" + META.format(base="type")})
    assert ("_Meta", "key_mergetypes", "PK002", "error") in got, got


FALLBACK_INIT = """
Base = None


def _init():
    global Base
    try:
        from .models import Base
    except ImportError:
        from .other import Base
"""

ALIAS_INIT = """
from . import other
Base = other.Base


def _init():
    global Base
    from .models import Base
"""

OTHER = """
class Base:
    def __init__(self):
        self.home = None
"""


def test_the_first_import_outside_handlers_wins_and_other_bindings_are_kept(tmp_path):
    """The ``try:`` import is the name (the handler's fallback is not), and a name the package binds
    to something else at its top level (``Base = other.Base``) keeps that binding: the read stays
    an error against ``other.Base``, which has no ``location``."""
    (tmp_path / "a").mkdir()
    got = findings(tmp_path / "a", {"__init__.py": FALLBACK_INIT, "models.py": MODELS, "other.py": OTHER, "game.py": GAME})
    assert not [k for k in got if k[0] == "Wall" and k[3] == "error"], got
    (tmp_path / "b").mkdir()
    got = findings(tmp_path / "b", {"__init__.py": ALIAS_INIT, "models.py": MODELS, "other.py": OTHER, "game.py": GAME})
    assert ("Wall", "location", "PK003", "error") in got, got


BORDERS = """
class Box:
    def __init__(self, style):
        self.style = style

    def border_width(self):
        return self.border_left_width + self.border_right_width + self.{extra}
"""

RESOLVE = """
def resolve_borders(box):
    for side in ('top', 'right', 'bottom', 'left'):
        prop = f'border_{{side}}_width'
        {rebind}
        setattr(box, prop, box.style[prop])
"""


def test_a_loop_over_listed_names_stores_each_spelt_name(tmp_path):
    """weasyprint's ``for side in ('top', ...): prop = f'border_{side}_width'; setattr(box, prop,
    ...)`` stores the four border widths on the box it is given: reads of them are warnings. A name
    the loop does not spell (``border_widht``), or a loop whose variable the body rebinds, excuses
    nothing."""
    got = findings(tmp_path, {"boxes.py": BORDERS.format(extra="border_top_width"),
                              "layout.py": RESOLVE.format(rebind="pass")})
    assert not [k for k in got if k[3] == "error"], got
    assert ("Box", "border_left_width", "PK003", "warning") in got, got
    (tmp_path / "typo").mkdir()
    got = findings(tmp_path / "typo", {"boxes.py": BORDERS.format(extra="border_widht"),
                                       "layout.py": RESOLVE.format(rebind="pass")})
    assert {k[1] for k in got if k[3] == "error"} == {"border_widht"}, got
    for case, rebind in (("rebound", "side = side.upper()"), ("skipped", "if side == 'left': continue")):
        (tmp_path / case).mkdir()
        got = findings(tmp_path / case, {"boxes.py": BORDERS.format(extra="border_top_width"),
                                         "layout.py": RESOLVE.format(rebind=rebind)})
        assert ("Box", "border_left_width", "PK003", "error") in got, (case, got)
