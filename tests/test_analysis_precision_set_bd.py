"""Session 41's rules from set BD (analyzer-precision-session41.md in bench/results/analyzer-precision-history.tar.xz), each with the
cases of the same shape that stay reported.

1. ``f(..., super().__init__)`` hands the base's initialiser to a function that may build the
   instance with it (skyfield 1.55's ``Topos`` passes ``super(Topos, self).__init__`` as the class
   ``latlon()`` calls): a function of the module that calls that parameter runs it there; any
   other callee may run it or keep it, so what it would assign is a warning naming the hand-over.
2. ``self.m(self)``: what ``m`` stores on the parameter given the instance is stored on the
   instance (billiard 4.3.2's ``Worker.contribute_to_object(self)``).
3. ``raise_from`` / ``reraise`` from ``six`` (and ``future.utils``) always raise, like ``raise``
   (py2neo 2021.2.4's ``Connection.__init__``).
4. ``setattr(cls, <computed name>, ...)`` in a classmethod or ``__new__`` opens the class to those
   names (circus 0.19.0's ``CircusCtl._add_do_cmd``).
5. A ``*args`` / ``**kwargs`` the call leaves empty: ``if args:`` is false, ``len(args)`` is 0 and a
   loop over them (``kwargs.items()``) never runs (cassandra-driver 3.30.1's
   ``OrderedMapSerializedKey`` built through ``super().__init__()``).
"""
from __future__ import annotations

import textwrap

from _analysed_package import package_keys
from patchkit.analysis import analyse_source


def _errors(src: str) -> set[tuple[str, str]]:
    return {(f.cls, f.attr) for f in analyse_source("m.py", textwrap.dedent(src)) if f.severity.value == "error"}


def _reported(src: str) -> set[tuple[str, str]]:
    return {(f.cls, f.attr) for f in analyse_source("m.py", textwrap.dedent(src))}


GEO = """
def latlon(lat, lon, cls):
    return cls(lat, lon)


class Position:
    def __init__(self, lat, lon):
        self.lat = lat
        self.lon = lon

    def describe(self):
        return f"{self.lat} {self.lon}"
"""


def test_a_base_initialiser_handed_to_a_builder_runs(tmp_path):
    keys = package_keys(tmp_path, {"geo.py": GEO, "topos.py": """
        from pkg.geo import Position, latlon


        class Topos(Position):
            def __init__(self, lat, lon):
                latlon(lat, lon, super(Topos, self).__init__)
                self.check = self.lat


        class Bound(Position):
            def __init__(self, lat, lon):
                init = super().__init__
                latlon(lat, lon, cls=init)


        class Missing(Position):
            def __init__(self, lat, lon):
                note(super().__init__.__doc__)   # the initialiser's docstring, not the initialiser
                self.check = self.lat


        def note(x):
            return x
        """})
    # latlon is another module's: it may call the initialiser or keep it (a warning names the hand-over)
    assert {k for k in keys if k[0] in ("Topos", "Bound") and k[3] == "error"} == set()
    assert ("Topos", "lat", "PK002", "warning") in keys
    assert ("Missing", "lat", "PK002", "error") in keys and ("Missing", "lon", "PK003", "error") in keys


def test_a_function_of_the_module_that_calls_the_initialiser_runs_it():
    """``latlon`` in the same module calls the parameter it is given: the base's ``__init__`` runs
    there, with arguments the analyzer does not bind (its defaults decide nothing)."""
    src = GEO + """

class Topos(Position):
    def __init__(self, lat, lon):
        latlon(lat, lon, super(Topos, self).__init__)
        self.check = self.lat


class Logged(Position):
    def __init__(self, lat, lon):
        keep(super().__init__)       # kept, never called: the read is not covered
        self.check = self.lat


def keep(f):
    return [f]
"""
    keys = {(f.cls, f.attr, f.code, f.severity.value) for f in analyse_source("m.py", src)}
    assert not {k for k in keys if k[0] == "Topos"}
    # keep(), in sight, never calls it: the base's __init__ does not run
    assert ("Logged", "lat", "PK002", "error") in keys


WORKER = """
class Worker:
    def __init__(self, inq, {sig}):
        self.inq = inq
        self.synq = None
        self.contribute_to_object({arg})

    def contribute_to_object(self, obj):
        obj.inq, obj.outq = self.inq, None
        obj.inq_fd = self.inq.fileno()
        if self.synq:
            obj.synq_fd = self.synq.fileno()
        else:
            obj.synq_fd = obj.other_fd = None
        if self.inq:
            obj.maybe_fd = 1
        return obj

    def loop(self):
        return self.inq_fd, self.synq_fd, self.outq

    def rare(self):
        return self.maybe_fd
"""


def test_a_method_handed_the_instance_stores_on_it():
    """What every pass through the method stores (straight line, both arms of an if): billiard's
    Worker.contribute_to_object; a store in one arm only stays unproven."""
    got = _reported(WORKER.format(sig="other=None", arg="self"))
    assert {a for c, a in got} == {"maybe_fd"}
    # handed another object: the store is on that object, the read on the instance still fails
    assert ("Worker", "inq_fd") in _errors(WORKER.format(sig="other=None", arg="other"))


RAISE_FROM = """
{imp}


class Connection:
    def __init__(self, profile):
        try:
            self._cx = open_connection(profile)
        except OSError as error:
            raise_from(RuntimeError("unavailable"), error)
        self._tx = None

    def cursor(self):
        return self._cx.cursor()
"""


def test_six_raise_from_ends_the_path_like_raise():
    assert _reported(RAISE_FROM.format(imp="from six import raise_from")) == set()
    assert _reported(RAISE_FROM.format(imp="from future.utils import raise_from")) == set()
    # a raise_from of the module's own that returns is an ordinary call: the except path goes on
    own = RAISE_FROM.format(imp="def raise_from(exc, cause):\n    print(exc, cause)")
    assert ("Connection", "_cx") in _reported(own)


CTL = """
import cmd


class Ctl(cmd.Cmd):
    def __new__(cls, commands, *args, **kw):
        for name in commands:
            {add}
        return super().__new__(cls, *args, **kw)

    def __init__(self, commands):
        super().__init__()

    @classmethod
    def _add_do_cmd(cls, name):
        def inner(self, line):
            return line
        inner.__name__ = "do_%s" % name
        setattr(cls, inner.__name__, inner)

    @classmethod
    def _add_help(cls, name):
        setattr(cls, f"help_{{name}}", lambda self: name)

    def start(self):
        return self.do_status("") + self.help_status() + self.stop_all()
"""


def test_setattr_on_cls_with_a_computed_name_opens_the_class():
    got = _reported(CTL.format(add="cls._add_do_cmd(name)\n            cls._add_help(name)"))
    assert ("Ctl", "do_status") not in got and ("Ctl", "help_status") not in got
    # help_{name} is a pattern, not every name: stop_all is still never assigned (PK003)
    only_help = _reported(CTL.format(add="cls._add_help(name)").replace("_add_do_cmd", "_unused"). replace(
        "setattr(cls, inner.__name__, inner)", "return inner"))
    assert ("Ctl", "stop_all") in only_help and ("Ctl", "help_status") not in only_help


ORDERED = """
class OrderedMap:
    def __init__(self, *args, **kwargs):
        self._items = []
        {kw_store}
        if {test}:
            for k, v in args[0]:
                self._insert(k, v)
        for k, v in kwargs.items():
            self._insert(k, v)

    def _insert(self, key, value):
        self._items.append((self._serialize_key(key), value))

    def _serialize_key(self, key):
        return key


class Keyed(OrderedMap):
    def __init__(self, cass_type, protocol_version):
        super().__init__({call})
        self.cass_key_type = cass_type
        self.protocol_version = protocol_version

    def _serialize_key(self, key):
        return self.cass_key_type.serialize(key, self.protocol_version)
"""


def test_empty_star_args_decide_tests_and_loops():
    for test in ("args", "len(args)", "len(args) > 0"):
        assert _errors(ORDERED.format(kw_store="", test=test, call="")) == set(), test
    # the call passes a keyword: the loop over kwargs.items() runs before the assignments
    assert ("Keyed", "cass_key_type") in _errors(ORDERED.format(kw_store="", test="args", call="a=1"))
    # the base adds to kwargs itself: the loop may run
    assert ("Keyed", "cass_key_type") in _errors(ORDERED.format(kw_store="kwargs['seed'] = 1", test="args", call=""))
    # a positional argument: args is not empty
    assert ("Keyed", "cass_key_type") in _errors(ORDERED.format(kw_store="", test="args", call="[(1, 2)]"))


def test_an_initialiser_only_kept_or_shown_does_not_run():
    """The review's shapes: logged, queued, or wrapped in a partial kept for later: construction
    never runs the base's __init__, so the read during construction stays an error."""
    src = """
    import functools
    import logging

    log = logging.getLogger(__name__)


    class Host:
        def __init__(self, parent=None):
            self.registry = {}


    class Logged(Host):
        def __init__(self):
            log.debug("base initialiser: %r", super().__init__)
            self.size = len(self.registry)


    class Lazy(Host):
        def __init__(self, parent):
            self._init_later = functools.partial(super().__init__, parent)
            self.size = len(self.registry)


    class Queued(Host):
        def __init__(self, pending):
            pending.append(super().__init__)
            self.size = len(self.registry)
    """
    assert {c for c, a in _errors(src) if a == "registry"} == {"Logged", "Lazy", "Queued"}
