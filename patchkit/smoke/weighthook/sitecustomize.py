"""Seeded random weights for smoke servers, instead of SGLang's near-constant dummy weights.

SGLang's ``--load-format dummy`` fills every weight with uniform(-1e-3, 1e-3) from the same seed, so
attention is almost uniform and the top-2 logit margins are about 1e-5: a model whose tokens do not
depend on attention cannot catch an attention bug (on an H200 a mutant that drops a disabled step's
own token from attention passed every smoke stage). With ``PATCHKIT_SMOKE_WEIGHTS=random[:STD]`` on
the server's environment and this folder first on its ``PYTHONPATH``, this hook wraps
``sglang.srt.model_loader.weight_utils.initialize_dummy_weights`` when that module is imported: every
floating tensor gets uniform weights of standard deviation STD (0.02, the usual initialiser scale)
seeded by its own name (the same name gives the same values in every server, so the patched server and
the reference agree), and norm weights are 1. The server under test is not changed otherwise.

Any other ``sitecustomize`` further down the path still runs."""
from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
import zlib

TARGET = "sglang.srt.model_loader.weight_utils"
ENV = "PATCHKIT_SMOKE_WEIGHTS"


def parse(value: str):
    """'random' or 'random:STD' -> STD; anything else (dummy, empty) -> None."""
    kind, _, std = (value or "").strip().partition(":")
    if kind != "random":
        return None
    return float(std) if std else 0.02


def is_norm(name: str) -> bool:
    last = name.rsplit(".", 2)
    return name.endswith(".weight") and "norm" in (last[-2] if len(last) >= 2 else name)


def make_init(std: float):
    bound = std * 3 ** 0.5  # uniform(-b, b) has standard deviation b / sqrt(3)

    def initialize_dummy_weights(model, low=None, high=None, seed: int = 1234) -> None:
        import torch  # type: ignore[import-not-found]
        for name, param in model.state_dict().items():
            if not torch.is_floating_point(param):
                continue
            if is_norm(name):
                param.fill_(1.0)
                continue
            g = torch.Generator(device=param.device)
            g.manual_seed((seed * 1_000_003 + zlib.crc32(name.encode())) % (2 ** 63))
            if torch.finfo(param.dtype).bits < 16:
                tmp = param.data.to(torch.float16).uniform_(-bound, bound, generator=g)
                param.data.copy_(tmp.to(param.dtype))
            else:
                param.uniform_(-bound, bound, generator=g)
    initialize_dummy_weights.patchkit_std = std  # type: ignore[attr-defined]
    return initialize_dummy_weights


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, std: float):
        self.std = std

    def find_spec(self, fullname, path, target=None):
        if fullname != TARGET:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        inner, std = spec.loader, self.std

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return inner.create_module(spec)

            def exec_module(self, module):
                inner.exec_module(module)
                module.initialize_dummy_weights = make_init(std)
        spec.loader = Loader()
        return spec


def _chain() -> None:
    """Run the next sitecustomize on the path, as if this one were not there."""
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if os.path.abspath(entry or ".") == here:
            continue
        candidate = os.path.join(entry or ".", "sitecustomize.py")
        if os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_patchkit_chained_sitecustomize", candidate)
            if spec and spec.loader:
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
            return


_std = parse(os.environ.get(ENV, ""))
if _std is not None:
    sys.meta_path.insert(0, _Finder(_std))
_chain()
