"""Three false-positive families of set E (session 8, untuned: fairseq, sentence-transformers), each
with a case of the same shape that is a real bug and stays an error."""
from __future__ import annotations

from patchkit.ftypes import Severity
from tests.test_analysis_precision_rules import findings, tree


def test_a_cached_staticmethod_is_static_not_a_property(tmp_path):
    """``@staticmethod @lru_cache`` (fairseq's GuidedAttentionLoss._get_weight): its first
    parameter is a tensor, not the instance."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        from functools import lru_cache

        class Loss:
            def __init__(self, sigma):
                self.sigma = sigma

            @staticmethod
            @lru_cache(maxsize=8)
            def _get_weight(s_len, t_len, sigma):
                return s_len.device

            def bad(self):
                return self.missing
        """}))
    assert not any(a == "device" for _c, a, _k in got)
    assert got[("Loss", "missing", "PK003")] == Severity.ERROR


def test_a_factory_that_lets_its_base_build_the_instance_sets_attributes_after_construction(tmp_path):
    """``model = super().build_model(args); model.x = ...`` in the overriding classmethod: two-phase
    set-up by the factory, a warning; the same read with no factory store stays an error."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        class Base:
            def __init__(self, args):
                self.args = args

            @classmethod
            def build_model(cls, args):
                return cls(args)

        class Iter(Base):
            @classmethod
            def build_model(cls, args):
                model = super().build_model(args)
                model.train_step = getattr(args, "train_step", 4)
                return model

            def forward(self):
                return self.train_step + self.dae_ratio
        """}))
    assert got[("Iter", "train_step", "PK004")] == Severity.WARNING  # two-phase: set by the factory
    assert ("Iter", "train_step", "PK003") not in got
    assert got[("Iter", "dae_ratio", "PK003")] == Severity.ERROR


def test_post_init_of_a_dataclass_with_an_unreadable_base_may_read_that_base_s_fields(tmp_path):
    """A @dataclass subclass of a library dataclass (transformers' TrainingArguments, not in the
    tree): the generated __init__ sets the base's fields before __post_init__ reads them. A base of
    the tree gives no such excuse."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        from dataclasses import dataclass
        from transformers import TrainingArguments

        @dataclass
        class Args(TrainingArguments):
            prompts: str = ""

            def __post_init__(self):
                if self.warmup_steps == 0:
                    self.warmup_steps = 1

        @dataclass
        class Own:
            prompts: str = ""

        @dataclass
        class Args2(Own):
            def __post_init__(self):
                if self.warmup_steps == 0:
                    self.warmup_steps = 1
        """}))
    assert ("Args", "warmup_steps", "PK002") not in got
    assert got[("Args2", "warmup_steps", "PK002")] == Severity.ERROR


def test_an_annotated_class_body_has_annotations(tmp_path):
    """``tuple(self.__annotations__)`` on a class whose MRO has annotated class bodies (dask
    distributed's worker_state_machine); a class with no annotation anywhere has none."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        class Msg:
            op: str

            def __init__(self, op):
                self.op = op

            def keys(self):
                return tuple(self.__annotations__)

        class Plain:
            def __init__(self):
                self.op = 1

            def keys(self):
                return tuple(self.__annotations__)
        """}))
    assert ("Msg", "__annotations__", "PK003") not in got
    assert got[("Plain", "__annotations__", "PK003")] == Severity.ERROR


def test_fastcore_store_attr_assigns_the_callers_parameters(tmp_path):
    """fastai's classes run ``store_attr()`` (all parameters), ``store_attr('a,b')`` or
    ``store_attr(but='c')`` in ``__init__``; a name it does not store stays an error."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        from fastcore.basics import store_attr

        class Warp:
            def __init__(self, magnitude=0.2, p=0.5, draw=None, batch=False):
                store_attr()

            def __call__(self, x):
                return x * self.magnitude + self.p + (self.draw or 0) + self.batch

        class Named:
            def __init__(self, d, pin_memory, extra):
                store_attr('d,pin_memory')
                self.first = self.d

            def go(self):
                return self.pin_memory, self.extra

        class But:
            def __init__(self, a, b):
                store_attr(but='b')

            def go(self):
                return self.a + self.b
        """}))
    assert not any(c == "Warp" for c, _a, _k in got)
    assert not any(c == "Named" and a in ("d", "pin_memory", "first") for c, a, _k in got)
    assert got[("Named", "extra", "PK003")] == Severity.ERROR
    assert ("But", "a", "PK003") not in got and got[("But", "b", "PK003")] == Severity.ERROR


def test_pydantic_instance_state_comes_from_the_library(tmp_path):
    """``self.__pydantic_fields_set__`` in a validator of a pydantic settings class (prefect)."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        from pydantic_settings import BaseSettings

        class CloudSettings(BaseSettings):
            api_url: str = ""

            def post(self):
                return "api_url" in self.__pydantic_fields_set__, self.ui_url
        """}), show_info=True)
    assert ("CloudSettings", "__pydantic_fields_set__", "PK003") not in got
    assert ("CloudSettings", "ui_url", "PK003") in got


def test_a_factory_base_given_as_a_parameter_default_gets_the_type_dict(tmp_path):
    """django's ``formset_factory(form, formset=BaseFormSet, ...)`` builds
    ``type(name, (formset,), attrs)``: a read of an attribute in ``attrs`` (also during
    construction) is a warning; an attribute not in ``attrs`` stays an error."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        class BaseFormSet:
            def __init__(self, data=None):
                self.data = data
                self.total = self.extra + 1

            def forms(self):
                return self.form, self.missing

        def formset_factory(form, formset=BaseFormSet, extra=1):
            attrs = {"form": form, "extra": extra}
            return type(form.__name__ + "FormSet", (formset,), attrs)
        """}))
    assert got[("BaseFormSet", "form", "PK003")] == Severity.WARNING
    assert got[("BaseFormSet", "extra", "PK002")] == Severity.WARNING
    assert got[("BaseFormSet", "missing", "PK003")] == Severity.ERROR


def test_init_subclass_sets_class_attributes_of_every_subclass(tmp_path):
    """numba's ``ThreadLocalStack.__init_subclass__(cls, *, stack_name)`` sets ``cls.stack_name``:
    a subclass's construction may read it; a name it does not set stays an error."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        class ThreadLocalStack:
            def __init_subclass__(cls, *, stack_name, **kwargs):
                super().__init_subclass__(**kwargs)
                cls.stack_name = stack_name

            def __init__(self):
                self.key = self.stack_name + self.other

        class FlagsStack(ThreadLocalStack, stack_name="flags"):
            pass
        """}))
    # one finding per read: the subclass's share the base's line and are reported once, for the base
    assert got[("ThreadLocalStack", "stack_name", "PK002")] == Severity.WARNING  # a template for subclasses
    assert ("FlagsStack", "stack_name", "PK002") not in got
    assert got[("ThreadLocalStack", "other", "PK002")] == Severity.ERROR


def test_a_fallback_stand_in_is_not_the_base(tmp_path):
    """sktime: ``nn = _safe_import("torch.nn")`` then ``if nn is None: class nn: class Module: ...``;
    ``class WindFM(nn.Module)`` subclasses torch's Module (``self.apply``), not the stand-in. Also
    ``try: from lib import Base / except ImportError: class Base``. A class defined only under an
    if (no other binding) is still the base."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        from pkg.deps import _safe_import

        nn = _safe_import("torch.nn")
        if nn is None:
            class nn:
                class Module:
                    pass

        try:
            from lib import Base
        except ImportError:
            class Base:
                pass

        import sys
        if sys.version_info >= (3, 8):
            class Real:
                pass

        class WindFM(nn.Module):
            def __init__(self):
                super().__init__()
                self.apply(self.init)

            def init(self, m):
                return m

        class Uses(Base):
            def __init__(self):
                super().__init__()
                self.x = self.provided

        class Sub(Real):
            def __init__(self):
                self.x = self.missing
        """, "pkg/deps.py": "def _safe_import(name):\\n    return None\\n"}))
    assert not any(c in ("WindFM", "Uses") for c, _a, _k in got)
    assert got[("Sub", "missing", "PK002")] == Severity.ERROR


def test_a_template_base_whose_subclasses_have_an_unreadable_base(tmp_path):
    """sktime's ``_BaseKnnTimeSeriesEstimator.__init__`` calls ``self.set_tags(...)``; its hosts are
    ``class KNN(_BaseKnn, BaseClassifier)`` and ``BaseClassifier``'s library base (skbase, not in the
    tree) defines ``set_tags``. A class mixed into no host stays an error."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        from skbase.base import BaseObject

        class BaseClassifier(BaseObject):
            def fit(self, X):
                return self

        class _BaseKnn:
            def __init__(self, k=1):
                self.k = k
                self.set_tags(k=k)

        class KNN(_BaseKnn, BaseClassifier):
            pass

        class Alone:
            def __init__(self):
                self.k = 1
                self.set_tags(k=1)
        """}))
    assert got.get(("_BaseKnn", "set_tags", "PK002"), Severity.INFO) != Severity.ERROR  # a template base
    assert got[("Alone", "set_tags", "PK002")] == Severity.ERROR


def test_a_skipped_base_init_is_the_bug_even_when_the_base_resets_the_attribute_elsewhere(tmp_path):
    """Lightning's BaseFinetuning (recall corpus bug_01): ``__init__`` assigns ``_internal_state`` and
    ``on_load_checkpoint`` re-assigns it; a subclass in another module never runs the base's
    ``__init__``: an error (missing super().__init__()), not two-phase set-up. A subclass that
    assigns it in its own set-up method is not an error."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": """\
        class BaseFinetuning:
            def __init__(self):
                self._internal_state = {}

            def on_load_checkpoint(self, state):
                self._internal_state = dict(state)

            def state_dict(self):
                return self._internal_state
        """, "pkg/sub.py": """\
        from pkg.base import BaseFinetuning

        class Milestones(BaseFinetuning):
            def __init__(self, milestones):
                self.milestones = milestones

        class OwnSetup(BaseFinetuning):
            def __init__(self):
                self.ready = False

            def setup(self):
                self._internal_state = {}
        """}))
    assert got[("Milestones", "_internal_state", "PK003")] == Severity.ERROR
    assert not any(c == "OwnSetup" and sev == Severity.ERROR for (c, _a, _k), sev in got.items())


def test_descendants_of_a_wide_diamond_hierarchy_are_listed_once(tmp_path):
    """sqlglot's ``Expression`` has hundreds of subclasses reached through several paths: each
    descendant once (the walk compared whole classes and took minutes)."""
    from patchkit.analysis.checker import Analyzer, Settings
    from patchkit.analysis.project import Project
    lines = ["class Root:", "    def __init__(self):", "        self.a = 1", "class A(Root): pass", "class B(Root): pass"]
    lines += [f"class C{i}(A, B): pass" for i in range(60)]
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": "\n".join(lines) + "\n"})
    project = Project(root)
    mod = project.add_source("pkg/m.py", (root / "pkg/m.py").read_text())
    an = Analyzer(project, Settings())
    got = an._descendants(mod.classes["Root"])
    names = [c.qualname for c in got]
    assert sorted(names) == sorted(["A", "B"] + [f"C{i}" for i in range(60)])
    assert an._descendants(mod.classes["Root"]) is got  # memoised


def test_a_guard_stored_by_register_buffer_with_the_read_attribute(tmp_path):
    """botorch's qLogNEI: ``not hasattr(self, "_full_X_baseline") or self._X_baseline...``, and both
    buffers are registered in one block of ``_init_baseline``: the guard implies the read. A guard
    registered in a block without it does not."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """\
        import torch

        class Acq(torch.nn.Module):
            def __init__(self, X, pending=None):
                super().__init__()
                self.incremental = True
                self.set_X_pending(pending)
                self._init_baseline(X)

            def _init_baseline(self, X):
                self.register_buffer("_X_baseline", X)
                self.register_buffer("_full_X_baseline", X)

            def set_X_pending(self, X_pending=None):
                if not hasattr(self, "_full_X_baseline") or self._X_baseline.shape[-2] == 0:
                    return

        class Other(torch.nn.Module):
            def __init__(self, X):
                super().__init__()
                self.check()
                self.register_buffer("_full", X)
                self.register_buffer("_base", X)

            def reset(self):
                self.register_buffer("_full", None)

            def check(self):
                if hasattr(self, "_full") and self._base is not None:
                    return
        """}))
    assert ("Acq", "_X_baseline", "PK002") not in got
    assert got.get(("Other", "_base", "PK002")) is not None
