"""Built-in full-size model shapes for ``patchkit smoke --model-config NAME``: a target config and a
one-layer EAGLE-3 draft config (``LlamaForCausalLMEagle3``, the target's hidden size), read from
``patchkit/smoke/models/NAME.json`` and written the way ``tiny.py`` writes the tiny model: configs
only, no weights and no tokenizer (the server runs with ``--load-format dummy`` and
``--skip-tokenizer-init``; the stages send token ids). ``--layers N`` keeps the shape of every layer
and drops layers, so a 70B shape fits one GPU; the record says how many layers ran.

A run with these configs exercises the code paths, memory pressure, CUDA-graph sizes and collectives
of the real model; its outputs are noise. The record's config says ``weights: "dummy"`` and
``model_shape`` so nobody takes it for a quality check. Never prints."""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from ..ftypes import UsageError

DATA = Path(__file__).resolve().parent / "models"

#: launch flags every full-size server needs (as the tiny model's, see tiny.TINY_BASE), and a
#: memory fraction that leaves the CUDA graphs room beside a 70B shape's weights
FULLSIZE_BASE = ["--load-format", "dummy", "--skip-tokenizer-init", "--attention-backend", "triton",
                 "--sampling-backend", "pytorch", "--grammar-backend", "none"]
MEM_FRACTION = "0.85"

#: what the record says about such a run (the gate prints it)
WEIGHTS = "dummy"
NOTE = "dummy weights, full-size shape"


def names() -> tuple[str, ...]:
    """The built-in model configs, sorted."""
    return tuple(sorted(p.stem for p in DATA.glob("*.json")))


@dataclass(frozen=True)
class ModelShape:
    name: str
    description: str
    #: HF config.json of the target and of the EAGLE-3 draft
    target: dict
    draft: dict
    #: the published parameter count of the real model (tests compare ``params(target)`` with it)
    published_params: float

    @property
    def full_layers(self) -> int:
        return int(_load(self.name)["target"]["num_hidden_layers"])

    @property
    def layers(self) -> int:
        return int(self.target["num_hidden_layers"])


def _load(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def shape(name: str, layers: Optional[int] = None) -> ModelShape:
    """The built-in shape ``name`` (with ``layers`` decoder layers when given); UsageError naming the
    bad name and the nearest one, or the allowed layer range."""
    known = names()
    if name not in known:
        near = difflib.get_close_matches(name, known, n=1)
        raise UsageError(f"--model-config {name}: no such built-in model config"
                         + (f"; nearest: '{near[0]}'" if near else "") + f" (built-in: {', '.join(known)})")
    doc = _load(name)
    s = ModelShape(name, doc["description"], dict(doc["target"]), dict(doc["draft"]), float(doc["published_params"]))
    if layers is None:
        return s
    full = s.layers
    if isinstance(layers, bool) or not isinstance(layers, int) or not 1 <= layers <= full:
        raise UsageError(f"--layers {layers}: must be between 1 and {full} ({name} has {full} layers)")
    target = {**s.target, "num_hidden_layers": layers}
    if "max_window_layers" in target:
        target["max_window_layers"] = min(int(target["max_window_layers"]), layers)
    return replace(s, target=target)


def write(folder: Path, s: ModelShape) -> tuple[Path, Path]:
    """Write ``target/config.json`` and ``draft/config.json`` of ``s`` under ``folder``; returns the
    two folders."""
    t, d = Path(folder) / "target", Path(folder) / "draft"
    for path, cfg in ((t, s.target), (d, s.draft)):
        path.mkdir(parents=True, exist_ok=True)
        (path / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    return t, d


# ------------------------------------------------------------------ sizes
def _head_dim(cfg: dict) -> int:
    return int(cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"])


def _attention(cfg: dict, d_in: int) -> int:
    h, hd = cfg["hidden_size"], _head_dim(cfg)
    q, kv = cfg["num_attention_heads"] * hd, cfg["num_key_value_heads"] * hd
    n = d_in * (q + 2 * kv) + q * h
    if cfg.get("attention_bias"):
        n += q + 2 * kv
    if cfg.get("model_type") == "qwen3_moe":
        n += 2 * hd  # q_norm, k_norm
    return n


def _mlp(cfg: dict) -> int:
    h = cfg["hidden_size"]
    if cfg.get("num_experts"):
        return cfg["num_experts"] * 3 * h * cfg["moe_intermediate_size"] + h * cfg["num_experts"]
    return 3 * h * cfg["intermediate_size"]


def params(cfg: dict) -> int:
    """Parameters of a Llama-style dense or Qwen3-MoE target described by the HF config ``cfg``."""
    h, v, n = cfg["hidden_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    embed = v * h * (1 if cfg.get("tie_word_embeddings") else 2)
    layer = _attention(cfg, h) + _mlp(cfg) + 2 * h
    return embed + n * layer + h


def draft_params(cfg: dict) -> int:
    """Parameters of a one-layer EAGLE-3 draft (LlamaForCausalLMEagle3): embedding, the fc over three
    target hidden states, a layer whose attention reads [embedding, hidden] (2 x hidden), and its own
    head over ``draft_vocab_size``."""
    h, v = cfg["hidden_size"], cfg["vocab_size"]
    th = cfg.get("target_hidden_size") or h
    layer = _attention(cfg, 2 * h) + 3 * h * cfg["intermediate_size"] + 3 * h
    return v * h + 3 * th * h + cfg["num_hidden_layers"] * layer + h + cfg.get("draft_vocab_size", v) * h


def weights_gib_per_rank(s: ModelShape, tp: int, bytes_per_param: int = 2) -> float:
    """Target + draft weights per tensor-parallel rank in GiB (bf16: 2 bytes), before the KV cache."""
    return round((params(s.target) + draft_params(s.draft)) * bytes_per_param / tp / 2**30, 1)


def record(s: ModelShape, tp: int) -> dict:
    """The fields a full-size run adds to the record's ``config``."""
    return {"weights": WEIGHTS, "model_shape": s.name, "num_layers": s.layers, "full_num_layers": s.full_layers,
            "params": params(s.target), "weights_gib_per_rank": weights_gib_per_rank(s, tp),
            "shape_note": describe(s.name, s.layers, s.full_layers)}


def describe(name: str, layers: Optional[int], full: Optional[int]) -> str:
    """``dummy weights, full-size shape llama3-70b (40 of 80 layers)``."""
    if layers is None or full is None or layers == full:
        return f"{NOTE} {name} ({layers if layers is not None else '?'} layers)"
    return f"{NOTE} {name} ({layers} of {full} layers)"


def server_args() -> list[str]:
    """The full-size launch flags (the stages' speculative flags come from the patch's spec)."""
    return FULLSIZE_BASE + ["--mem-fraction-static", MEM_FRACTION]
