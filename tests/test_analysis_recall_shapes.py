"""Shapes of real bugs from the whole-release recall corpus (bench/recall_releases.json.xz) that the
analyzer missed, each beside its counterpart that must stay quiet.

- rel_20 (flopy 3.9.3): a ``__setattr__`` that only reads ``vars(self)`` before ``super().__setattr__``
  keeps the class closed (its read is then judged: a warning on the defaults' path); one that writes
  through ``vars(self)`` opens it;
- rel_14 / rel_22 / rel_29 (paho-mqtt, gymnasium, nltk): ``__del__`` reaches the read through the
  methods it calls;
- rel_16 (python-can) is in test_analysis_project.py, rel_08 / rel_39 in test_analysis_defaults.py.
"""
from __future__ import annotations

import pytest

from patchkit.ftypes import Severity

from test_analysis_precision_rules import findings, tree

PACKAGE = """\
    class Package:
        def __init__(self, model):
            self.parent = model

        def __setattr__(self, key, value):
            var_dict = vars(self)
            if key in list(var_dict.keys()):
                value = {convert}
            super().__setattr__(key, value)


    class Mt3dUzt(Package):
        def __init__(self, model, cuzinf=None):
            super().__init__(model)
            if cuzinf is not None:
                self.cuzinf = [cuzinf]

        def write_file(self):
            if self.cuzinf is not None:
                return len(self.cuzinf)
    """


@pytest.mark.parametrize("convert, open_", [
    ("type(var_dict[key])(value)", False),   # reads vars(self): the stores are ordinary
    ("var_dict.setdefault(key, value)", True),  # may write the instance's __dict__ itself
])
def test_vars_self_opens_a_class_only_when_written(tmp_path, convert, open_):
    from patchkit.analysis.runner import analyse_paths
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/uzt.py": PACKAGE.format(convert=convert)})
    got = [f for r in analyse_paths([root / "pkg"], use_cache=False) for f in r.findings
           if (f.cls, f.attr, f.code) == ("Mt3dUzt", "cuzinf", "PK001")]
    if open_:
        assert got == []
    else:  # judged: a warning that names the path the defaults take (cuzinf=None)
        assert got and all(f.severity == Severity.WARNING and "defaults take (cuzinf=None)" in f.why for f in got)


DEL = """\
    class Client:
        def __init__(self, client_id="", clean_session=True):
            if not clean_session and not client_id:
                raise ValueError("a client id is needed without a clean session")
            self._sock = None

        def __del__(self):
            {call}

        def _reset_sockets(self):
            self._sock_close()

        def _sock_close(self):
            if not self._sock:
                return
            self._sock.close()
    """


@pytest.mark.parametrize("call, found", [
    ("self._reset_sockets()", True),
    ("try:\n                self._reset_sockets()\n            except Exception:\n                pass", False),
])
def test_del_reaches_the_read_through_the_methods_it_calls(tmp_path, call, found):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/client.py": DEL.format(call=call)})
    got = findings(root)
    assert (got.get(("Client", "_sock", "PK005")) == Severity.WARNING) is found


REGISTER = """\
    import six


    class Register(type):
        _reg = []

        def __new__(metacls, classname, bases, classdict):
            cls = super(Register, metacls).__new__(metacls, classname, bases, classdict)
            cls._namespace_at_class_time = classname
            metacls._reg.append(cls)
            return cls

        def __call__(cls, *args, **kwargs):
            {call}


    @six.add_metaclass(Register)
    class Task(object):
        def __init__(self, *args, **kwargs):
            self.param_kwargs = dict(kwargs)
            self.task_id = str(self.param_kwargs) + self._namespace_at_class_time

        def __repr__(self):
            return repr(self.param_kwargs)


    class BeamTask(Task):
        def __init__(self):
            self.runner = "dataflow"
    """


@pytest.mark.parametrize("call, closed", [
    ("return super(Register, cls).__call__(*args, **kwargs)", True),  # builds through __init__
    ("obj = super(Register, cls).__call__(*args, **kwargs)\n            obj.extra = 1\n            return obj", False),
])
def test_a_metaclass_of_the_tree_is_read(tmp_path, call, closed):
    """luigi's Register (applied by six.add_metaclass) only sets class attributes and builds
    instances through super().__call__: Task is closed, so BeamTask's skipped Task.__init__ is the
    missing super call; a __call__ that stores on the instance it builds opens the class."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/task.py": REGISTER.format(call=call)})
    got = findings(root)
    assert (got.get(("BeamTask", "param_kwargs", "PK003")) == Severity.ERROR) is closed
    assert ("Task", "_namespace_at_class_time", "PK003") not in got  # a class attribute the metaclass sets


DYNAMIC_BASE = """\
    class Task:
        def __init__(self, **params):
            for key, value in params.items():
                setattr(self, key, value)
            self.param_kwargs = dict(params)

        def __repr__(self):
            return repr(self.param_kwargs)

        def restore(self, saved):
            for name in saved:
                if hasattr(self, name):
                    setattr(self, name, None)


    class Sub(Task):
        def __init__(self):
            {init}
    """


@pytest.mark.parametrize("init, bug", [
    ("self.runner = 1", True),                  # Task.__init__ (the only computed store) never runs
    ("super().__init__(runner=1)", False),      # it runs: any attribute may exist
])
def test_computed_stores_in_a_skipped_base_init_leave_the_subclass_closed(tmp_path, init, bug):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/task.py": DYNAMIC_BASE.format(init=init)})
    got = findings(root)
    assert (got.get(("Sub", "param_kwargs", "PK003")) == Severity.ERROR) is bug


BLOCKETTE = """\
    class Blockette:
        def __init__(self, debug=False):
            self.debug = debug
            self.blockette_id = "000"

        def parse_seed(self, data):
            return data

        def get_seed(self):
            return self.blockette_id

        def parse_xml(self, xml):
            return xml

        def get_xml(self):
            return self.blockette_id

        def get_resp(self):
            return ""

        def {reader}(self):
            return "Blockette %s" % self.blockette_id


    class Blockette060(Blockette):
        def __init__(self):
            self.stages = []

        def parse_seed(self, data):
            return data

        def get_seed(self):
            return b""

        def parse_xml(self, xml):
            return xml

        def get_xml(self):
            return ""
    """


@pytest.mark.parametrize("reader, severity", [
    ("__str__", Severity.ERROR),       # print(blockette): Python calls it by itself
    ("describe", Severity.WARNING),    # an ordinary method of a base the facade mostly replaces
])
def test_a_facade_still_inherits_the_protocol_dunders(tmp_path, reader, severity):
    """obspy 0.8.3: Blockette060 skips Blockette.__init__ and re-implements most of its public
    methods (a facade), but the inherited __str__ reads blockette_id."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/blockette.py": BLOCKETTE.format(reader=reader)})
    assert findings(root)[("Blockette060", "blockette_id", "PK003")] == severity


@pytest.mark.parametrize("use, deco, pk002", [
    ("self.parser = self.parse_chunked(unreader)", "", False),   # only creates the generator
    ("with self.parse_chunked(unreader):\n                    pass", "@contextmanager\n            ", True),
])
def test_a_generator_called_in_init_runs_later(tmp_path, use, deco, pk002):
    """gunicorn's ChunkedReader: ``self.parser = self.parse_chunked(unreader)`` in __init__ only
    creates the generator; its body, which reads the limits set after it, runs on next(). A
    @contextmanager method entered with ``with`` runs at once."""
    src = f"""\
        from contextlib import contextmanager


        class ChunkedReader:
            def __init__(self, unreader):
                {use}
                self.max_chunk = 1024

            {deco}def parse_chunked(self, unreader):
                size = unreader.read(self.max_chunk)
                yield size
        """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/body.py": src})
    got = findings(root)
    assert (("ChunkedReader", "max_chunk", "PK002") in got) is pk002


RESTORE = """\
    from contextlib import contextmanager
    import six


    class Task:
        def __init__(self, **kwargs):
            for key, value in kwargs.items():
                setattr(self, key, value)
            self.param_kwargs = dict(kwargs)

        def __repr__(self):
            return str(self.param_kwargs)

        @contextmanager
        def no_unpicklable_properties(self, names):
            {save}
            yield
            for property_name, value in six.iteritems(saved):
                setattr(self, property_name, value)


    class Beam(Task):
        def __init__(self):
            pass
    """

SAVES = {
    "hasattr": "saved = {}\n            for n in names:\n                if hasattr(self, n):\n"
               "                    saved[n] = getattr(self, n)\n                    setattr(self, n, 'x')",
    "getattr": "saved = {n: getattr(self, n) for n in names}",
    "default": "saved = {n: getattr(self, n, None) for n in names}",
    "update": "saved = {}\n            saved.update(names)",
}


@pytest.mark.parametrize("save, closed", [("hasattr", True), ("getattr", True), ("default", False), ("update", False)])
def test_restoring_saved_attributes_keeps_a_skipped_base_closed(tmp_path, save, closed):
    """rel_23 (luigi 2.8.4): a context manager that puts back attributes it read off the instance
    adds none, so a subclass skipping ``Task.__init__`` (the only other computed store) is judged;
    a dict that may hold names the instance lacks keeps the class open."""
    from patchkit.analysis.runner import analyse_paths
    src = RESTORE.replace("{save}", SAVES[save])
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/task.py": src})
    got = [f for r in analyse_paths([root / "pkg"], use_cache=False) for f in r.findings
           if (f.cls, f.attr, f.code) == ("Beam", "param_kwargs", "PK003")]
    assert bool(got) == closed
    assert all(f.severity == Severity.ERROR for f in got)


SKTIME = {
    "pkg/__init__.py": "",
    "pkg/base.py": """\
        class BaseObject:
            def __init__(self):
                self._tags_dynamic = dict()

            def set_params(self, **params):
                for key, value in params.items():
                    setattr(self, key, value)
                return self

            def set_tags(self, **tag_dict):
                self._tags_dynamic.update(tag_dict)
                return self
        """,
    "pkg/metrics.py": """\
        from pkg.base import BaseObject


        class BaseMetric(BaseObject):
            def __init__(self):
                super().__init__()


        class BaseErrorMetric(BaseMetric):
            def __init__(self, multioutput="uniform_average"):
                self.multioutput = multioutput{chain}


        class DynamicMetric(BaseErrorMetric):
            def __init__(self, greater_is_better=False):
                super().__init__()
                self.set_tags(**{{"lower_is_better": not greater_is_better}})

            def describe(self):
                return self.{later}
        """,
}


@pytest.mark.parametrize("chain", ["", "\n                super().__init__()"])
def test_computed_store_outside_construction_leaves_construction_reads_judged(tmp_path, chain):
    """rel_37 (sktime 0.13.0): ``set_params``'s ``setattr(self, key, value)`` runs after construction
    at the earliest, so the ``_tags_dynamic`` that construction itself reads (through ``set_tags``)
    before any such store is missing for certain when ``BaseObject.__init__`` never runs; reads
    after construction stay unjudged (the computed store may have set them)."""
    from patchkit.analysis.runner import analyse_paths
    files = dict(SKTIME, **{"pkg/metrics.py": SKTIME["pkg/metrics.py"].format(chain=chain, later="anything")})
    root = tree(tmp_path, files)
    got = [f for r in analyse_paths([root / "pkg"], use_cache=False) for f in r.findings]
    if chain:
        assert got == []
    else:
        assert [(f.cls, f.attr, f.code, f.severity) for f in got] == \
            [("DynamicMetric", "_tags_dynamic", "PK002", Severity.ERROR)]
        assert "BaseObject.__init__" in got[0].why and got[0].path.endswith("base.py")


COMET = """\
    class CometLogger:
        def __init__(self, api_key=None, save_dir=None, experiment_name=None):
            if api_key is not None and save_dir is not None:
                self.mode = "offline"
                self._save_dir = save_dir
            elif api_key is not None:
                self.mode = "online"
            else:
                self.mode = "offline"
                self._save_dir = save_dir
            self._experiment = None
            if experiment_name:
                self.{helper}()

        def {helper}(self):
            if self.mode == "online":
                return None
            return self.{prop}

        @property
        def {prop}(self):
            return self._save_dir
    """


@pytest.mark.parametrize("prop, helper, judged", [
    ("save_dir", "experiment", True),     # public: anyone may read it later, in online mode too
    ("_save_dir_of", "_experiment_of", False),  # private helpers only construction calls
])
def test_public_method_construction_calls_is_judged_after_construction_too(tmp_path, prop, helper, judged):
    """rel_24 (pytorch-lightning 0.9.0): construction calls the ``experiment`` property only in
    offline mode, but ``save_dir`` is API: a user reads it on an online logger, which has no
    ``_save_dir``. Private helpers that only construction calls stay judged on its paths alone."""
    from patchkit.analysis.runner import analyse_paths
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/comet.py": COMET.format(prop=prop, helper=helper)})
    got = [f for r in analyse_paths([root / "pkg"], use_cache=False) for f in r.findings
           if (f.cls, f.attr) == ("CometLogger", "_save_dir")]
    assert bool(got) == judged
    assert all(f.code == "PK001" for f in got)
