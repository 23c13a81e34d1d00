"""Seeded random weights for smoke servers, instead of SGLang's near-constant dummy weights.

SGLang's ``--load-format dummy`` fills every weight with uniform(-1e-3, 1e-3) from the same seed, so
attention is almost uniform and the top-2 logit margins are about 1e-5: a model whose tokens do not
depend on attention cannot catch an attention bug (on an H200 a mutant that drops a disabled step's
own token from attention passed every smoke stage). With ``PATCHKIT_SMOKE_WEIGHTS=random[:STD]``,
``sglang.srt.model_loader.weight_utils.initialize_dummy_weights`` is replaced when that module is
imported: every floating tensor gets uniform weights of standard deviation STD (0.02, the usual
initialiser scale) seeded by its own name (the same name gives the same values in every server, so
the patched server and the reference agree), and norm weights are 1."""
from __future__ import annotations

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


def install(module, std: float) -> None:
    """Called once ``TARGET`` is imported."""
    module.initialize_dummy_weights = make_init(std)
