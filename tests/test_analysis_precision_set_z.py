"""Session 24's rules from sets Z and AA (analyzer-precision-session24.md in bench/results/analyzer-precision-history.tar.xz), each
across modules with the case it must keep:

- a subclass that hands its base a constant turning a store off (``super().__init__(use_cache=
  False)``) reads it unassigned on every instance: an error for the subclass, while the base alone
  (its callers choose) stays a configuration mode (a store in a closure ``__init__`` only builds:
  ``rules/examples/pk004.py``);
- ``setattr(Cls, f"_{name}", impl)`` in the class's module gives it attributes by pattern (torch's
  ``SymNode._gt``, ``_mul`` ...);
- ``__new__`` returning an object it built from ``cls`` and stored attributes on (torch's
  ``ShardedTensor._metadata``, a singleton's ``cls._instance._initialized``);
- ``issubclass(ThisClass, dict)`` in a class whose MRO has no ``dict`` is dead (swagger-codegen's
  ``to_dict``, kserve);
- an attribute no code of the tree stores on ``self``, stored on an object from outside
  (opencompass's ``evaluator._out_dir``): a warning; once some class owns the name, an error;
- a skipped base ``__init__`` whose attribute a public setter of the base also stores (paddle's
  ``Callback.set_model``): a warning; without the setter, an error;
- a bare ``Module`` base that a star import of a library other than torch brought (tsai's fastai
  ``Module``): not torch's, so no PK006;
- a class with no state of its own, never built by name but handed around as a value (ngboost's
  score mixins): its reads are a run-time host's, a warning; with an ``__init__`` of its own (the
  field bug's shape) or built by name, an error.
"""
from __future__ import annotations

import textwrap

import pytest

from _analysed_package import package_findings


def findings(tmp_path, files):
    tmp_path.mkdir(parents=True, exist_ok=True)
    return {(f.cls, f.attr, f.code, f.severity.value)
            for f in package_findings(tmp_path, {k: textwrap.dedent(v) for k, v in files.items()})}


CACHE_BASE = """
class Base:
    def __init__(self, use_cache):
        if use_cache:
            self.cache = {}
    def lookup(self, k):
        return self.cache[k]
"""


@pytest.mark.parametrize("call, expected", [
    ("super().__init__(use_cache=False)", "error"),   # every Sub lacks it
    ("super().__init__(use_cache=flag)", "warning"),  # Sub's caller chooses: a mode, as in Base
])
def test_a_constant_that_turns_the_bases_store_off(tmp_path, call, expected):
    sub = f"""
    from .base import Base
    class Sub(Base):
        def __init__(self, flag=True):
            {call}
    """
    got = findings(tmp_path, {"base.py": CACHE_BASE, "sub.py": sub})
    assert ("Sub", "cache", "PK001", expected) in got or \
        (expected == "warning" and not any(g[0] == "Sub" and g[3] == "error" for g in got)), got
    assert not any(g[0] == "Base" and g[3] == "error" for g in got), got


SYMNODE = """
class SymNode:
    def __init__(self, expr):
        self.expr = expr
    def gt(self, other):
        return self._gt(other)
    def value(self):
        return self.expr_value
"""


def test_methods_set_on_the_class_by_a_computed_setattr(tmp_path):
    magic = """
    from .node import SymNode
    """
    node = SYMNODE + """
def _make_node_magic(method, impl):
    setattr(SymNode, f"_{method}", impl)
for _m in ("gt", "lt"):
    _make_node_magic(_m, lambda self, other: other)
"""
    got = findings(tmp_path, {"node.py": node, "magic.py": magic})
    assert not any(g[1] == "_gt" for g in got), got
    assert ("SymNode", "expr_value", "PK003", "error") in got, got  # outside the pattern: still an error
    got = findings(tmp_path / "plain", {"node.py": SYMNODE, "magic.py": magic})
    assert ("SymNode", "_gt", "PK003", "error") in got, got


@pytest.mark.parametrize("new, ok", [
    ("r = make_wrapper_subclass(cls, data)\n            r._metadata = data\n            return r", True),
    ("r = make_wrapper_subclass(cls, data)\n            return r", False),
])
def test_new_building_the_instance_from_cls(tmp_path, new, ok):
    mod = f"""
    from .util import make_wrapper_subclass
    class Sharded:
        def __new__(cls, data):
            {new}
        def __init__(self, data):
            self.data = data
        def metadata(self):
            return self._metadata
    """
    got = findings(tmp_path, {"util.py": "def make_wrapper_subclass(cls, data):\n    return object.__new__(cls)\n",
                              "sharded.py": mod})
    assert (not any(g[1] == "_metadata" and g[3] == "error" for g in got)) == ok, got


def test_a_singletons_new_sets_what_init_reads(tmp_path):
    mod = """
    class Logger:
        _instance = None
        def __new__(cls, *args, **kwargs):
            if cls._instance is None:
                cls._instance = super().__new__(cls)
                cls._instance._initialized = False
            return cls._instance
        def __init__(self):
            if self._initialized:
                return
            self._initialized = True
    """
    got = findings(tmp_path, {"log.py": mod})
    assert not any(g[1] == "_initialized" for g in got), got


@pytest.mark.parametrize("base, dead", [("object", True), ("dict", False)])
def test_issubclass_of_a_builtin_the_mro_lacks(tmp_path, base, dead):
    mod = f"""
    class KnativeStatus({base}):
        def __init__(self, conditions=None):
            self._conditions = conditions
        def to_dict(self):
            result = {{}}
            if issubclass(KnativeStatus, dict):
                for key, value in self.missing_items():
                    result[key] = value
            return result
    """
    got = findings(tmp_path, {"status.py": mod})
    assert (not any(g[1] == "missing_items" for g in got)) == dead, got


EVALUATOR = """
class BaseEvaluator:
    def __init__(self, k=1):
        self.k = k
    @property
    def out_dir(self):
        return self._out_dir
"""


BUILT = "        evaluator = evaluator_type(**cfg)\n        evaluator._out_dir = path\n"
COPIED = "        evaluator = copy.deepcopy(evaluator_type)\n        evaluator._out_dir = path\n"


@pytest.mark.parametrize("owner, store, expected", [
    ("", BUILT, "warning"),
    ("        self._out_dir = 'x'\n", BUILT, "error"),  # some class owns the name: not an injection
    ("", COPIED, "error"),  # a copy of another object (torch's `op = copy.deepcopy(op)`): not this class's
])
def test_an_attribute_only_ever_stored_from_outside(tmp_path, owner, store, expected):
    task = "import copy\ndef run(evaluator_type, cfg, path):\n" + store.replace("        ", "    ") + \
        "    return evaluator\n"
    other = "class Other:\n    def __init__(self):\n        self.n = 0\n    def setup(self):\n" + (owner or "        pass\n")
    got = findings(tmp_path, {"evaluator.py": EVALUATOR, "task.py": task, "other.py": other})
    assert ("BaseEvaluator", "_out_dir", "PK003", expected) in got, got


CALLBACK = """
class Callback:
    def __init__(self):
        self.model = None
    def set_model(self, model):
        self.model = model
    def on_epoch_end(self):
        return self.model.step()
"""


GUARDED_SETTER = """    def set_model(self, model):
        if self.model is not None:
            raise ValueError("already set")
        self.model = model
"""


@pytest.mark.parametrize("setter, expected", [("plain", "warning"), ("none", "error"), ("guarded", "error"),
                                             ("other", "error")])
def test_a_skipped_base_init_whose_attribute_a_public_setter_stores(tmp_path, setter, expected):
    """A setter that first reads the placeholder (nni's ``Middleware.set_engine``) fails on the
    skipped-init object itself: no excuse."""
    plain = "    def set_model(self, model):\n        self.model = model\n"
    other = "    def set_state(self, state):\n        self.model = state\n"  # not the attribute's own setter
    base = {"plain": CALLBACK, "none": CALLBACK.replace(plain, ""), "guarded": CALLBACK.replace(plain, GUARDED_SETTER),
            "other": CALLBACK.replace(plain, other)}[setter]
    sub = """
    from .callbacks import Callback
    class LRScheduler(Callback):
        def __init__(self, by_step=True):
            self.by_step = by_step
    """
    got = findings(tmp_path, {"callbacks.py": base, "lr.py": sub})
    assert ("LRScheduler", "model", "PK003", expected) in got, got


def test_what_dataclass_puts_on_the_class_and_a_narrowed_field(tmp_path):
    mod = """
    from dataclasses import dataclass
    @dataclass(frozen=True)
    class Query:
        n: int
        def names(self):
            return list(self.__dataclass_fields__)
    class TileConfig:
        def __init__(self, name):
            self.name = name
        def geometry(self):
            if isinstance(self, PairTileConfig):
                return self.cta_group
            return 1
    @dataclass
    class PairTileConfig(TileConfig):
        cta_group: int = 2
    """
    got = findings(tmp_path, {"q.py": mod})
    assert not any(g[1] in ("__dataclass_fields__", "cta_group") for g in got), got


def test_a_subclass_named_like_its_base_is_not_judged_on_no_path(tmp_path):
    """espnet's ``MultiHeadedAttention(BaseMultiHeadedAttention)`` (the same class name in two
    modules) runs ``torch.nn.Module.__init__`` instead of its base's: which ``__init__`` ran cannot
    be told by name, so the store is not taken for one on no path."""
    base = """
    class Module:
        def __init__(self):
            self.training = True
    class MultiHeadedAttention(Module):
        def __init__(self, rate, use_sdpa=False):
            super().__init__()
            self.dropout_rate = rate
            self.use_sdpa = use_sdpa
        def forward(self, q):
            if getattr(self, "use_sdpa", False):
                return q * self.dropout_rate
            return q
    """
    sub = """
    from .attention import Module, MultiHeadedAttention as BaseMultiHeadedAttention
    class MultiHeadedAttention(BaseMultiHeadedAttention):
        def __init__(self, q_dim):
            Module.__init__(self)
            self.q_dim = q_dim
    """
    got = findings(tmp_path, {"attention.py": base, "style.py": sub})
    assert not any(g[1] == "dropout_rate" and g[3] == "error" for g in got), got


@pytest.mark.parametrize("origin, expected", [("torch.nn", True), ("fastai.torch_core", False)])
def test_a_bare_module_base_brought_by_a_star_import(tmp_path, origin, expected):
    """``class FCN(Module)`` where ``Module`` comes through the package's ``from .imports import *``:
    torch's (``from torch.nn import *``) needs ``super().__init__()`` (PK006); fastai's (tsai's
    ``from fastai.torch_core import *``) runs ``nn.Module.__init__`` from its metaclass."""
    got = findings(tmp_path, {
        "imports.py": f"from {origin} import *\n",
        "fcn.py": """
        from .imports import *
        class FCN(Module):
            def __init__(self, c_in, c_out):
                self.gap = c_in
                self.fc = c_out
        """})
    assert (("FCN", "Module", "PK006", "error") in got) == expected, got


NGBOOST_SCORES = """
class LogScore:
    def total(self, y):
        return self.score(y)
"""
NGBOOST_NORMAL = """
from .scores import LogScore
class NormalLogScore(LogScore):
{init}    def score(self, y):
        return (self.loc - y) ** 2
class Normal:
    scores = [NormalLogScore]
    def __init__(self, params):
        self.loc = params[0]
    @classmethod
    def implementation(cls, score):
        return next(s for s in cls.scores if issubclass(s, score))
def manifold(score, dist):
    class Manifold(dist.implementation(score), dist):
        pass
    return Manifold
{extra}"""


@pytest.mark.parametrize("init, extra, expected", [
    ("", "", "warning"),  # no state of its own, never built: the run-time host's attribute
    # with state of its own, the field bug's shape (the store landed in another class of the file)
    ("    def __init__(self, k):\n        self.k = k\n", "", "error"),
    ("", "probe = NormalLogScore()\n", "error"),  # built by name in the tree: it is used alone
])
def test_a_stateless_class_mixed_into_a_host_made_at_run_time(tmp_path, init, extra, expected):
    """ngboost's score classes: no ``__init__``, nothing assigned, never built by name, combined with
    a distribution of their module by ``class Manifold(Distribution.implementation(Score),
    Distribution)``."""
    got = findings(tmp_path, {"scores.py": NGBOOST_SCORES, "normal.py": NGBOOST_NORMAL.format(init=init, extra=extra)})
    assert ("NormalLogScore", "loc", "PK003", expected) in got, got
