"""The precision rules measured on untuned code (bench/results/analyzer-precision*.md): each
false-positive family gets a rule that lowers the severity (or, for code that never runs, makes
the finding info-level), and next to each a case of the same shape that is a real bug and stays
an error.

- codegen-template: a module another file of its folder says it was generated from;
- deferred-base-init: ``Base.__init__(self)`` called from a later set-up method;
- owner-injects / decorator-injects: ``obj.x = ...`` on an instance of the class from outside;
- inherited-unreachable / class-flag-guard: a method of a base without ``__init__`` (a mixin)
  relying on the state its hosts set;
- correlated flag: a failure path that records itself in a flag the class sets the other way.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

from patchkit.analysis.runner import analyse_paths
from patchkit.ftypes import Severity


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return tmp_path


def findings(root: Path, *, show_info: bool = False):
    """{(class, attribute, code): severity} of `patchkit check pkg` on the tree."""
    from patchkit.analysis.checker import Settings
    reps = analyse_paths([root / "pkg"], use_cache=False, settings=Settings(show_info=show_info))
    return {(f.cls, f.attr, f.code): f.severity for r in reps for f in r.findings}


def test_codegen_template_is_info_and_the_generated_module_is_still_judged(tmp_path):
    body = """\
        import torch.nn as nn


        class Rotary(nn.Module):
            def __init__(self, d):
                {init}
                self.d = d

            def forward(self):
                return self.q
        """
    root = tree(tmp_path, {
        "pkg/__init__.py": "", "pkg/gem/__init__.py": "",
        "pkg/gem/modular_gem.py": body.replace("{init}", "nn.Module.__init__()"),
        "pkg/gem/modeling_gem.py": "# This file was automatically generated from src/pkg/gem/modular_gem.py.\n"
                                   + textwrap.dedent(body.replace("{init}", "super().__init__()")),
    })
    from patchkit.analysis.checker import Settings
    # the generated class: the missing attribute is an error there
    reps = analyse_paths([root / "pkg"], use_cache=False)
    errs = [(Path(f.path).name, f.code, f.attr) for r in reps for f in r.findings if f.severity == Severity.ERROR]
    assert errs == [("modeling_gem.py", "PK003", "q")]
    # the template's findings are only info, and say why
    reps = analyse_paths([root / "pkg"], use_cache=False, settings=Settings(show_info=True))
    info = [f for r in reps for f in r.findings if Path(f.path).name == "modular_gem.py"]
    assert {(f.code, f.severity) for f in info} == {("PK006", Severity.INFO), ("PK003", Severity.INFO)}
    assert all("code-generation template" in f.why and "modeling_gem.py" in f.why for f in info)


def test_a_folder_without_a_generated_file_keeps_the_errors(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/modular_gem.py": """\
        class A:
            def __init__(self):
                self.a = 1

            def f(self):
                return self.q
        """})
    assert findings(root) == {("A", "q", "PK003"): Severity.ERROR}


WORKER = """\
    class WorkerProc:
        def __init__(self, rank):
            self.rank = rank

        def loop(self):
            return self.rank
    """


def test_deferred_base_init_is_two_phase_and_a_forgotten_one_is_an_error(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": WORKER, "pkg/ray.py": """\
        from .base import WorkerProc


        class RayWorkerProc(WorkerProc):
            def __init__(self):
                self.pending = None

            def initialize_worker(self, rank):
                WorkerProc.__init__(self, rank)
        """, "pkg/forgot.py": """\
        from .base import WorkerProc


        class Forgot(WorkerProc):
            def __init__(self):
                self.pending = None
        """})
    got = findings(root)
    assert got[("Forgot", "rank", "PK003")] == Severity.ERROR
    # RayWorkerProc's finding sits on the same line (base.py:6) and loses the dedup to the error;
    # judged alone it is a two-phase warning
    (root / "pkg/forgot.py").unlink()
    assert findings(root) == {("RayWorkerProc", "rank", "PK004"): Severity.WARNING}


def test_attributes_injected_by_an_owner_are_warnings(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/hooks.py": """\
        import functools


        class Hook:
            def __init__(self):
                self.fn_ref = None


        class SkipHook(Hook):
            def __init__(self):
                self.k = 1

            def new_forward(self):
                return self.fn_ref


        class Worker:
            def __init__(self):
                self.mode = 0

            def print_logs(self):
                return self.core_worker


        global_worker = Worker()


        def capture(fn):
            @functools.wraps(fn)
            def wrapped(instance, *a):
                instance.registry = object()
                fn(instance, *a)
            return wrapped


        class Runner:
            @capture
            def __init__(self):
                self.x = 1

            def warmup(self):
                return self.registry


        class Opt:
            def __init__(self):
                self.y = 1

            def begin(self):
                start(self)

            def step(self):
                return self.zf_op


        def start(opt):
            opt.zf_op = 1


        class Plain:
            def __init__(self):
                self.a = 1

            def f(self):
                return self.dtype
        """, "pkg/registry.py": """\
        from .hooks import Hook, global_worker


        class Registry:
            def register_hook(self, hook: Hook):
                hook.fn_ref = print


        def connect(worker=global_worker):
            worker.core_worker = object()


        def unrelated(x):
            x.dtype = "bf16"  # no evidence that x is a Plain
        """})
    got = findings(root)
    assert got == {("SkipHook", "fn_ref", "PK003"): Severity.WARNING,
                   ("Worker", "core_worker", "PK003"): Severity.WARNING,
                   ("Opt", "zf_op", "PK003"): Severity.WARNING,
                   ("Plain", "dtype", "PK003"): Severity.ERROR}
    # Runner: @capture's wrapper stores `registry` before it calls __init__ (decorated.py, session
    # 22), so the attribute is assigned on every construction path, not injected afterwards


def test_an_owner_that_builds_the_object_injects_into_it(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": """\
        class Decoder:
            def __init__(self):
                self.n = 1

            def head(self):
                return self._lm_head_ref()


        class Other:
            def __init__(self):
                self.n = 1

            def head(self):
                return self._lm_head_ref()


        class Model:
            def __init__(self):
                self.decoder = Decoder()
                self.other = object()
                self.decoder._lm_head_ref = print
                self.other._lm_head_ref = print
        """})
    got = findings(root)
    assert got[("Decoder", "_lm_head_ref", "PK003")] == Severity.WARNING
    assert got[("Other", "_lm_head_ref", "PK003")] == Severity.ERROR


def test_mixin_state_from_hosts_is_a_warning_and_a_missing_method_an_error(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/attn.py": """\
        class AttentionModuleMixin:
            def get_attention_scores(self, q):
                return q * self.scale

            def set_attention_slice(self, n):
                return self.default_processor_cls(n)


        class Attention(AttentionModuleMixin):
            def __init__(self):
                self.scale = 1.0

            def forward(self, q):
                return q


        class AudioAttention(AttentionModuleMixin):
            def __init__(self):
                self.heads = 2

            def forward(self, q):
                return q
        """})
    got = findings(root)
    assert got[("AudioAttention", "scale", "PK003")] == Severity.WARNING
    assert Severity.ERROR in {got.get((c, "default_processor_cls", "PK003")) for c in ("Attention", "AudioAttention")}


def test_a_flag_recorded_failure_is_a_mode_and_a_silent_one_a_hole(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/comm.py": """\
        class SymmMem:
            def __init__(self, world, env=False):
                self.disabled = True
                try:
                    self.buffer = [0] * world
                except RuntimeError:
                    return
                self.disabled = False
                if env:
                    self.disabled = True

            def all_reduce(self, x):
                self.buffer[0] = x


        class Silent:
            def __init__(self, world):
                try:
                    self.buffer = [0] * world
                except RuntimeError:
                    return

            def all_reduce(self, x):
                self.buffer[0] = x
        """})
    assert findings(root) == {("SymmMem", "buffer", "PK001"): Severity.WARNING,
                              ("Silent", "buffer", "PK001"): Severity.ERROR}


def test_strict_keeps_every_rule_off(tmp_path):
    """--strict (unknown bases provide nothing) judges without these leniencies."""
    from patchkit.analysis.checker import Settings
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/w.py": """\
        class Worker:
            def __init__(self):
                self.mode = 0

            def logs(self):
                return self.core_worker


        global_worker = Worker()


        def connect(worker=global_worker):
            worker.core_worker = 1
        """})
    reps = analyse_paths([root / "pkg"], use_cache=False, settings=Settings(unknown_bases="strict"))
    assert [(f.code, f.severity) for r in reps for f in r.findings] == [("PK003", Severity.ERROR)]


CACHE = """\
    class Cache:
        def __init__(self):
            self.layers = []
            self.offloading = False

        def update(self, k):
            self.layers.append(k)
            return self.offloading

        def get_seq_length(self):
            return len(self.layers)

        def reorder(self, idx):
            return self.layers

        def crop(self, n):
            return self.layers
    """


def test_a_facade_that_skips_the_base_init_is_a_warning_an_ordinary_subclass_an_error(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": CACHE, "pkg/encdec.py": """\
        from .base import Cache


        class EncoderDecoderCache(Cache):
            def __init__(self, a, b):
                self.a, self.b = a, b

            def get_seq_length(self):
                return self.a.get_seq_length()

            def reorder(self, idx):
                return self.a.reorder(idx)

            def crop(self, n):
                return self.a.crop(n)
        """})
    got = findings(root)
    assert got[("EncoderDecoderCache", "offloading", "PK003")] == Severity.WARNING
    (root / "pkg/encdec.py").write_text(textwrap.dedent("""\
        from .base import Cache


        class Forgot(Cache):
            def __init__(self, a):
                self.a = a

            def crop(self, n):
                return n
        """))
    got = findings(root)
    assert got[("Forgot", "offloading", "PK003")] == Severity.ERROR
    assert got[("Forgot", "layers", "PK003")] == Severity.ERROR


def test_a_mixin_mixed_into_a_factory_host_is_a_warning_a_lonely_class_an_error(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/policy.py": """\
        class ClipGradients:
            def __init__(self):
                pass

            def compute_gradients(self, loss):
                self.grads = loss
                return self.model.trainable_variables()


        class Lonely:
            def __init__(self):
                pass

            def compute(self, loss):
                self.grads = loss
                return self.model


        def get_policy(base):
            class Policy(ClipGradients, base):
                def __init__(self):
                    base.__init__(self)
                    ClipGradients.__init__(self)
            return Policy
        """})
    got = findings(root)
    assert got[("ClipGradients", "model", "PK003")] == Severity.WARNING
    assert got[("Lonely", "model", "PK003")] == Severity.ERROR


def test_construction_that_dispatches_by_name_makes_path_reads_warnings(tmp_path):
    handler = """\
        class Base:
            def __init__(self, sock):
                try:
                    self.path = sock.readline()
                    {dispatch}
                except OSError:
                    pass

        class Handler(Base):
            def do_POST(self):
                return self.path
        """
    root = tree(tmp_path, {"pkg/__init__.py": "",
                           "pkg/h.py": handler.replace("{dispatch}", 'getattr(self, "do_" + self.path)()')})
    assert findings(root) == {("Handler", "path", "PK001"): Severity.WARNING}
    (root / "pkg/h.py").write_text(textwrap.dedent(handler.replace("{dispatch}", "pass")))
    assert findings(root) == {("Handler", "path", "PK001"): Severity.ERROR}


def test_a_base_without_init_is_completed_by_its_subclasses_even_if_a_neighbour_has_the_name(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/senet.py": """\
        class SEModule:
            def __init__(self):
                self.relu = abs


        class Bottleneck:
            def forward(self, x):
                return self.relu(x)


        class SEBottleneck(Bottleneck):
            def __init__(self):
                self.relu = abs
        """})
    assert findings(root) == {}


def test_a_mixin_imported_under_an_alias_into_its_host(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/backend.py": """\
        class JAXTrainer:
            def __init__(self):
                self.train_function = None

            def fit(self):
                return self.trainable_weights
        """, "pkg/layer.py": """\
        class Layer:
            def __init__(self):
                self.trainable_weights = []
        """, "pkg/model.py": """\
        from .backend import JAXTrainer as Trainer
        from .layer import Layer


        class Model(Trainer, Layer):
            def __init__(self):
                Trainer.__init__(self)
                Layer.__init__(self)
        """})
    # the class index follows the alias (session 26), so JAXTrainer is a mixin by use whose one host
    # provides the attribute: nothing to report (before, the alias hid the host: a warning)
    assert findings(root) == {}
    (root / "pkg/layer.py").write_text("class Layer:\n    def __init__(self):\n        self.weights = []\n")
    assert ("JAXTrainer", "trainable_weights", "PK003") in findings(root)


def test_an_unreadable_library_class_before_the_base_may_pass_super_init_on(tmp_path):
    opt = """\
        import notinstalled_tracking_lib as tf


        class BaseOptimizer:
            def __init__(self, lr):
                self.lr = lr

            def step(self):
                return self.lr


        class KerasAutoTrackable(tf.AutoTrackable):
            pass


        class TFOptimizer({bases}):
            def __init__(self, *a, **k):
                super().__init__(*a, **k)
                self.strategy = 1
        """
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/opt.py": opt.replace("{bases}", "KerasAutoTrackable, BaseOptimizer")})
    assert findings(root) == {("TFOptimizer", "lr", "PK003"): Severity.WARNING}


def test_one_finding_per_read_keeps_the_most_severe_class(tmp_path):
    """A mixin's read judged a warning for one class must not hide the error of another class
    that inherits the same read (the run keeps one finding per file, line, attribute, code)."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/a_mixin.py": """\
        class BackendTrainer:
            def __init__(self):
                self.fn = None

            def fit(self):
                return self.weights
        """, "pkg/b_host.py": """\
        from .a_mixin import BackendTrainer as Trainer


        class Layer:
            def __init__(self):
                self.weights = []


        class Model(Trainer, Layer):
            pass
        """})
    reps = analyse_paths([root / "pkg"], use_cache=False)
    got = [(f.cls, f.severity) for r in reps for f in r.findings]
    assert got == [("Model", Severity.ERROR)]


def test_a_base_called_BaseModel_is_pydantic_only_when_it_comes_from_pydantic(tmp_path):
    """mmdet's largest false-positive group: mmengine's ``BaseModel`` (an nn.Module) was read as
    pydantic's, so nn.Module's ``training`` and ``modules()`` looked unassigned. A qualified base is
    a field base only when it comes from the library; pydantic's stays one."""
    from patchkit.analysis.library import classify_external
    assert classify_external("mmengine.model.BaseModel").kind == "unknown"
    assert classify_external("pydantic.BaseModel").kind == "field"
    assert classify_external("pydantic.main.BaseModel").kind == "field"
    assert classify_external("typing.NamedTuple").kind == "field"
    assert classify_external("BaseModel").kind == "field"  # import not resolved: as before
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/det.py": """\
        from mmengine.model import BaseModel


        class Detector(BaseModel):
            def __init__(self, cfg):
                super().__init__()
                self.cfg = cfg

            def step(self):
                if self.training:
                    return self.cfg
                return list(self.modules())
        """})
    got = findings(root)
    assert ("Detector", "training", "PK003") not in got and ("Detector", "modules", "PK003") not in got


def test_the_tree_wide_injection_index_is_rebuilt_for_each_run(tmp_path):
    """The index is shared by every file of one run (speed) but never reused by the next run of the
    same process: an owner store added between two runs is seen by the second."""
    files = {"pkg/__init__.py": "", "pkg/hook.py": """\
        class Hook:
            def __init__(self):
                self.name = "h"

            def fire(self):
                return self.fn_ref()
        """}
    root = tree(tmp_path, files)
    assert findings(root)[("Hook", "fn_ref", "PK003")] == Severity.ERROR
    (root / "pkg" / "registry.py").write_text(textwrap.dedent("""\
        from .hook import Hook


        def register(hook: Hook, fn):
            hook.fn_ref = fn
        """))
    assert findings(root)[("Hook", "fn_ref", "PK003")] == Severity.WARNING


def test_a_method_contract_left_out_by_one_subclass_is_a_warning_and_a_missing_data_attribute_stays_an_error(tmp_path):
    # celery's BaseBackend calls self._get_task_meta_for, which KeyValueStoreBackend defines and
    # DisabledBackend leaves out on purpose: a contract, not a hole in DisabledBackend's state.
    # The same shape with a data attribute a sibling assigns is the wrong-class bug: an error.
    root = tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """\
            class BaseBackend:
                def __init__(self, app):
                    self.app = app
                    if isinstance(self, BaseBackend):
                        self.ready = True
                def get(self, tid):
                    return self._get_task_meta_for(tid)
                def connect(self):
                    return self.session_token
        """,
        "pkg/kv.py": """\
            from .base import BaseBackend
            class KeyValueStoreBackend(BaseBackend):
                def __init__(self, app):
                    super().__init__(app)
                    self.session_token = "t"
                def _get_task_meta_for(self, tid):
                    return {}
        """,
        "pkg/disabled.py": """\
            from .base import BaseBackend
            class DisabledBackend(BaseBackend):
                def store(self):
                    pass
        """,
    })
    got = findings(root)
    assert got[("DisabledBackend", "_get_task_meta_for", "PK003")] == Severity.WARNING
    assert got[("DisabledBackend", "session_token", "PK003")] == Severity.ERROR


def test_a_read_under_a_kind_dispatch_is_a_warning_when_the_kinds_that_have_it_are_other_subclasses(tmp_path):
    # mlflow's Scorer._create_copy reads self._scorers under `if self.kind == ScorerKind.ENSEMBLE`,
    # and only the ensemble subclass has it. Without the dispatch test the read stays an error.
    root = tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """\
            import enum
            class Kind(enum.Enum):
                PLAIN = 1
                ENSEMBLE = 2
            class Scorer:
                kind = Kind.PLAIN
                def __init__(self, name):
                    self.name = name
                def copy(self):
                    if self.kind == Kind.ENSEMBLE:
                        return list(self._scorers)
                    return [self.name]
                def describe(self):
                    if self.kind != Kind.ENSEMBLE:
                        return self.name
                    return self._ensemble_name
                def broken(self):
                    return self._weights
        """,
        "pkg/ens.py": """\
            from .base import Scorer, Kind
            class Ensemble(Scorer):
                kind = Kind.ENSEMBLE
                def __init__(self, name, scorers):
                    super().__init__(name)
                    self._scorers = scorers
                    self._ensemble_name = name
                    self._weights = [1.0]
        """,
        "pkg/judge.py": """\
            from .base import Scorer
            class Judge(Scorer):
                pass
        """,
    })
    got = findings(root)
    assert got[("Judge", "_scorers", "PK003")] == Severity.WARNING
    assert got[("Judge", "_ensemble_name", "PK003")] == Severity.WARNING
    assert got[("Judge", "_weights", "PK003")] == Severity.ERROR  # no dispatch around it


def test_a_match_on_the_kind_is_a_dispatch_too(tmp_path):
    # ansible's PublicKeyMsg.public_key: `match type: case KeyAlgo.RSA: ... self.e`, where only the
    # RSA message class has e (dataclass fields of the sibling classes)
    root = tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/msg.py": """\
            import dataclasses, enum
            class Algo(enum.Enum):
                RSA = 1
                EC256 = 2
                EC384 = 3
                DSA = 4
            @dataclasses.dataclass
            class Msg:
                type: Algo
                def key(self):
                    type = self.type
                    match type:
                        case Algo.RSA:
                            return (self.e, self.n)
                        case Algo.EC256 | Algo.EC384:
                            return self.q
                        case _:
                            return self.y
            @dataclasses.dataclass
            class RSAMsg(Msg):
                e: int
                n: int
            @dataclasses.dataclass
            class ECMsg(Msg):
                q: bytes
            @dataclasses.dataclass
            class DSAMsg(Msg):
                p: int
        """,
    })
    got = {(attr, code): sev for (_cls, attr, code), sev in findings(root).items()}  # one finding per read line
    assert got[("e", "PK003")] == got[("n", "PK003")] == got[("q", "PK003")] == Severity.WARNING
    assert got[("y", "PK003")] == Severity.ERROR  # the default case: no dispatch, and no class has y


def test_a_base_helper_reached_only_through_overridden_entry_points_is_a_warning(tmp_path):
    # gluonts' TransformedISQF(TransformedDistribution, ISQF) never runs ISQF.__init__; ISQF's helpers
    # (quantile_internal -> quantile_tail) are called only from ISQF.quantile, which
    # TransformedDistribution overrides. ISQF.args is not overridden: its read stays an error.
    root = tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/dist.py": """\
            class TransformedDistribution:
                def __init__(self, base):
                    self.base = base
                def quantile(self, a):
                    return self.base.quantile(a)
            class ISQF:
                def __init__(self, knots):
                    self.knots = knots
                    self.tail = 2
                def quantile(self, a):
                    return self.quantile_internal(a)
                def quantile_internal(self, a):
                    return self.quantile_tail(a) + self.knots
                def quantile_tail(self, a):
                    return a * self.tail
                @property
                def args(self):
                    return [self.knots]
            class TransformedISQF(TransformedDistribution, ISQF):
                def __init__(self, base):
                    super().__init__(base)
        """,
    })
    from patchkit.analysis.checker import Settings
    reps = analyse_paths([root / "pkg"], use_cache=False, settings=Settings())
    by_line = {(f.attr, f.line): f.severity for r in reps for f in r.findings if f.code == "PK003"}
    assert by_line[("tail", 15)] == Severity.WARNING  # in quantile_tail
    assert by_line[("knots", 13)] == Severity.WARNING  # in quantile_internal
    assert by_line[("knots", 18)] == Severity.ERROR  # ISQF.args is TransformedISQF's own entry point


def test_an_annotation_only_attribute_of_a_base_its_subclasses_set_is_a_contract(tmp_path):
    # jedi's _BaseTreeInstance declares `_arguments: Any`; TreeInstance sets it in __init__ and
    # AnonymousInstance as a class attribute. A subclass that sets it nowhere stays an error.
    root = tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/inst.py": """\
            from typing import Any
            class _BaseTreeInstance:
                _arguments: Any
                def __init__(self, value):
                    self.value = value
                def call(self):
                    return self.value, self._arguments
            class TreeInstance(_BaseTreeInstance):
                def __init__(self, value, arguments):
                    super().__init__(value)
                    self._arguments = arguments
            class AnonymousInstance(_BaseTreeInstance):
                _arguments = None
        """,
        "pkg/broken.py": """\
            from .inst import _BaseTreeInstance
            class Forgetful(_BaseTreeInstance):
                def run(self):
                    return self._arguments
        """,
    })
    got = findings(root)
    assert ("_BaseTreeInstance", "_arguments", "PK003") not in got
    assert got[("Forgetful", "_arguments", "PK003")] == Severity.ERROR


def test_a_function_of_the_tree_that_always_raises_ends_the_path(tmp_path):
    # astropy's Char.__init__: the branch that skips the assignment calls vo_raise (imported from
    # another module of the tree), which always raises. A helper that may return stays a hole.
    root = tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/exc.py": """\
            def vo_raise(exc, args=(), config=None):
                if config is None:
                    config = {}
                raise exc(*args)
            def vo_warn(exc, args=()):
                if args:
                    raise exc(*args)
                return None
        """,
        "pkg/fields.py": """\
            from .exc import vo_raise, vo_warn
            class Char:
                def __init__(self, size):
                    if size is None:
                        vo_raise(ValueError, ("no size",))
                    else:
                        self.arraysize = size
                def output(self):
                    return self.arraysize
            class Unicode:
                def __init__(self, size):
                    if size is None:
                        vo_warn(ValueError, ("no size",))
                    else:
                        self.arraysize = size
                def output(self):
                    return self.arraysize
        """,
    })
    got = findings(root)
    assert ("Char", "arraysize", "PK001") not in got
    assert ("Unicode", "arraysize", "PK001") in got


ORANGE = """
class Model:
    def __init__(self, domain=None, original_domain=None):
        self.domain = domain
        self.original_domain = original_domain or domain
        self.used_vals = None

    def predict_storage(self, data):
        return data.transform(self.domain)


class SklModel(Model):
    def __init__(self, skl_model):
        self.skl_model = skl_model


class Learner:
    def _fit_model(self, data):
        return SklModel(self.fit(data))

    def __call__(self, data):
        model = self._fit_model(data)
%s        return model
"""


def test_a_local_given_three_of_the_class_attributes_is_an_instance_an_owner_injects_into(tmp_path):
    """Orange's Learner.__call__ sets domain, original_domain and used_vals on the model it got from
    ``self._fit_model(data)``: no annotation says what ``model`` is, but three of Model's attributes
    on one object do (a warning naming the store). One attribute alone is no evidence: an error."""
    three = "        model.used_vals = [0, 1]\n        model.domain = data.domain\n        model.original_domain = data.domain\n"
    got = findings(tree(tmp_path / "three", {"pkg/base.py": ORANGE % three}))
    assert got[("SklModel", "domain", "PK003")] == Severity.WARNING
    one = "        model.domain = data.domain\n"
    got = findings(tree(tmp_path / "one", {"pkg/base.py": ORANGE % one}))
    assert got[("SklModel", "domain", "PK003")] == Severity.ERROR
    # a local built by another named class is that class, however alike its attributes (statsmodels'
    # ``results = MICEResults(...)``)
    other = (ORANGE % "").replace("        model = self._fit_model(data)\n",
                                  "        model = OtherModel(data)\n" + three) + """
class OtherModel:
    def __init__(self, data):
        self.data = data
"""
    got = findings(tree(tmp_path / "other", {"pkg/base.py": other}))
    assert got[("SklModel", "domain", "PK003")] == Severity.ERROR
    # the method's own instance is never the evidence: a sibling class storing the same names on self
    sibling = ORANGE % "" + """
class Other:
    def __init__(self, d):
        self.domain = d
        self.original_domain = d
        self.used_vals = None
"""
    got = findings(tree(tmp_path / "sibling", {"pkg/base.py": sibling}))
    assert got[("SklModel", "domain", "PK003")] == Severity.ERROR


SINGLETON = """\
class CythonBase:
    def is_cython_function(self, frame):
        return frame in self.cy.functions


class CythonInfo(CythonBase):
    def __init__(self):
        self.frames = []


%s
"""


def test_a_module_level_instance_given_the_attribute_is_an_owner_injection(tmp_path):
    """Cython's debugger builds its singleton at module level and hands it ``cy`` at once
    (``cython_info = CythonInfo(); cython_info.cy = cy``): the same store in a function was already
    an injection (a warning naming it); at module level it was an error. A module-level object of
    another class given ``cy``, or the instance given another name, is no evidence."""
    got = findings(tree(tmp_path / "same", {"pkg/base.py": SINGLETON % "info = CythonInfo()\ninfo.cy = object()"}))
    assert got[("CythonInfo", "cy", "PK003")] == Severity.WARNING
    under_if = "if True:\n    info = CythonInfo()\n    info.cy = object()"
    got = findings(tree(tmp_path / "if", {"pkg/base.py": SINGLETON % under_if}))
    assert got[("CythonInfo", "cy", "PK003")] == Severity.WARNING
    for name, tail in (("other", "class Other:\n    pass\n\n\nother = Other()\nother.cy = object()"),
                       ("attr", "info = CythonInfo()\ninfo.cz = object()")):
        got = findings(tree(tmp_path / name, {"pkg/base.py": SINGLETON % tail}))
        assert got[("CythonInfo", "cy", "PK003")] == Severity.ERROR, name


ENV_TRANSFORM = """\
class EnvTransform:
    def __call__(self, root):
        self.env_stack = [root]
        return self.visit(root)

    def visit(self, node):
        return node

    def current_env(self):
        return self.env_stack[-1]


class Analyse(EnvTransform):
    def __call__(self, root):
        self.seen = []
%s

    def visit_Name(self, node):
        return self.current_env()
"""


def test_an_override_that_chains_through_a_local_bound_to_super_keeps_the_base_store(tmp_path):
    """Cython's AnalyseDeclarationsTransform.__call__ ends with ``super_class = super()`` ...
    ``return super_class.__call__(root)``: the base's ``__call__`` (which sets env_stack) still runs.
    The same override calling another method through the alias, or chaining nowhere, is an error."""
    for name, body, want in (
            ("alias", "        super_class = super()\n        return super_class.__call__(root)", None),
            ("named", "        sup = super(Analyse, self)\n        return sup.__call__(root)", None),
            ("direct", "        return super().__call__(root)", None),
            ("other-method", "        super_class = super()\n        return super_class.visit(root)", Severity.ERROR),
            ("no-chain", "        return self.visit(root)", Severity.ERROR)):
        got = findings(tree(tmp_path / name, {"pkg/a.py": ENV_TRANSFORM % body}))
        assert got.get(("Analyse", "env_stack", "PK003")) == want, (name, got)



def test_a_loop_over_the_class_own_empty_constant_never_runs(tmp_path):
    """Cython's Scope.__init__ declares ``self.scope_predefined_names``, ``[]`` on Scope:
    ComprehensionScope inherits the empty list, so its declare_var (which reads genexp_prefix)
    never runs during construction. The empty list grown in place anywhere, or a non-empty one, runs
    the loop (the source is the rule's own example, patchkit/analysis/rules/examples/pk002.py)."""
    from patchkit.analysis.rules.examples.pk002 import _CYTHON_SCOPES
    for name, value, tail in (("empty", "[]", ""), ("tuple", "()", "")):
        got = findings(tree(tmp_path / name, {"pkg/a.py": _CYTHON_SCOPES % value + tail}))
        assert ("ComprehensionScope", "genexp_prefix", "PK002") not in got, name
    for name, value, tail in (("grown", "[]", "\nScope.scope_predefined_names.append('__doc__')\n"),
                              ("non-empty", "['__doc__']", "")):
        got = findings(tree(tmp_path / name, {"pkg/a.py": _CYTHON_SCOPES % value + tail}))
        assert got[("ComprehensionScope", "genexp_prefix", "PK002")] == Severity.ERROR, name


BEHAVIOR = textwrap.dedent("""\
    class TouchRippleBehavior(object):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.ripple_rad = 10

        def ripple_show(self, touch):
            self.bind(size=self._ripple_set)
            return self.canvas, self.ripple_rad

        def _ripple_set(self, *a):
            pass
""")


def test_a_behavior_mixin_awaiting_its_host_is_info_until_the_tree_builds_it(tmp_path):
    """kivy's behaviors: a ``*Behavior`` class on ``object`` that calls ``self.bind`` (defined by no
    class of its MRO) is written for a host (a Widget) that supplies ``bind`` and ``canvas``."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/ripple.py": BEHAVIOR})
    assert ("TouchRippleBehavior", "canvas", "PK003") not in findings(root)
    shown = findings(root, show_info=True)
    assert shown[("TouchRippleBehavior", "canvas", "PK003")] == Severity.INFO
    assert shown[("TouchRippleBehavior", "bind", "PK003")] == Severity.INFO
    # built alone somewhere in the tree: it is used as a class of its own, and the reads are errors
    root = tree(tmp_path / "b", {"pkg/__init__.py": "", "pkg/ripple.py": BEHAVIOR + "\n\nRIPPLE = TouchRippleBehavior()\n"})
    assert findings(root)[("TouchRippleBehavior", "canvas", "PK003")] == Severity.ERROR
    # a single-base subclass built alone: the same
    root = tree(tmp_path / "c", {"pkg/__init__.py": "", "pkg/ripple.py": BEHAVIOR + """
class Ripple(TouchRippleBehavior):
    pass


RIPPLE = Ripple()
"""})
    got = findings(root)  # one finding for the shared read line, named after the class that holds it
    assert Severity.ERROR in {got.get((c, "canvas", "PK003")) for c in ("TouchRippleBehavior", "Ripple")}


def test_a_ripple_base_in_a_behaviors_module_is_the_same_contract_and_elsewhere_it_is_not(tmp_path):
    """kivymd's ``M3CommonRipple`` (the base of ``M3RectangularRippleBehavior``) is not named
    ``*Behavior``, but lives in ``kivymd/uix/behaviors/ripple_behavior.py``: the toolkit's module
    for mixins. Without a ``*Behavior`` subclass, in a module merely containing the letters
    (``misbehavior.py``), in a test module or in an ordinary module, it keeps its errors."""
    ripple = BEHAVIOR.replace("TouchRippleBehavior", "CommonRipple")
    sub = "\n\nclass RippleBehavior(CommonRipple):\n    pass\n"

    def got(rel, text, **kw):
        folder = rel.rpartition("/")[0]
        root = tree(tmp_path / rel.replace("/", "-").replace(".py", "") / str(len(text)),
                    {"pkg/__init__.py": "", folder + "/__init__.py": "", rel: text})
        return findings(root, **kw).get(("CommonRipple", "canvas", "PK003"))

    for rel in ("pkg/behaviors/ripple.py", "pkg/uix/ripple_behavior.py"):
        assert got(rel, ripple + sub) is None, rel
        assert got(rel, ripple + sub, show_info=True) == Severity.INFO, rel
        assert got(rel, ripple) == Severity.ERROR, rel  # no *Behavior subclass: not the convention
    for rel in ("pkg/sim/misbehavior.py", "pkg/uix/ripple.py", "pkg/uix/test_behavior.py"):
        assert got(rel, ripple + sub) in (Severity.ERROR, Severity.WARNING), rel


def test_a_behavior_that_calls_only_its_own_methods_keeps_its_errors(tmp_path):
    # no call the MRO cannot answer: nothing says a host supplies the names; and --strict never
    # relies on the convention
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/ripple.py": BEHAVIOR.replace("self.bind(", "self._ripple_set(")})
    assert findings(root)[("TouchRippleBehavior", "canvas", "PK003")] == Severity.ERROR
    root = tree(tmp_path / "s", {"pkg/__init__.py": "", "pkg/ripple.py": BEHAVIOR})
    from patchkit.analysis.checker import Settings
    strict = {(f.cls, f.attr): f.severity for r in analyse_paths([root / "pkg"], use_cache=False,
                                                                  settings=Settings(unknown_bases="strict"))
              for f in r.findings}
    assert strict[("TouchRippleBehavior", "canvas")] == Severity.ERROR
    # an attribute the class assigns on some path only is not the host's: it stays a finding
    root = tree(tmp_path / "p", {"pkg/__init__.py": "", "pkg/ripple.py": BEHAVIOR.replace(
        "self.ripple_rad = 10", "if kwargs:\n            self.ripple_rad = 10")})
    assert findings(root)[("TouchRippleBehavior", "ripple_rad", "PK001")] in (Severity.ERROR, Severity.WARNING)


def test_a_behavior_calling_through_a_bound_local(tmp_path):
    # kivy's CompoundSelectionBehavior: ``fbind = self.fbind`` then ``fbind("x", ...)``
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/sel.py": """\
        class SelectionBehavior(object):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                fbind = self.fbind
                fbind("touch", self.changed)

            def changed(self, *a):
                return self.children
        """})
    assert ("SelectionBehavior", "children", "PK003") not in findings(root)
    assert findings(root, show_info=True)[("SelectionBehavior", "children", "PK003")] == Severity.INFO


def test_a_parameter_that_a_call_hands_the_class_is_an_owner_injection_and_another_class_handed_stays_an_error(tmp_path):
    """ursina's ``Entity.add_script(self, class_instance)`` sets ``class_instance.entity = self``; the
    tree calls ``e.add_script(SmoothFollow(...))`` (directly, through a local, by keyword, through
    ``copy``): the script's reads of ``self.entity`` are set up by its owner. When the only calls hand
    other classes (or the store is on a parameter no call reaches), the read stays an error."""
    lib = """\
        class Entity:
            def __init__(self):
                self.scripts = []

            def add_script(self, class_instance):
                class_instance.entity = self
                self.scripts.append(class_instance)
                return class_instance


        def attach(owner, script=None):
            script.entity = owner
        """
    script = """\
        class {name}:
            def __init__(self, speed=8):
                self.speed = speed

            def update(self):
                self.entity.x += self.speed
        """
    demos = {
        "direct": "e.add_script(SmoothFollow(speed=4))",
        "local": "sf = SmoothFollow()\n    e.add_script(sf)",
        "keyword": "attach(e, script=SmoothFollow())",
        "copy": "e.add_script(copy(SmoothFollow()))",
    }
    for how, call in demos.items():
        root = tree(tmp_path / how, {
            "pkg/__init__.py": "", "pkg/entity.py": lib, "pkg/follow.py": script.format(name="SmoothFollow"),
            "pkg/demo.py": "from copy import copy\nfrom .entity import Entity, attach\nfrom .follow import SmoothFollow\n\n\n"
                           f"def demo():\n    e = Entity()\n    {call}\n",
        })
        assert findings(root)[("SmoothFollow", "entity", "PK003")] == Severity.WARNING, how
    for how, call in {"other class": "e.add_script(Limiter())", "no call": "e.scripts.append(SmoothFollow())",
                      "the instance slot": "Entity.add_script(SmoothFollow(), e)"}.items():
        root = tree(tmp_path / how.replace(" ", "-"), {
            "pkg/__init__.py": "", "pkg/entity.py": lib, "pkg/follow.py": script.format(name="SmoothFollow"),
            "pkg/limit.py": script.format(name="Limiter").replace("self.entity.x", "self.speed"),
            "pkg/demo.py": "from .entity import Entity\nfrom .follow import SmoothFollow\nfrom .limit import Limiter\n\n\n"
                           f"def demo():\n    e = Entity()\n    {call}\n",
        })
        assert findings(root)[("SmoothFollow", "entity", "PK003")] == Severity.ERROR, how


def test_a_base_a_package_serves_through_a_pep562_getattr_table_is_resolved(tmp_path):
    """vedo's ``vedo/visual/__init__.py`` serves ``ImageVisual`` lazily (a module ``__getattr__`` over
    a table naming ``"vedo.visual.runtime"``); ``class Image(vedo.visual.ImageVisual)`` has that class
    as its base. Resolved, the field bug through such a base is found (a subclass that skips the
    base's ``__init__``), and the base's read of what only its subclass sets is no longer an error."""
    init = """\
        _MAP = {"runtime": ["Worker"], "pkg.visual.helpers": ["Helper"]}


        def __getattr__(name):
            import importlib
            for mod, names in _MAP.items():
                if name in names:
                    return getattr(importlib.import_module(mod if "." in mod else f"{__name__}.{mod}"), name)
            raise AttributeError(name)
        """
    runtime = """\
        class Worker:
            def __init__(self):
                self.threshold = 4

            def step(self):
                return self.threshold + self.transform
        """
    sub = """\
        import pkg.visual


        class Eagle(pkg.visual.Worker):
            def __init__(self):
                {init}
                self.transform = 1
        """
    files = {"pkg/__init__.py": "", "pkg/visual/__init__.py": init, "pkg/visual/runtime.py": runtime,
             "pkg/visual/helpers.py": "class Helper:\n    pass\n"}
    skipped = findings(tree(tmp_path / "skipped", {**files, "pkg/eagle.py": sub.format(init="pass")}))
    assert skipped.get(("Eagle", "threshold", "PK003")) == Severity.ERROR
    chained = findings(tree(tmp_path / "chained", {**files, "pkg/eagle.py": sub.format(init="super().__init__()")}))
    assert not [k for k, v in chained.items() if v == Severity.ERROR]
    # a string that names no module of the tree, or a module without that class, resolves nothing
    other = files | {"pkg/visual/__init__.py": init.replace('"runtime"', '"elsewhere"')}
    assert findings(tree(tmp_path / "unresolved", {**other, "pkg/eagle.py": sub.format(init="pass")})) \
        .get(("Eagle", "threshold", "PK003")) is None



def test_call_site_evidence_maps_static_and_class_methods_and_refuses_look_alikes(tmp_path):
    """A review's cases for the handed-to rule: a staticmethod's first parameter is an argument, a
    classmethod's is the class; a set's ``add``, a nested function, a base-class instance handed
    over, and a parameter rebound before the store are no evidence (the read stays an error)."""
    script = """\
        class Script:
            def __init__(self):
                self.speed = 1


        class SmoothFollow(Script):
            def update(self):
                return self.entity
        """

    def severity(name, registry, call):
        root = tree(tmp_path / name, {"pkg/__init__.py": "", "pkg/follow.py": script, "pkg/reg.py": registry,
                                      "pkg/demo.py": "from .follow import SmoothFollow, Script\n"
                                                     "from .reg import Registry, Tree, outer\n\n\n"
                                                     f"def demo(owner):\n    {call}\n"})
        return findings(root)[("SmoothFollow", "entity", "PK003")]

    registry = """\
        class Registry:
            @staticmethod
            def attach(script, owner):
                script.entity = owner

            @classmethod
            def bind(cls, target, value):
                target.entity = value

            def wrap(self, s):
                s = Wrapper(s)
                s.entity = self


        class Wrapper:
            def __init__(self, s):
                self.s = s


        class Tree:
            def add(self, node):
                node.entity = self


        def outer():
            def helper(obj, v):
                obj.entity = v
            return helper
        """
    assert severity("static", registry, "Registry.attach(SmoothFollow(), owner)") == Severity.WARNING
    assert severity("classmethod", registry, "Registry.bind(owner, SmoothFollow())") == Severity.ERROR
    assert severity("classmethod-slot", registry, "Registry.bind(SmoothFollow(), owner)") == Severity.WARNING
    for name, call in {"set-add": "seen = set(); seen.add(SmoothFollow())",
                       "nested": "helper(SmoothFollow(), 1)",
                       "base-instance": "Registry.attach(Script(), owner)",
                       "rebound": "Registry().wrap(SmoothFollow())"}.items():
        assert severity(name, registry, call) == Severity.ERROR, name


def test_a_lazy_table_string_with_leading_dots_is_relative_like_an_import(tmp_path):
    """``"..runtime"`` in ``pkg/visual/__init__.py`` means ``pkg.runtime``: with no such module it
    resolves nothing (it once named ``pkg/visual/runtime.py`` through a doubled dot)."""
    init = 'MAP = {"..runtime": ["Worker"]}\n\n\ndef __getattr__(name):\n    raise AttributeError(name)\n'
    runtime = "class Worker:\n    def __init__(self):\n        self.t = 1\n\n    def step(self):\n        return self.t\n"
    sub = "import pkg.visual\n\n\nclass Eagle(pkg.visual.Worker):\n    def __init__(self):\n        pass\n"
    files = {"pkg/__init__.py": "", "pkg/visual/__init__.py": init, "pkg/eagle.py": sub}
    assert findings(tree(tmp_path / "a", {**files, "pkg/visual/runtime.py": runtime})).get(("Eagle", "t", "PK003")) is None
    assert findings(tree(tmp_path / "b", {**files, "pkg/runtime.py": runtime}))[("Eagle", "t", "PK003")] == Severity.ERROR
