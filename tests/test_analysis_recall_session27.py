"""Session 27's rules from the untuned recall set (rel_43-rel_68 in bench/recall_releases.json.xz;
analyzer-precision-session27.md in bench/results/analyzer-precision-history.tar.xz). Each opened or hid a class that was neither, so a
real bug stayed silent; each test also keeps a case that must stay quiet (or open).

- builtin exception bases: ``BUILTIN_EXC`` read ``dir()`` of the builtins *dict* (what
  ``__builtins__`` is in an imported module) and was empty, so every ``class E(ValueError)`` had an
  unknown base and was never judged;
- ``__setstate__``'s ``setattr(self, k, v)`` loop restores a pickled instance's own names (requests'
  ``HTTPAdapter``, under docker's ``SSHHTTPAdapter.ssh_conf`` typo);
- ``self.register_parameter(name="bias", ...)``: the keyword form registers ``bias`` as the
  positional one does (gpytorch's ``LinearMean.bias``);
- a ``__getattr__`` that only hands the lookup on to a base's gives nothing the bases do not;
- ``setattr(self, k, v)`` after ``if not hasattr(self, k): raise`` rebinds an existing name;
- a method that stores under its own parameter's name (torchmetrics' ``add_state``, gpytorch's
  ``register_prior``) assigns each literal its callers pass, and ``p + "_suffix"`` is a pattern;
- in a class with computed stores, a construction read made before any of them ran is judged
  (torchmetrics' ``MeanAveragePrecision`` reads ``self._iou_type`` before its first ``add_state``).
"""
from __future__ import annotations

import textwrap

import pytest

from patchkit.analysis.library import classify_external
from _analysed_package import package_findings, package_keys as findings



@pytest.mark.parametrize("name", ["ValueError", "OSError", "KeyError", "RuntimeError", "StopIteration",
                                  "ExceptionGroup", "builtins.TypeError"])
def test_builtin_exceptions_are_known_bases(name):
    assert classify_external(name).kind == "exception"


def test_an_exception_subclass_is_judged_and_its_base_attributes_count(tmp_path):
    got = findings(tmp_path, {"e.py": """
        class ConnError(OSError):
            def __init__(self, key, err):
                super().__init__(err.errno, err.strerror)
                self._key = key

            def __str__(self):
                return f"{self._key}: {self.strerror} {self.errno} {self.args} {self._os_error}"
        """})
    assert got == {("ConnError", "_os_error", "PK003", "error")}


RESTORE = """
class Adapter:
    __attrs__ = ["retries"]

    def __init__(self):
        self.retries = 3

    def __setstate__(self, state):
        for attr, value in state.items():
            setattr(self, attr, value)


class SSHAdapter(Adapter):
    def __init__(self, host):
        self.ssh_params = {"host": host}
        self._create()
        super().__init__()

    def _create(self):
        if self.ssh_params["host"]:
            self.ssh_params["sock"] = self.ssh_conf["proxycommand"]
"""


def test_setstate_restoring_names_does_not_open_the_class(tmp_path):
    assert ("SSHAdapter", "ssh_conf", "PK002", "error") in findings(tmp_path, {"a.py": RESTORE})


def test_a_computed_store_that_construction_runs_first_still_opens_it(tmp_path):
    text = RESTORE.replace("    def __setstate__(self, state):", "    def load(self, state):") \
        .replace("        self._create()\n", "        self.load(dict(host=host))\n        self._create()\n")
    assert not {f for f in findings(tmp_path, {"a.py": text}) if f[1] == "ssh_conf"}


LINEAR = """
import torch


class LinearMean(torch.nn.Module):
    def __init__(self, n, bias=True):
        super().__init__()
        self.register_parameter(name="weights", parameter=torch.nn.Parameter(torch.randn(n, 1)))
        if bias:
            self.register_parameter(name="bias", parameter=torch.nn.Parameter(torch.randn(1)))

    def forward(self, x):
        res = x.matmul(self.weights)
        if self.bias is not None:
            res = res + self.bias
        return res
"""


def test_register_parameter_by_keyword_registers_the_name(tmp_path):
    got = findings(tmp_path, {"m.py": LINEAR})
    assert {(c, a, code) for c, a, code, _s in got} == {("LinearMean", "bias", "PK001")}


def test_register_parameter_by_keyword_unconditionally_is_clean(tmp_path):
    assert not findings(tmp_path, {"m.py": LINEAR.replace("        if bias:\n            self.register_parameter(name=\"bias\"",
                                                          "        self.register_parameter(name=\"bias\"")})


GETATTR = """
class Base:
    def __init__(self):
        self.a = 1

    def __getattr__(self, name):
{body}


class Sub(Base):
    def value(self):
        return self.a + self.never_set
"""


def test_a_getattr_that_hands_on_to_the_base_does_not_open_the_class(tmp_path):
    body = ("        try:\n            return super().__getattr__(name)\n        except AttributeError as e:\n"
            "            try:\n                return super().__getattribute__(name)\n"
            "            except AttributeError:\n                raise e\n")
    got = findings(tmp_path, {"m.py": GETATTR.format(body=body)})
    assert ("Sub", "never_set", "PK003", "error") in got


@pytest.mark.parametrize("body", ["        return self.__dict__.get('_extra', {})[name]\n",
                                  "        if name.startswith('x'):\n            return 0\n"
                                  "        return super().__getattribute__(name)\n"])
def test_a_getattr_that_can_answer_keeps_the_class_open(tmp_path, body):
    got = findings(tmp_path, {"m.py": GETATTR.format(body=body)})
    assert not {f for f in got if f[1] == "never_set" and f[3] == "error"}


INITIALIZE = """
class Module:
    def __init__(self):
        self.noise = 0.1

    def initialize(self, **kwargs):
        for name, val in kwargs.items():
            if not hasattr(self, name):
                raise AttributeError(name)
            setattr(self, name, val)
        return self

    def value(self):
        return self.noise + self.scale
"""


def test_setattr_after_a_raising_hasattr_check_rebinds(tmp_path):
    assert ("Module", "scale", "PK003", "error") in findings(tmp_path, {"m.py": INITIALIZE})


def test_setattr_without_the_check_adds_names(tmp_path):
    text = INITIALIZE.replace("            if not hasattr(self, name):\n                raise AttributeError(name)\n", "")
    assert not {f for f in findings(tmp_path, {"m.py": text}) if f[1] == "scale"}


METRIC = """
class Metric:
    def __init__(self):
        self._defaults = {{}}

    def add_state(self, name, default):
        setattr(self, name, default)
        self._defaults[name] = default

    def register_constraint(self, param_name, constraint):
        constraint_name = param_name + "_constraint"
        setattr(self, constraint_name, constraint)


class MAP(Metric):
    def __init__(self, iou_type="bbox"):
        super().__init__()
        {early}
        self.iou_type = iou_type
        self.add_state("boxes", [])
        self.add_state(name="scores", default=[])
        self.register_constraint("noise", None)

    def compute(self):
        return self.boxes, self.scores, self.noise_constraint, self.missing
"""


def test_a_store_keyed_by_a_parameter_assigns_what_callers_pass(tmp_path):
    got = findings(tmp_path, {"m.py": METRIC.format(early="pass")})
    assert got == {("MAP", "missing", "PK003", "error")}


@pytest.mark.parametrize("extra", ["    def grow(self, k):\n        self.add_state(k, [])\n",
                                   "\n\ndef attach(metric, k):\n    metric.add_state(k, [])\n"])
def test_a_keyed_store_with_a_computed_name_opens_the_class(tmp_path, extra):
    got = findings(tmp_path, {"m.py": METRIC.format(early="pass") + extra})
    assert not {f for f in got if f[1] == "missing" and f[3] == "error"}


def test_a_construction_read_before_any_computed_store_is_judged(tmp_path):
    # the class opens (a computed name below); the read comes before any computed store ran
    text = METRIC.format(early='raise_if(not AVAILABLE, f"Metric {self._iou_type} needs torchvision")')
    text += "    def grow(self, k):\n        self.add_state(k, [])\n\n\nAVAILABLE = bool(__name__)\n\n\n" \
            "def raise_if(c, msg):\n    if c:\n        raise RuntimeError(msg)\n"
    got = findings(tmp_path, {"m.py": text})
    assert ("MAP", "_iou_type", "PK002", "error") in got
    assert not {f for f in got if f[1] == "missing" and f[3] == "error"}


def test_starred_bases_resolve_to_the_tuple_the_module_defines(tmp_path):
    got = findings(tmp_path, {"e.py": """
        class ConnectorError(Exception):
            def __init__(self, key, os_error):
                self._os_error = os_error
                super().__init__(key)

            @property
            def os_error(self):
                return self._os_error


        FLAG = bool(__name__)
        if FLAG:
            cert_bases = (ConnectorError, ValueError)
        else:
            cert_bases = (ConnectorError, TypeError)


        class CertificateError(*cert_bases):
            def __init__(self, key, cert):
                self._cert = cert

            def describe(self):
                return self._cert, self.os_error
        """})
    assert ("CertificateError", "_os_error", "PK003", "error") in got


def test_a_mangled_attribute_is_reported_as_written(tmp_path):
    got = package_findings(tmp_path, {"c.py": textwrap.dedent("""
        class Client:
            def __init__(self):
                self.__gatt = None

            def connect(self):
                self.__callbacks = object()

            @property
            def is_connected(self):
                return self.__callbacks is not None
        """)})
    assert [(f.attr, f.code) for f in got] == [("__callbacks", "PK004")]
    assert "self.__callbacks" in got[0].message and "_Client__" not in got[0].message


UNKNOWN_FIRST = """
from somewhere_not_installed import LightningModule


class ModelPT(LightningModule):
    def __init__(self, cfg):
        super().__init__()
        self._cfg = cfg

    @property
    def cfg(self):
        return self._cfg


class TokenizerMixin:
    def _setup_tokenizer(self, cfg):
        if hasattr(self, "cfg") and "tokenizer" in self.cfg:
            self.cfg.tokenizer = cfg
        self.tokenizer = make(cfg)


class Model(ModelPT, TokenizerMixin):
    def __init__(self, cfg):
        self._setup_tokenizer(cfg.tokenizer)
        self.vocab = self.tokenizer.vocab
        {late}
        super().__init__(cfg)


def make(cfg):
    return cfg
"""


def test_a_tree_helper_behind_an_unreadable_base_runs(tmp_path):
    # the mixin's helper runs although LightningModule (unreadable) comes first in the MRO, and
    # hasattr(self, "cfg") on a property returning self._cfg vouches for _cfg
    assert not findings(tmp_path, {"m.py": UNKNOWN_FIRST.format(late="")})


def test_a_read_before_the_helper_still_counts(tmp_path):
    text = UNKNOWN_FIRST.format(late="").replace("        self._setup_tokenizer(cfg.tokenizer)\n        self.vocab",
                                                 "        self.vocab = self.tokenizer.vocab\n        self._setup_tokenizer(cfg.tokenizer)\n        self.vocab")
    assert ("Model", "tokenizer", "PK002", "error") in findings(tmp_path, {"m.py": text})


def test_init_subclass_handing_cls_to_a_module_helper_sets_its_class_attributes(tmp_path):
    # pyomo's AutoSlots.Mixin: __init_subclass__ calls AutoSlots.collect_autoslots(cls), which
    # sets cls.__auto_slots__; the mixin's __setstate__ restores by name (no longer an opening)
    got = findings(tmp_path, {"m.py": """
        class AutoSlots(type):
            @staticmethod
            def collect_autoslots(cls):
                cls.__auto_slots__ = tuple(getattr(cls, "__slots__", ()))

            class Mixin:
                __slots__ = ()

                def __init_subclass__(cls, **kwds):
                    super().__init_subclass__(**kwds)
                    AutoSlots.collect_autoslots(cls)

                def __getstate__(self):
                    return {k: getattr(self, k) for k in self.__auto_slots__}

                def __setstate__(self, state):
                    for k, v in state.items():
                        setattr(self, k, v)


        class ComponentMap(AutoSlots.Mixin):
            __slots__ = ("_dict",)

            def __init__(self):
                self._dict = {}

            def keys(self):
                return self._dict.keys(), self.__auto_slots__, self._missing
        """})
    assert {(c, a) for c, a, _code, _s in got} == {("ComponentMap", "_missing")}


@pytest.mark.parametrize("rebind, reported", [("self = weak_self()", False), ("other = weak_self()", True)])
def test_a_nested_function_that_binds_self_reads_another_object(tmp_path, rebind, reported):
    # pip's vendored cachecontrol: a closure that rebinds `self` to the response it patches
    got = findings(tmp_path, {"a.py": f"""
        class Adapter:
            def __init__(self):
                self.cache = {{}}

            def build(self, response):
                def _update(weak_self):
                    {rebind}
                    if self.chunk_left == 0:
                        return None
                response.update = _update
                return response
        """})
    assert (("Adapter", "chunk_left", "PK003", "error") in got) == reported
