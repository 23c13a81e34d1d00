"""The built-in tiny model: a small Llama target, a one-layer EAGLE-3 draft and a one-layer EAGLE
draft (configs only; the server loads them with ``--load-format dummy``). Our own fixtures, written
on demand. STANDALONE drafts with the target itself.

SGLang's dummy weights are nearly constant (uniform +-1e-3, one seed for every tensor), which makes
attention almost uniform, so smoke servers get seeded random weights at a real initialiser scale
instead (``serverhooks/_pk_weights.py``; ``PATCHKIT_SMOKE_WEIGHTS=dummy`` keeps SGLang's). On H200s
this is what let the resume stage catch the one-token-off-by-one mutant (bench/results/smoke2/)."""
from __future__ import annotations

import json
from pathlib import Path

TARGET = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024,
    "intermediate_size": 2816, "num_attention_heads": 16, "num_key_value_heads": 8,
    "num_hidden_layers": 8, "vocab_size": 32000, "max_position_embeddings": 4096,
    "torch_dtype": "bfloat16", "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu",
    "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": False,
}
DRAFT = {**TARGET, "architectures": ["LlamaForCausalLMEagle3"], "num_hidden_layers": 1,
         "draft_vocab_size": 32000, "target_hidden_size": 1024}
EAGLE_DRAFT = {**TARGET, "architectures": ["LlamaForCausalLMEagle"], "num_hidden_layers": 1}


def write(folder: Path) -> tuple[Path, Path]:
    """Write target/ and draft/ (EAGLE-3) config folders under ``folder``; returns their paths."""
    t, d, _e = write_all(folder)
    return t, d


def write_all(folder: Path) -> tuple[Path, Path, Path]:
    """Write target/, draft/ (EAGLE-3) and eagle-draft/ (EAGLE) under ``folder``; returns their paths.
    The target folder also gets a byte-level tokenizer (``tinytok``), used when a server runs
    without ``--skip-tokenizer-init``."""
    from . import tinytok
    t, d, e = folder / "target", folder / "draft", folder / "eagle-draft"
    for path, cfg in ((t, TARGET), (d, DRAFT), (e, EAGLE_DRAFT)):
        path.mkdir(parents=True, exist_ok=True)
        (path / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    tinytok.write(t, TARGET["vocab_size"])
    return t, d, e


#: flags every server of the tiny model needs, speculative or not (see shared/gpu/README.md)
TINY_BASE = ["--load-format", "dummy", "--skip-tokenizer-init", "--attention-backend", "triton",
             "--sampling-backend", "pytorch", "--grammar-backend", "none"]

#: the same with the tiny model's tokenizer and a grammar backend: text stop strings, regex and
#: JSON-schema requests run (compact JSON, so a random-weight model finishes a document in a few tokens)
TINY_TEXT_BASE = ["--load-format", "dummy", "--attention-backend", "triton", "--sampling-backend", "pytorch",
                  "--grammar-backend", "xgrammar", "--constrained-json-disable-any-whitespace"]


def base_args(grammar_skip: str) -> list[str]:
    """The tiny model's base flags: with its tokenizer and a grammar backend when ``grammar_skip`` is
    "" (the server's Python has one, ``textcaps.grammar_missing``), else without a tokenizer."""
    return list(TINY_TEXT_BASE if not grammar_skip else TINY_BASE)


#: flags the known-good tiny launch needs (one EAGLE-3 configuration, sign-off 1.x)
TINY_ARGS = TINY_BASE + ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
                         "--speculative-num-draft-tokens", "4", "--mem-fraction-static", "0.5"]


def tiny_args(spec, grammar_skip: str = "-") -> list[str]:
    """The tiny launch for a patch's smoke spec: the base flags (``base_args``), the spec's
    speculative flags, and a memory fraction that leaves room for a second server."""
    return base_args(grammar_skip) + list(spec.spec_args) + ["--mem-fraction-static", "0.5"]
