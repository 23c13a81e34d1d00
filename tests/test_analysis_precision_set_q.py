"""Rules from set Q's false positives
(analyzer-precision-fresh19.md in bench/results/analyzer-precision-sheets.tar.xz, seed 46,
measured untuned first), each next to a case of the same shape that stays an error.

- explicit-super-skip: ``super(nn.Module, self).__init__(key)`` starts after a library class of the
  MRO (ms-swift's ``AdapterModule`` runs ``ActivationMixin.__init__`` that way);
- partialmethod-init: ``__init__ = partialmethod(Base.__init__, flag=True)`` runs Base's initialiser
  (modelscope's unifold ``TriangleMultiplicationOutgoing``);
- predicate-hasattr-guard: ``if self.supports_x():`` where the method only returns
  ``hasattr(self, "_x")`` guards the read as the ``hasattr`` itself would (igraph's ``IDLEShell``);
- inherited-unreachable, stand-ins: a class named ``Dummy*``/``Fake*``/``Mock*``/``Stub*`` that skips
  its base's set-up warns instead (ms-swift's ``DummyDPOTrainer``);
- non-torch-nn-module: only torch's ``nn.Module`` has torch's registries (``mlx.nn.Module`` is a dict);
- always-false-guard: a local bound once to None guards dead code (modelscope's ``MaskDINODecoder``);
- context-enter-assigns: ``__exit__`` reads what ``__enter__`` assigned (arcade's framebuffers);
- inherited-unreachable, modules: an inherited ``forward`` that the module's own ``__call__`` never
  dispatches to (torchvision's video transforms).
The MRO fix behind super-skips-initless-base (xinference) is property-tested in test_analysis_mro.py.
"""
from __future__ import annotations

import pytest

from test_analysis_precision_rules import findings, tree

ADAPTER = """\
    import torch.nn as nn


    class ActivationMixin:
        def __init__(self, module_key):
            self.module_key = module_key
            self._thread_inf = {{}}

        def is_activated(self):
            return self._thread_inf.get(self.module_key, True)


    class AdapterModule(nn.Module, ActivationMixin):
        def __init__(self, dim, module_key):
            super(AdapterModule, self).__init__()
            super({start}, self).__init__({args})
            self.dim = dim

        def forward(self, x):
            return x if self.is_activated() else None
    """


@pytest.mark.parametrize("start, args, missing", [
    ("nn.Module", "module_key", False),        # the next class after nn.Module: ActivationMixin
    ("ActivationMixin", "", True),             # after ActivationMixin: object, which sets nothing
])
def test_super_named_after_a_library_class_runs_the_next_initialiser(tmp_path, start, args, missing):
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/adapter.py": ADAPTER.format(start=start, args=args)}))
    assert (("AdapterModule", "_thread_inf", "PK003") in got) == missing


TRIANGLE = """\
    from functools import partialmethod


    class TriangleMultiplication:
        def __init__(self, d_pair, outgoing=True):
            self.d_pair = d_pair
            self.outgoing = outgoing

        def forward(self, z):
            return z if self.outgoing else self.d_pair


    class TriangleMultiplicationOutgoing(TriangleMultiplication):
        __init__ = {init}
    """


@pytest.mark.parametrize("init, missing", [
    ("partialmethod(TriangleMultiplication.__init__, outgoing=True)", False),
    ("lambda self, d_pair: None", True),   # a replacement that runs nothing of the base's
])
def test_partialmethod_of_the_base_initialiser_runs_it(tmp_path, init, missing):
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/tri.py": TRIANGLE.format(init=init)}))
    assert (("TriangleMultiplicationOutgoing", "outgoing", "PK003") in got) == missing


SHELL = """\
    class Shell:
        def __init__(self, progress=False):
            if progress:
                self._progress_handler = print

        def supports_progress_bar(self):
            \"\"\"Whether the shell has a progress bar.\"\"\"
            return {predicate}

        def get_progress_handler(self):
            if self.supports_progress_bar():
                return self._progress_handler
            return None
    """


@pytest.mark.parametrize("predicate, missing", [
    ('hasattr(self, "_progress_handler")', False),
    ('hasattr(self, "_other")', True),     # guards another attribute: the read stays judged
    ("True", True),
])
def test_a_method_returning_a_hasattr_guards_like_the_hasattr(tmp_path, predicate, missing):
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/shell.py": SHELL.format(predicate=predicate)}))
    assert (("Shell", "_progress_handler", "PK001") in got) == missing


STUB = {
    "pkg/__init__.py": "",
    "pkg/dpo.py": """\
        class DPOTrainer:
            def __init__(self, model, args):
                self.model = model
                self.beta = args.beta
                self.template = args.template

            def dpo_loss(self, chosen, rejected):
                return self.beta * (chosen - rejected)

            def concatenated_forward(self, batch):
                return self.template.encode(batch)
        """,
    "pkg/megatron.py": """\
        from pkg.dpo import DPOTrainer


        class {name}(DPOTrainer):
            # reuses dpo_loss only
            def __init__(self, args):
                self.beta = args.beta

            def loss(self, a, b):
                return self.dpo_loss(a, b)
        """,
}


@pytest.mark.parametrize("name, severity", [("DummyDPOTrainer", "warning"), ("MegatronDPOTrainer", "error")])
def test_a_class_named_as_a_stand_in_warns_on_what_it_skips(tmp_path, name, severity):
    from patchkit.ftypes import Severity
    files = dict(STUB, **{"pkg/megatron.py": STUB["pkg/megatron.py"].format(name=name)})
    got = findings(tree(tmp_path, files))
    assert got[(name, "template", "PK003")] == Severity(severity)


@pytest.mark.parametrize("name, kind", [
    ("torch.nn.Module", "module"), ("torch.nn.modules.module.Module", "module"), ("nn.Module", "module"),
    ("Module", "module"), ("mlx.nn.Module", "unknown"), ("equinox.nn.Module", "unknown"),
])
def test_only_torch_s_module_has_torch_s_registries(name, kind):
    """xinference's vendored mlx models subclass ``mlx.nn.Module`` (a dict storing any attribute):
    no PK006 for them."""
    from patchkit.analysis.library import classify_external
    assert classify_external(name).kind == kind


DECODER = """\
    class MaskDINODecoder:
        def __init__(self, hidden_dim):
            self.hidden_dim = hidden_dim

        def forward(self, x, targets=None):
            mask_dict = None
            {rebind}
            out = x * self.hidden_dim
            if mask_dict is not None:
                out = self.dn_post_process(out, mask_dict)
            return out
    """


@pytest.mark.parametrize("rebind, missing", [
    ("pass", False),                                   # the guard is always false: dead code
    ("if targets: mask_dict = {}", True),              # rebound on some path: the read is live
])
def test_a_guard_on_a_local_that_stays_none_is_dead(tmp_path, rebind, missing):
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/dec.py": DECODER.format(rebind=rebind)}))
    assert (("MaskDINODecoder", "dn_post_process", "PK003") in got) == missing


FRAMEBUFFER = """\
    class Framebuffer:
        def __init__(self, ctx):
            self._ctx = ctx
            self._prev_fbo = None

        def __enter__(self):
            self._prev_fbo = self._ctx.active_framebuffer
            return self

        def __exit__(self, *exc):
            self._prev_fbo.use()

        def restore(self):
            self._prev_fbo.use()


    class DefaultFrameBuffer(Framebuffer):
        def __init__(self, ctx):
            self._ctx = ctx
    """


def test_exit_reads_what_enter_assigned(tmp_path):
    """arcade's default framebuffer skips ``Framebuffer.__init__``: ``__exit__`` only runs after
    ``__enter__`` stored ``_prev_fbo``; the same read in an ordinary method stays an error."""
    from patchkit.analysis.runner import analyse_paths
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/fb.py": FRAMEBUFFER})
    got = [(f.cls, f.attr, f.line) for r in analyse_paths([root / "pkg"], use_cache=False)
           for f in r.findings if f.attr == "_prev_fbo"]
    assert got == [("DefaultFrameBuffer", "_prev_fbo", 14)]


CROP = """\
    import torch


    class RandomCrop(torch.nn.Module):
        def __init__(self, size, padding=None):
            super().__init__()
            self.size = size
            self.padding = padding

        def forward(self, img):
            return img if self.padding is None else img[self.padding:]


    class RandomCropVideo(RandomCrop):
        def __init__(self, size):
            self.size = size

        def __call__(self, clip):
            {body}
    """


@pytest.mark.parametrize("body, missing", [
    ("return clip[: self.size]", False),              # its own __call__: RandomCrop.forward never runs
    ("return self.forward(clip)[: self.size]", True),  # dispatches to the inherited forward
])
def test_an_inherited_forward_the_module_s_own_call_bypasses(tmp_path, body, missing):
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/crop.py": CROP.format(body=body)}))
    assert (("RandomCropVideo", "padding", "PK003") in got) == missing


TRAINER = """\
    class DefaultTrainer:
        def __init__(self, trainer):
            self._trainer = trainer

        def test_and_save_results(self):
            return self.model, self.{other}


    for _attr in ["model", "data_loader", "optimizer"]:
        setattr(DefaultTrainer, _attr, property(lambda self, x=_attr: getattr(self._trainer, x)))
    """


@pytest.mark.parametrize("other, missing", [("optimizer", False), ("scheduler", True)])
def test_a_module_level_loop_of_setattr_over_literal_names_sets_class_attributes(tmp_path, other, missing):
    """detectron2's ``DefaultTrainer`` (vendored by xinference) gets ``model``, ``data_loader`` and
    ``optimizer`` as properties from a loop after the class; a name not in the list stays missing."""
    got = findings(tree(tmp_path, {"pkg/__init__.py": "", "pkg/defaults.py": TRAINER.format(other=other)}))
    assert ("DefaultTrainer", "model", "PK003") not in got
    assert (("DefaultTrainer", other, "PK003") in got) == missing
