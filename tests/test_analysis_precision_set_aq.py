"""Session 36's rule from sets AQ/AR (analyzer-precision-session36.md in
bench/results/analyzer-precision-history.tar.xz), with the cases of the same shape that are still
reported.

A ``__getattr__`` that may answer any name opens the class everywhere, also when a class of the MRO
stores computed names in a method (before, such a store made the class "dynamic through that
method" only, and the reads construction makes before it were judged as in a closed class). qtile's widgets inherit ``CommandObject`` (whose
``__new__`` sets computed class attributes) and ``Configurable`` (whose ``__getattr__`` serves the
``defaults`` a widget registers with ``add_defaults``): ``self.padding`` read in ``Sep.__init__``
goes through that hook, and 104 error groups of qtile 0.33.0 were such reads.
"""
from __future__ import annotations

import pytest

from _analysed_package import package_keys as findings

CONF = """
class Configurable:
    def __init__(self, **config):
        self._variable_defaults = {}
        self._user_config = config

    def add_defaults(self, defaults):
        self._variable_defaults.update((d[0], d[1]) for d in defaults)

    def __getattr__(self, name):
        if name == "_variable_defaults":
            raise AttributeError
        found, value = self._find_default(name)
        if found:
            setattr(self, name, value)
            return value
        raise AttributeError(name)

    def reconfigure(self, **config):
        self.__dict__.update(config)  # a computed store in a method beside the hook

    def _find_default(self, name):
        d = dict(self._variable_defaults)
        d.update(self._user_config)
        return (True, d[name]) if name in d else (False, None)

"""

COMMAND = """
class CommandObject:
    def __new__(cls, *args, **kwargs):
        for c in cls.__mro__:
            for name, method in list(vars(c).items()):
                for mapping in getattr(method, "_mapping", ()):
                    setattr(cls, mapping, method)
        return super().__new__(cls)
"""

WIDGET = """
from pkg.command import CommandObject
from pkg.conf import Configurable


class Widget(CommandObject, {second}):
    def __init__(self, **config):
        {init}

class Sep(Widget):
    defaults = [("linewidth", 1, "width"), ("padding", 2, "padding")]

    def __init__(self, **config):
        Widget.__init__(self, **config)
        self.add_defaults(Sep.defaults)
        self.length = self.padding + self.linewidth
"""


def test_a_lookup_hook_opens_the_class_beside_a_computed_store_in_new(tmp_path):
    got = findings(tmp_path, {"conf.py": CONF, "command.py": COMMAND,
                              "widget.py": WIDGET.format(second="Configurable", init="Configurable.__init__(self, **config)")})
    assert not [k for k in got if k[0] == "Sep" and k[3] == "error"], got


PASSTHROUGH = """
class Configurable:
    def __init__(self, **config):
        self._user_config = config

    def add_defaults(self, defaults):
        self._user_config.update((d[0], d[1]) for d in defaults)

    def __getattr__(self, name):
        return super().__getattr__(name)
"""


def test_a_pass_through_lookup_keeps_the_class_judged(tmp_path):
    """The same widgets over a ``__getattr__`` that only hands the name to the base's: it answers
    nothing, so the read in ``Sep.__init__`` stays an error (the computed store in ``__new__`` is
    class-level and gives instances nothing either)."""
    got = findings(tmp_path, {"conf.py": PASSTHROUGH, "command.py": COMMAND,
                              "widget.py": WIDGET.format(second="Configurable", init="Configurable.__init__(self, **config)")})
    assert ("Sep", "padding", "PK002", "error") in got, got


def test_without_the_hook_the_read_stays_an_error(tmp_path):
    """No ``__getattr__`` in the MRO (the widget does not inherit Configurable): the read during
    construction is the field bug's shape and stays an error."""
    got = findings(tmp_path, {"conf.py": CONF, "command.py": COMMAND,
                              "widget.py": WIDGET.format(second="object", init="self.add_defaults = lambda d: None")})
    assert ("Sep", "padding", "PK002", "error") in got, got


VALUES = """
import struct


class _Value(object):
    _VALUE_PACK_STR = None
    _VALUE_FIELDS = ['value']

    @staticmethod
    def do_init(cls_type, self, kwargs, **extra_kwargs):
        ourfields = {}
        for f in cls_type._VALUE_FIELDS:
            ourfields[f] = kwargs.pop(f)
        super(cls_type, self).__init__(**kwargs)
        {store}


class _ExtendedCommunity(_Value):
    def __init__(self, type_=None):
        self.type = type_
"""

TPID = """
import struct
from pkg.values import _ExtendedCommunity


class TPID(_ExtendedCommunity):
    _VALUE_PACK_STR = '!BHHH'
    _VALUE_FIELDS = ['subtype', 'actions', 'tpid_1', 'tpid_2']

    def __init__(self, **kwargs):
        super(TPID, self).__init__()
        kwargs['subtype'] = 11
        {early}self.do_init(TPID, self, kwargs)

    def serialize_value(self):
        return struct.pack(self._VALUE_PACK_STR, self.subtype, self.actions, self.tpid_1, self.tpid_2)
"""


def test_a_static_helper_storing_computed_names_on_its_self_parameter_opens_the_class(tmp_path):
    """ryu's extended communities: ``_Value.do_init`` (a static method, its instance parameter
    named ``self``) sets the fields its caller's ``_VALUE_FIELDS`` names with
    ``self.__dict__.update``; subclasses in the same module call it from their ``__init__``."""
    tpid = TPID.replace("from pkg.values import _ExtendedCommunity\n", "").replace("{early}", "")
    got = findings(tmp_path, {"values.py": VALUES.replace("{store}", "self.__dict__.update(ourfields)") + tpid})
    assert not [k for k in got if k[0] == "TPID" and k[3] == "error"], got
    (tmp_path / "s").mkdir()
    got = findings(tmp_path / "s", {"values.py": VALUES.replace(
        "{store}", "for k, v in ourfields.items():\n            setattr(self, k, v)") + tpid})
    assert not [k for k in got if k[0] == "TPID" and k[3] == "error"], got


def test_reads_before_the_helper_runs_and_literal_stores_stay_judged(tmp_path):
    """A read in ``__init__`` before ``do_init`` runs stays a PK002 error; a helper that stores only
    literal names (``self.value = ...``) opens nothing, and what it does not store stays PK003."""
    early = TPID.replace("from pkg.values import _ExtendedCommunity\n", "").replace(
        "{early}", "self.early = self.actions\n        ")
    got = findings(tmp_path, {"values.py": VALUES.replace("{store}", "self.__dict__.update(ourfields)") + early})
    assert ("TPID", "actions", "PK002", "error") in got, got
    (tmp_path / "l").mkdir()
    plain = TPID.replace("from pkg.values import _ExtendedCommunity\n", "").replace("{early}", "")
    got = findings(tmp_path / "l", {"values.py": VALUES.replace("{store}", "self.value = ourfields") + plain})
    assert ("TPID", "tpid_1", "PK003", "error") in got, got


@pytest.mark.parametrize("case", ["first-parameter", "no-caller-passes-the-instance", "nested-class"])
def test_a_self_parameter_that_is_not_the_instance_opens_nothing(tmp_path, case):
    """The review's over-broad matches: a static method whose *first* parameter is named ``self``,
    one no method passes its own instance to, and a ``self.__dict__.update`` inside a class nested
    in the helper (its own ``self``) leave the host's read of a name nothing sets a PK003 error."""
    helper = {
        "first-parameter": "    @staticmethod\n    def setup(self, cfg):\n        for k, v in cfg.items():\n"
                           "            setattr(self, k, v)\n",
        "no-caller-passes-the-instance": "    @staticmethod\n    def setup(cls_type, self, cfg):\n"
                                         "        self.__dict__.update(cfg)\n",
        "nested-class": "    @staticmethod\n    def setup(cls_type, self, cfg):\n        class Rec:\n"
                        "            def __init__(self, **kw):\n                self.__dict__.update(kw)\n"
                        "        return Rec(**cfg)\n",
    }[case]
    call = {"first-parameter": "self.setup(Host(), {})",
            "no-caller-passes-the-instance": "self.setup(Host, Host(), {})",
            "nested-class": "self.setup(Host, self, {})"}[case]
    src = ("class Host:\n    def __init__(self):\n        self.size = 1\n        " + call + "\n\n" + helper +
           "\n    def show(self):\n        return self.colour\n")
    got = findings(tmp_path, {"host.py": src})
    assert ("Host", "colour", "PK003", "error") in got, got
