"""Session 38's rule from sets AU/AV (`analyzer-precision-session38.md` in bench/results/analyzer-precision-history.tar.xz), with the cases
of the same shape that are still reported.

A class defined inside a function is a subclass of its bases: jupyter_client 8.10.0's
``ssh/forward.py`` reads ``self.chain_host`` in ``Handler.handle`` (``BaseRequestHandler.__init__``
calls it), and only ``forward_tunnel``'s local ``class SubHander(Handler): chain_host =
remote_host`` is ever handed to the server. Before, the local class was invisible and both reads were
PK002 errors on ``Handler``; a module-level subclass of the same shape already made ``Handler`` a
template its subclasses complete.
"""
from __future__ import annotations

import textwrap

import pytest

from _analysed_package import package_keys as findings
from patchkit.analysis.impact import impact_set
from patchkit.analysis.project import Project
from patchkit.analysis.runner import analyse_paths

FORWARD = """
import socketserver


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        print(self.chain_host, self.chain_port)


def forward_tunnel(local_port, remote_host, remote_port):
    class SubHander(Handler):
        {body}

    socketserver.TCPServer(("127.0.0.1", local_port), SubHander).serve_forever()
"""

PROVIDES = "chain_host = remote_host\n        chain_port = remote_port"


def _errors(got):
    return {(k[0], k[1]) for k in got if k[3] == "error"}


def test_a_subclass_a_factory_function_builds_completes_its_base(tmp_path):
    got = findings(tmp_path, {"forward.py": FORWARD.format(body=PROVIDES)})
    assert not _errors(got), got


def test_the_same_subclass_in_a_method_counts_too(tmp_path):
    src = FORWARD.format(body=PROVIDES).replace("def forward_tunnel(", "class Tunnels:\n    @staticmethod\n    def forward(")
    src = src.replace("\n    class SubHander", "\n        class SubHander").replace("\n        chain_", "\n            chain_")
    src = src.replace("\n    socketserver.TCPServer", "\n        socketserver.TCPServer")
    got = findings(tmp_path, {"forward.py": src})
    assert not _errors(got), got


@pytest.mark.parametrize("body", ["pass", "chain_host = remote_host"])
def test_a_local_subclass_that_lacks_the_attribute_leaves_the_read_reported(tmp_path, body):
    """The local class has neither name, or only one of the two: the other read is still an error."""
    got = _errors(findings(tmp_path, {"forward.py": FORWARD.format(body=body)}))
    assert ("Handler", "chain_port") in got, got
    assert (("Handler", "chain_host") in got) == (body == "pass"), got


def test_a_local_subclass_in_a_test_file_is_not_evidence(tmp_path):
    """A test's local subclass is a fixture: the package's own class keeps its error."""
    pkg = tmp_path / "pkg"
    (pkg / "tests").mkdir(parents=True)
    (pkg / "tests" / "__init__.py").write_text("")
    (pkg / "tests" / "test_forward.py").write_text(textwrap.dedent("""
        from pkg.forward import Handler


        def test_handler():
            class Fixture(Handler):
                chain_host = "h"
                chain_port = 1
            assert Fixture
    """))
    (pkg / "__init__.py").write_text("")
    (pkg / "forward.py").write_text(textwrap.dedent(FORWARD.format(body="pass")))
    got = {(f.cls, f.attr) for rep in analyse_paths([pkg], use_cache=False, jobs=1) for f in rep.findings
           if f.severity == "error"}
    assert {("Handler", "chain_host"), ("Handler", "chain_port")} <= got, got


def test_the_impact_set_reaches_a_local_subclass_of_an_edited_class(tmp_path):
    """The gate's impact set (every class whose MRO holds an edited class) names a factory's subclass
    too: its module is analysed with the edit (local classes themselves are never judged)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "forward.py").write_text(textwrap.dedent(FORWARD.format(body=PROVIDES)))
    got = impact_set(Project(tmp_path), [("pkg/forward.py", "Handler")])
    assert ("pkg/forward.py", "forward_tunnel.<locals>.SubHander") in got, sorted(got)


CASCADE = """
class CascadeNode:
    def __init__(self, *dependencies):
        self._dependencies = dependencies


class Streamers:
    def __init__(self, freesegments):
        self._freesegments = freesegments


class Directory(CascadeNode):
    {init}def reallocate(self, n):
        return self._freesegments.allocate(n)


class RootDirectory(Directory):
    def __init__(self, freesegments):
        CascadeNode.__init__(self)
        self._freesegments = freesegments
{use}"""

BUILT = "\n\ndef make():\n    return Directory()\n"
OWN_INIT = "def __init__(self):\n        CascadeNode.__init__(self)\n\n    "


@pytest.mark.parametrize("init, use, reported", [
    ("", "", False),                 # a template nobody builds: its subclasses complete it
    ("", BUILT, True),               # built by name: the unrelated Streamers' assignment is the field bug's shape
    (OWN_INIT, "", True),            # its own __init__ (EAGLEWorkerV2's shape) forgot what Streamers got
    ("", "\n\nKINDS = [Directory]\n", True),  # handed on as a value: a registry may build it
    ("", "\n\ndef is_dir(x):\n    return isinstance(x, Directory)  # a Directory (prose)\n", False),
])
def test_a_template_nobody_builds_is_completed_by_its_subclasses(tmp_path, init, use, reported):
    got = _errors(findings(tmp_path, {"cascade.py": CASCADE.format(init=init, use=use)}))
    assert (("Directory", "_freesegments") in got) == reported, got


@pytest.mark.parametrize("other, reported", [
    ("from pkg import cascade\n\n\ndef make():\n    return cascade.Directory()\n", True),        # built through its module
    ("from pkg.cascade import Directory as D\n\n\ndef make():\n    return D()\n", True),          # under an alias
    ("from pkg import cascade\n\nKINDS = {'dir': cascade.Directory}\n", True),                   # handed on through its module
    ("from pkg.cascade import Directory\n\n\ndef make():\n    return Directory.empty()\n", True),  # a classmethod may build it
    ("from pkg.cascade import Directory\n\n\ndef size(d: Directory) -> Directory:\n    return d\n", False),  # annotations
    ("from pkg.cascade import Directory, RootDirectory\n\n\nclass Sub(RootDirectory):\n"
     "    def __init__(self):\n        super(Directory, self).__init__(None)\n", False),             # super(Directory, self)
])
def test_a_template_used_in_another_module_is_judged_as_built(tmp_path, other, reported):
    """How another module may build the template (review of session 38): each keeps the error; type
    annotations and ``super(Directory, self)`` do not build it."""
    got = _errors(findings(tmp_path, {"cascade.py": CASCADE.format(init="", use=""), "other.py": other}))
    assert (("Directory", "_freesegments") in got) == reported, got


USED = """
import socketserver
from pkg.forward import Handler


def serve(port):
    socketserver.TCPServer(("127.0.0.1", port), Handler).serve_forever()
"""

FAKE = """
from pkg.forward import Handler


def fake_handler():
    class FakeHandler(Handler):
        chain_host = "localhost"
        chain_port = 1
    return FakeHandler
"""


@pytest.mark.parametrize("files", [
    {"forward.py": FORWARD.format(body=PROVIDES), "serve.py": USED},            # the base is served as it stands
    {"forward.py": FORWARD.format(body="pass"), "testutils.py": FAKE},         # a stand-in's local subclass
    {"forward.py": FORWARD.format(body=PROVIDES).replace(
        "class SubHander(Handler):", "class SubHander(Handler, LoggingMixin):").replace(
        "import socketserver\n", "import socketserver\nfrom notinstalled_lib import LoggingMixin\n")},  # an unreadable base
])
def test_a_local_subclass_is_no_evidence_when_the_base_is_used_as_it_stands(tmp_path, files):
    got = _errors(findings(tmp_path, files))
    assert ("Handler", "chain_host") in got, got


def test_local_classes_of_the_same_name_in_one_function_are_each_kept(tmp_path):
    from patchkit.analysis.localclasses import local_classes
    src = textwrap.dedent("""
        class C:
            @property
            def x(self):
                class Impl:
                    a = 1
                return Impl

            @x.setter
            def x(self, v):
                class Impl:
                    b = 2
                return Impl
    """)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "c.py").write_text(src)
    mod = Project(tmp_path).module("pkg.c", external=False)
    got = [(c.qualname, sorted(c.class_names)) for c in local_classes(mod)]
    assert [names for _q, names in got] == [["a"], ["b"]] and len({q for q, _ in got}) == 2, got


QUEUE = """
def _set_name(name, serial, object):
    {body}


class Queue:
    def __init__(self, name=None):
        _set_name(name, {{}}, self)
        print(self.name())

    def name(self, value=None):
        if value is not None:
            self._name = value
        return self._name
"""


@pytest.mark.parametrize("body, severity", [
    ("object._name = name if name else 'queue.0'", None),        # salabim's _set_name: a store on the instance
    ("if name:\n        object._name = name", "warning"),        # only when a name is given: a configuration branch
    ("object.parts._name = name", "error"),                      # a store on what hangs off it, not on it
    ("print(object)", "error"),                                  # the instance only passed on
])
def test_a_module_helper_that_stores_on_the_instance_it_is_handed_runs_as_the_instance(tmp_path, body, severity):
    """Set AW (salabim 26.0.9): ``_set_name(name, self.env._nameserializeQueue, self)`` sets
    ``object._name`` before ``self.name()`` reads it; the class also assigns ``_name`` itself (the
    ``name(value)`` setter), so before, the helper's store was not seen and the read was a PK002 error."""
    got = {k[3] for k in findings(tmp_path, {"queue.py": QUEUE.format(body=body)}) if k[:3] == ("Queue", "_name", "PK002")}
    assert got == ({severity} if severity else set()), got


SUPPRESS = """
import contextlib


class Environment:
    def __init__(self):
        self._suppress = False

    @contextlib.contextmanager
    def suppress_trace(self):
        old = self._suppress
        self._suppress = True
        {around_yield}
        self._suppress = old


class Component:
    def suppress_trace(self, value=None):
        return value


class Resource:
    def __init__(self, env):
        self.env = env
        with self.env.suppress_trace():
            self._claimers = []

    def claimers(self):
        return self._claimers
"""


@pytest.mark.parametrize("around_yield, reported", [
    ("yield", False),                                              # salabim: only a flag around the yield
    ("try:\n            yield\n        except Exception:\n            pass", True),  # swallows what the block raises
])
def test_a_context_manager_method_swallows_only_if_its_body_catches(tmp_path, around_yield, reported):
    """Set AW (salabim 26.0.9): ``with env.suppress_trace():`` around ``self._claimers = []``. The name
    said "suppress", so the block was taken to swallow exceptions and the store to be skippable; the
    module's @contextmanager method of that name decides now (a plain method of the same name in
    another class is not what a ``with`` uses)."""
    got = _errors(findings(tmp_path, {"res.py": SUPPRESS.format(around_yield=around_yield)}))
    assert (("Resource", "_claimers") in got) == reported, got


# the second review of rules 3 and 4 (session 38): each of these kept its finding before the rules, and must still
REVIEW_CASES = {
    # a generator helper's body does not run when it is called
    'c1b_gen': ("""\
def _init(obj, name):
    obj.name = name
    yield obj


class Foo:
    def __init__(self, name):
        _init(self, name)          # only creates a generator: the body never runs
        self.label = self.name + "!"

    def rename(self, name):
        self.name = name
""", ('Foo', 'name', 'PK002')),
    # a helper that rebinds its parameter stores on another object
    'c3b_rebind': ("""\
class Other:
    pass


def _attach(name, obj):
    obj = Other()                  # rebound: the store below is on the new Other
    obj.name = name
    return obj


class Foo:
    def __init__(self, name):
        self.peer = _attach(name, self)
        self.label = self.name + "!"

    def rename(self, name):
        self.name = name
""", ('Foo', 'name', 'PK002')),
    # the caller's parameter shadows the module function of that name
    'c12_shadow': ("""\
def setup(obj):
    obj.ready = True


class Foo:
    def __init__(self, setup=print):
        setup(self)                # the caller's parameter, not the module's setup()
        if self.ready:
            pass

    def start(self):
        self.ready = True
""", ('Foo', 'ready', 'PK002')),
    # the caller's facts about its own `flag` must not decide the helper's `flag`
    'c11c_condleak_nobind': ("""\
def _mark(flag, obj):
    if flag:
        obj.x = 1


class Foo:
    def __init__(self, flag, other):
        if flag:
            _mark(other, self)     # the helper's `flag` is the caller's `other`
            print(self.x)

    def reset(self):
        self.x = 0
""", ('Foo', 'x', 'PK002')),
    # a method named like the module helper is not run by calling the helper
    'c10_collide_skip': ("""\
def _refresh(obj):
    obj.stamp = 0


class Panel:
    def __init__(self, bus, fast):
        _refresh(self)                 # the module function
        if not fast:
            self.cache = {}
        bus.subscribe(self._refresh)   # the method runs later, on events

    def _refresh(self):
        self.stamp = len(self.cache)   # AttributeError when built with fast=True
""", ('Panel', 'cache', 'PK001')),
    # contextlib.suppress is not the module's Console.suppress
    'c5_suppress': ("""\
import contextlib


class Console:
    def __init__(self):
        self.quiet = False

    @contextlib.contextmanager
    def suppress(self):            # mutes output; catches nothing
        self.quiet = True
        yield
        self.quiet = False


class Config:
    def __init__(self, d):
        with contextlib.suppress(KeyError):
            self.port = d["port"]  # skipped when "port" is missing
        self.url = "http://h:%d" % self.port
""", ('Config', 'port', 'PK002')),
    # a module @contextmanager's body was read before: its block's reads stay judged
    'c6_named_fn': ("""\
from contextlib import contextmanager


@contextmanager
def ignore_signals():
    yield                          # catches nothing


class Worker:
    def __init__(self):
        with ignore_signals():
            self.pid = self.spawn()    # spawn() reads self.cmd, assigned only below
        self.cmd = "run"

    def spawn(self):
        return len(self.cmd)
""", ('Worker', 'cmd', 'PK002')),
    # a handler that raises again swallows nothing (a transaction's rollback)
    'c7_reraise': ("""\
from contextlib import contextmanager


class Store:
    def __init__(self, conn):
        self.conn = conn
        with self.transaction():
            self.rows = conn.load()
        self.count = len(self.rows)

    @contextmanager
    def transaction(self):
        try:
            yield
        except Exception:
            self.conn.rollback()
            raise                  # re-raised: nothing is swallowed
""", None),
}


@pytest.mark.parametrize("case", sorted(REVIEW_CASES))
def test_rules_3_and_4_leave_these_as_they_were(tmp_path, case):
    src, expected = REVIEW_CASES[case]
    got = {k[:3] for k in findings(tmp_path, {"m.py": src}) if k[3] in ("error", "warning")}
    if expected is None:
        assert not got, got
    else:
        assert expected in got, got
