"""Session 39's rules from sets AY/AZ (analyzer-precision-session39.md in bench/results/analyzer-precision-history.tar.xz), each with the
cases of the same shape that stay reported.

1. ``prop = property(fget, fset)``: ``self.prop = v`` runs ``fset`` (boto 2.49.0's
   ``Provider.access_key``, whose setter stores ``_access_key`` before ``get_credentials`` reads it).
2. ``issubclass(type(self), X)`` / ``issubclass(self.__class__, X)`` guard a read as
   ``isinstance(self, X)`` does (boto's ``StorageUri.has_version``).
3. A ``__new__`` that builds its instance's class with ``type(name, (cls, base), {})`` gives the
   instance a base chosen at run time (pywikibot's ``BoundedPoolExecutor``).
4. An attribute a base declares without a value (``environment: Environment``) that package code
   stores on another object (``other.facet.environment = ...``) is an owner's contract, even when
   the tree builds the class (plotnine's facets).
"""
from __future__ import annotations

import textwrap

from _analysed_package import package_keys
from patchkit.analysis import analyse_source


def _errors(src: str) -> set[tuple[str, str]]:
    return {(f.cls, f.attr) for f in analyse_source("m.py", textwrap.dedent(src)) if f.severity.value == "error"}


def _reported(src: str) -> set[tuple[str, str]]:
    return {(f.cls, f.attr) for f in analyse_source("m.py", textwrap.dedent(src))}


PROVIDER = """
class Provider:
    def __init__(self, access_key=None):
        self.access_key = access_key
        self.get_credentials()

    def get_access_key(self):
        return self._access_key

    def set_access_key(self, value):
        {setter_body}

    access_key = property({args})

    def get_credentials(self):
        if self._access_key is None:
            self._access_key = "anonymous"
        return self._access_key.upper()
"""


def test_a_call_form_property_setter_runs_on_assignment():
    for args in ("get_access_key, set_access_key", "get_access_key, fset=set_access_key",
                 "fget=get_access_key, fset=set_access_key"):
        src = PROVIDER.format(setter_body="self._access_key = value", args=args)
        assert not _errors(src), args


def test_a_call_form_setter_that_stores_elsewhere_or_a_getter_only_property_keeps_the_error():
    wrong = PROVIDER.format(setter_body="self._key = value", args="get_access_key, set_access_key")
    assert ("Provider", "_access_key") in _errors(wrong)
    getter_only = PROVIDER.format(setter_body="self._access_key = value", args="get_access_key")
    assert ("Provider", "_access_key") in _errors(getter_only)


STORAGE = """
class StorageUri:
    def has_version(self):
        return {guard} and self.generation is not None


class BucketStorageUri(StorageUri):
    def __init__(self):
        self.generation = None


class FileStorageUri(StorageUri):
    def __init__(self):
        self.name = "file"
"""


def test_issubclass_of_the_instance_type_guards_like_isinstance():
    for guard in ("issubclass(type(self), BucketStorageUri)", "issubclass(self.__class__, BucketStorageUri)",
                  "isinstance(self, BucketStorageUri)"):
        assert not _reported(STORAGE.format(guard=guard)), guard


def test_issubclass_of_a_class_the_reader_derives_from_guards_nothing():
    """``StorageUri`` lacks the attribute and FileStorageUri is one: the read is still reported there
    (a warning: BucketStorageUri, a sibling, assigns it)."""
    for guard in ("issubclass(type(self), StorageUri)", "isinstance(self, StorageUri)", "type(self) is not None"):
        assert ("FileStorageUri", "generation") in _reported(STORAGE.format(guard=guard)), guard


EXECUTOR = """
import importlib
from concurrent import futures


class BoundedPoolExecutor(futures.Executor):
    def __new__(cls, executor, max_bound=None, *args, **kwargs):
        base = getattr(importlib.import_module("concurrent.futures"), executor)
        new = type("Bounded" + base.__name__, ({bases}), {{}})
        return super().__new__(new)

    def __init__(self, executor, max_bound=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._bound = max_bound or self._max_workers
"""


def test_a_base_new_mixes_in_at_run_time_may_provide_the_attribute():
    assert not _errors(EXECUTOR.format(bases="cls, base"))


def test_a_type_call_without_the_own_class_opens_nothing():
    """``type(name, (base,), {})`` in ``__new__`` builds some other class: the instance is still a
    plain BoundedPoolExecutor, whose ``_max_workers`` nothing assigns."""
    assert ("BoundedPoolExecutor", "_max_workers") in _errors(EXECUTOR.format(bases="base,"))


FACET = """
class Environment:
    pass


class facet:
    environment: Environment

    def __radd__(self, plot):
        plot.facet = self
        {inject}
        return plot


class facet_grid(facet):
    def __init__(self, rows):
        self.rows = rows

    def compute_layout(self, data):
        return data, self.environment, self.rows


def build(rows):
    return facet_grid(rows)
"""


def test_a_declared_attribute_an_owner_stores_is_a_contract_even_when_the_class_is_built(tmp_path):
    got = package_keys(tmp_path, {"facet.py": FACET.format(inject="plot.facet.environment = plot.environment")})
    assert ("facet_grid", "environment", "PK003", "warning") in got, got


def test_a_declared_attribute_nobody_stores_or_only_a_test_stores_keeps_the_error(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    got = package_keys(tmp_path / "a", {"facet.py": FACET.format(inject="pass")})
    assert ("facet_grid", "environment", "PK003", "error") in got, got
    files = {"facet.py": FACET.format(inject="pass"),
             "test_facet.py": "def test_it(plot):\n    plot.facet.environment = None\n"}
    got = package_keys(tmp_path / "b", files)
    assert ("facet_grid", "environment", "PK003", "error") in got, got


def test_an_owner_store_does_not_excuse_the_subclass_its_siblings_complete(tmp_path):
    """Other subclasses of the declarer assign it in their own ``__init__``: facet_grid is the
    incomplete one, whatever an owner stores."""
    src = FACET.format(inject="plot.facet.environment = plot.environment") + textwrap.dedent("""

    class facet_wrap(facet):
        def __init__(self, env):
            self.environment = env

        def compute_layout(self, data):
            return data, self.environment
    """)
    got = package_keys(tmp_path, {"facet.py": src})
    assert ("facet_grid", "environment", "PK003", "error") in got, got


MOTIF = """
class Motif:
    def __init__(self, alphabet="ACGT"):
        self.alphabet = alphabet
        self.background = {initial}

    def get_background(self):
        return self._background

    def set_background(self, value):
        if isinstance(value, dict):
            self._background = dict(value)
        elif value is None:
            self._background = dict.fromkeys(self.alphabet, 1.0)
        else:
            self._background["A"] = (1.0 - value) / 2.0
        total = sum(self._background.values())
        for letter in self.alphabet:
            self._background[letter] /= total

    background = property(get_background, set_background)
"""


def test_a_setter_runs_with_the_value_assigned():
    """``self.background = None`` takes the setter's ``value is None`` branch (biopython 1.88's
    ``Motif``): its ``else`` branch, which updates the dict in place, is not on the construction path."""
    assert not _reported(MOTIF.format(initial="None"))
    decorated = MOTIF.format(initial="None").replace("    def set_background(self, value):",
                                                     "    @property\n    def background(self):\n        return self._background\n\n"
                                                     "    @background.setter\n    def background(self, value):")
    decorated = decorated.replace("    background = property(get_background, set_background)\n", "")
    assert not _reported(decorated)


def test_a_setter_handed_a_number_first_still_reads_before_it_stores():
    assert ("Motif", "_background") in _errors(MOTIF.format(initial="0.4"))


def test_a_private_nested_class_is_read_back_under_its_mangled_name():
    """xlwings 0.37.8's ``MarkdownStyle`` builds ``self.__Heading1()``: the nested ``class
    __Heading1`` binds ``_MarkdownStyle__Heading1``. A private name the body never binds stays an error."""
    src = """
    class Style:
        def __init__(self, name):
            self.name = name


    class Outer:
        class MarkdownStyle:
            class __Heading1(Style):
                def __init__(self):
                    super().__init__("h1")

            def __init__(self):
                self.h1 = self.__Heading1()
                self.p = self.__Paragraph()
    """
    assert _errors(src) == {("Outer.MarkdownStyle", "__Paragraph")}


TESTBOT = """
import unittest


class TestBot:
    def __init__(self, extra=None):
        self.setup(extra)

    def setup(self, extra=None):
        self.logger = extra
        self.bot_config = {}

    def push_message(self, msg):
        self.logger.info(msg)
        return self.bot_config
"""


def test_a_public_set_up_method_the_skipping_class_runs_itself_is_two_phase():
    """errbot 6.2.1's ``FullStackTest(unittest.TestCase, TestBot)`` never runs ``TestBot.__init__``
    but calls ``self.setup(...)`` from its own ``setUp``: not the missing super call."""
    src = TESTBOT + """

class FullStackTest(unittest.TestCase, TestBot):
    def __init__(self, methodName):
        self.bot_thread = None
        super().__init__(methodName)

    def setUp(self):
        self.setup(extra="x")
"""
    got = {(f.cls, f.attr, f.code, f.severity.value) for f in analyse_source("m.py", textwrap.dedent(src))}
    assert ("FullStackTest", "logger", "PK004", "warning") in got, got
    assert not _errors(src)


def test_a_class_that_skips_the_init_and_never_runs_the_set_up_keeps_the_error():
    src = TESTBOT + """

class Skipper(TestBot):
    def __init__(self):
        self.thread = None

    def reset(self):
        return self.logger


class Restarter(TestBot):
    def restart(self):
        self.setup()
"""
    assert {("Skipper", "logger"), ("Skipper", "bot_config")} <= _errors(src)


# ---------------------------------------------------------------- the review's cases (kept reported)
def test_a_subclass_that_shadows_the_property_or_a_later_plain_binding_drops_the_setter():
    shadow = PROVIDER.format(setter_body="self._access_key = value", args="get_access_key, set_access_key") + """

class Plain(Provider):
    access_key = None

    def get_credentials(self):
        return self._access_key.upper()
"""
    assert ("Plain", "_access_key") in _errors(shadow)
    redef = PROVIDER.format(setter_body="self._access_key = value", args="get_access_key, set_access_key")
    redef = redef.replace("    access_key = property(get_access_key, set_access_key)\n",
                          "    access_key = property(get_access_key, set_access_key)\n    access_key = property(get_access_key)\n")
    assert ("Provider", "_access_key") in _errors(redef)


def test_a_wrapped_setter_is_not_handed_the_literal():
    """``@background.setter @none_to_empty``: the setter never sees the None ``__init__`` assigns,
    so its ``value is None`` branch decides nothing (a warning, as before the binding)."""
    src = """
    import functools


    def none_to_empty(fn):
        @functools.wraps(fn)
        def wrapper(self, value):
            return fn(self, {} if value is None else value)
        return wrapper


    class Motif:
        def __init__(self):
            self.background = None
            self.total()

        @property
        def background(self):
            return self._background

        @background.setter
        @none_to_empty
        def background(self, value):
            if value is None:
                return
            self._background = value

        def total(self):
            return sum(self._background.values())
    """
    assert ("Motif", "_background") in _reported(src)
    assert not _errors(src)


def test_issubclass_narrows_only_as_the_whole_test_and_for_every_class_of_a_tuple():
    either = STORAGE.format(guard="(issubclass(type(self), BucketStorageUri) or self.flagged())")
    assert ("FileStorageUri", "generation") in _reported(either.replace("class FileStorageUri(StorageUri):",
                                                                        "class FileStorageUri(StorageUri):\n    flagged = None"))
    both = STORAGE.format(guard="issubclass(type(self), (BucketStorageUri, FileStorageUri))")
    assert ("FileStorageUri", "generation") in _reported(both)


def test_a_runtime_base_counts_only_when_the_instance_is_made_from_it_and_the_base_is_unknown():
    not_returned = EXECUTOR.format(bases="cls, base").replace("return super().__new__(new)", "return super().__new__(cls)")
    assert ("BoundedPoolExecutor", "_max_workers") in _errors(not_returned)
    known = EXECUTOR.format(bases="cls, Logged").replace("class BoundedPoolExecutor(", "class Logged:\n    pass\n\n\nclass BoundedPoolExecutor(")
    assert ("BoundedPoolExecutor", "_max_workers") in _errors(known)
    bypass = EXECUTOR.format(bases="cls, base") + """

class Direct(BoundedPoolExecutor):
    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def grow(self):
        return self.factor
"""
    assert ("Direct", "factor") in _errors(bypass)


def test_an_owner_store_does_not_excuse_a_class_declaring_its_own_field_or_the_field_bug(tmp_path):
    own = """
    class Plugin:
        name: str

        def __init__(self, path):
            self.path = path

        def describe(self):
            return f"{self.name} at {self.path}"


    def load(path):
        return Plugin(path)
    """
    cli = "def main(args):\n    args.name = 'cli'\n"
    (tmp_path / "a").mkdir()
    assert ("Plugin", "name", "PK003", "error") in package_keys(tmp_path / "a", {"plugin.py": own, "cli.py": cli})
    field_bug = FACET.format(inject="plot.facet.environment = plot.environment") + textwrap.dedent("""

    class Layout:
        def __init__(self, env):
            self.environment = env
    """)
    (tmp_path / "b").mkdir()
    got = package_keys(tmp_path / "b", {"facet.py": field_bug})
    assert ("facet_grid", "environment", "PK003", "error") in got, got
    (tmp_path / "c").mkdir()
    got = package_keys(tmp_path / "c", {"facet.py": FACET.format(inject="pass"),
                                        "examples.py": "def show(plot):\n    plot.facet.environment = {}\n"})
    assert ("facet_grid", "environment", "PK003", "error") in got, got


# ---------------------------------------------------------------- the second review's cases
BUS = """
class Bus:
    def __init__(self, channel, filters=None):
        self.channel = channel
        self.set_filters(filters)

    def set_filters(self, filters):
        self.filters = filters

    def recv(self):
        return self.filters
"""


def test_only_an_unconditional_set_up_hook_makes_the_skipped_set_up_two_phase():
    conditional = BUS + """

class MyBus(Bus):
    def __init__(self, channel):
        self.channel = channel

    def reconfigure(self, f):
        if f is not None:
            self.set_filters(f)
"""
    assert ("MyBus", "filters") in _errors(conditional)
    middle = BUS + """

class FilteredBus(Bus):
    def __init__(self, channel, filters=None):
        super().__init__(channel, filters)

    def clear(self):
        self.set_filters(None)


class VirtualBus(FilteredBus):
    def __init__(self, channel):
        self.channel = channel
"""
    assert ("VirtualBus", "filters") in _errors(middle)


def test_a_getter_or_deleter_copy_of_a_base_property_keeps_its_setter():
    for kind in ("getter", "deleter"):
        src = f"""
class Field:
    def __init__(self, name):
        self.name = name

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        self._name = value.strip()


class UpperField(Field):
    @Field.name.{kind}
    def name(self):
        return self._name.upper()

    def label(self):
        return "<" + self._name + ">"
"""
        assert not _reported(src), kind


def test_isinstance_of_a_union_narrows_like_a_tuple():
    src = """
class Node:
    def __init__(self, name):
        self.name = name

    def size(self):
        if isinstance(self, Folder | Archive):
            return sum(c.size() for c in self.children)
        return 1


class Folder(Node):
    def __init__(self, name):
        super().__init__(name)
        self.children = []


class Archive(Node):
    def __init__(self, name):
        super().__init__(name)
        self.children = []


class File(Node):
    pass
"""
    assert not _errors(src)
    assert ("File", "children") in _errors(src.replace("Folder | Archive", "Folder | Node"))


def test_a_runtime_base_through_a_local_or_a_subclass_new_that_passes_construction_on():
    held = EXECUTOR.format(bases="cls, base").replace("        return super().__new__(new)",
                                                      "        inst = super().__new__(new)\n        return inst")
    assert not _errors(held)
    passed_on = EXECUTOR.format(bases="cls, base") + """

class LoggedPool(BoundedPoolExecutor):
    def __new__(cls, *args, **kwargs):
        return super().__new__(cls, *args, **kwargs)

    def capacity(self):
        return self._max_workers
"""
    assert not _errors(passed_on)


def test_an_owner_store_counts_only_on_an_object_named_as_a_class_of_the_hierarchy(tmp_path):
    base = "class Plugin:\n    name: str\n    enabled: bool\n\n    def describe(self):\n        return f'{self.name} {self.enabled}'\n"
    echo = "from .base import Plugin\n\n\nclass Echo(Plugin):\n    def __init__(self):\n        self.name = 'echo'\n\n\ndef load():\n    return Echo().describe()\n"
    (tmp_path / "a").mkdir()
    got = package_keys(tmp_path / "a", {"base.py": base, "echo.py": echo,
                                        "cli.py": "def main(args):\n    args.enabled = True\n"})
    assert ("Echo", "enabled", "PK003", "error") in got, got
    (tmp_path / "b").mkdir()
    got = package_keys(tmp_path / "b", {"base.py": base, "echo.py": echo,
                                        "host.py": "def start(plugins):\n    for plugin in plugins:\n        plugin.enabled = True\n"})
    assert ("Echo", "enabled", "PK003", "warning") in got, got
