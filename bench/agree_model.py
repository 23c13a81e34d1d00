#!/usr/bin/env python3
"""Write a Llama target and an EAGLE-3 draft (safetensors) whose agreement is known by construction.

    python3 bench/agree_model.py --out /tmp/agree --size 8b --p-accept 0.8

Construction (every GEMM keeps its full, dense size, so the FLOPs and bytes per step are those of
a real model of that shape; only the values are chosen):
  * every row of the token embedding is the same random vector ``v`` (rms 1);
  * q/k/v and gate/up projections are random (std 0.02); o_proj and down_proj are zero, so each
    layer adds nothing to the residual stream: after any layer, at any position, the residual is
    ``v`` and the final norm gives ``n = v / rms(v)`` whatever the tokens and positions are;
  * the target's lm_head has one non-zero row, token ``c``, with ``row . n = L`` and
    ``L = ln(p (V - 1) / (1 - p))``: sampled at temperature 1 the target emits ``c`` with
    probability ``p`` and any other token uniformly otherwise, independently at every position;
  * the draft (one EAGLE-3 layer) gets the target's auxiliary hidden states (all ``v``), ``fc``
    passes the first through, its layer adds nothing, and its lm_head equals the target's: it
    always proposes ``c``.
So each drafted token is accepted with probability ``p``, and with ``s`` draft steps (chain,
topk 1) the expected acceptance length is ``1 + p + ... + p**s`` (2.95 for p = 0.8, s = 3),
which the benchmark then measures. Needs numpy only; writes the safetensors format directly.
"""
from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

import numpy as np

SIZES = {
    # Llama-3-8B shape (vocab 32000): compute-bound decode on one H200 from ~64-128 requests
    "8b": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
               num_attention_heads=32, num_key_value_heads=8),
    "1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
               num_attention_heads=32, num_key_value_heads=8),
    "tiny": dict(hidden_size=128, intermediate_size=256, num_hidden_layers=8,
                 num_attention_heads=4, num_key_value_heads=2),
}
VOCAB = 32000
TOKEN = 100  # the token both models agree on (not BOS 1 / EOS 2)


def logit_for(p: float, vocab: int) -> float:
    """Logit of the favoured token (all others 0) that gives it probability ``p`` at temperature 1."""
    return math.log(p * (vocab - 1) / (1.0 - p))


def expected_accept_length(p: float, steps: int) -> float:
    return sum(p ** i for i in range(steps + 1))


def bf16(a: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16), round to nearest even."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (rounded >> np.uint32(16)).astype(np.uint16)


def from_bf16(u: np.ndarray) -> np.ndarray:
    return (u.astype(np.uint32) << np.uint32(16)).view(np.float32)


class SafetensorsWriter:
    """Streams tensors (bf16 as uint16 arrays, or lazily repeated buffers) into one file."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: list[tuple[str, tuple[int, ...], np.ndarray]] = []

    def add(self, name: str, array: np.ndarray) -> None:
        self.entries.append((name, tuple(array.shape), array))

    def close(self) -> None:
        header, offset = {}, 0
        for name, shape, arr in self.entries:
            header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + arr.nbytes]}
            offset += arr.nbytes
        raw = json.dumps(header, separators=(",", ":")).encode()
        raw += b" " * (-len(raw) % 8)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(len(raw).to_bytes(8, "little"))
            f.write(raw)
            for _, _, arr in self.entries:
                f.write(memoryview(np.ascontiguousarray(arr)).cast("B"))
        os.replace(tmp, self.path)


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Reader for our own files (tests): name -> float32 array."""
    data = path.read_bytes()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        assert meta["dtype"] == "BF16", meta
        b, e = meta["data_offsets"]
        out[name] = from_bf16(np.frombuffer(data[base + b:base + e], dtype=np.uint16)).reshape(meta["shape"])
    return out


def _config(dims: dict, **extra) -> dict:
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": VOCAB,
            "max_position_embeddings": 8192, "torch_dtype": "bfloat16", "rms_norm_eps": 1e-5,
            "rope_theta": 500000.0, "hidden_act": "silu", "bos_token_id": 1, "eos_token_id": 2,
            "tie_word_embeddings": False, **dims, **extra}


def build(out: Path, size: str = "8b", p: float = 0.8, seed: int = 0, layers_per_shard: int = 4) -> dict:
    dims = SIZES[size]
    H, I, nl = dims["hidden_size"], dims["intermediate_size"], dims["num_hidden_layers"]
    kv = dims["num_key_value_heads"] * (H // dims["num_attention_heads"])
    rng = np.random.default_rng(seed)
    rand = lambda *shape: bf16(rng.standard_normal(shape, dtype=np.float32) * 0.02)  # noqa: E731
    v = rng.standard_normal(H, dtype=np.float32)
    v /= np.sqrt(np.mean(v * v))
    v_b = bf16(v)
    v_f = from_bf16(v_b)
    n = v_f / np.sqrt(np.mean(v_f * v_f) + 1e-5)
    L = logit_for(p, VOCAB)
    head = np.zeros((VOCAB, H), dtype=np.uint16)
    head[TOKEN] = bf16(L * n / float(n @ n))
    ones = bf16(np.ones(H, dtype=np.float32))
    shared = {"q": rand(H, H), "k": rand(kv, H), "v": rand(kv, H), "gate": rand(I, H), "up": rand(I, H)}
    zeros_o, zeros_down = np.zeros((H, H), np.uint16), np.zeros((H, I), np.uint16)

    target, draft = out / "target", out / "draft"
    target.mkdir(parents=True, exist_ok=True)
    draft.mkdir(parents=True, exist_ok=True)
    (target / "config.json").write_text(json.dumps(_config(dims), indent=2) + "\n")
    shards = [list(range(i, min(nl, i + layers_per_shard))) for i in range(0, nl, layers_per_shard)]
    weight_map = {}
    total = len(shards) + 1
    for k, layer_ids in enumerate(shards + [None], start=1):
        name = f"model-{k:05d}-of-{total:05d}.safetensors"
        w = SafetensorsWriter(target / name)
        if layer_ids is None:
            w.add("model.embed_tokens.weight", np.broadcast_to(v_b, (VOCAB, H)))
            w.add("model.norm.weight", ones)
            w.add("lm_head.weight", head)
        else:
            for i in layer_ids:
                pre = f"model.layers.{i}."
                for proj in "qkv":
                    w.add(f"{pre}self_attn.{proj}_proj.weight", shared[proj])
                w.add(f"{pre}self_attn.o_proj.weight", zeros_o)
                w.add(f"{pre}mlp.gate_proj.weight", shared["gate"])
                w.add(f"{pre}mlp.up_proj.weight", shared["up"])
                w.add(f"{pre}mlp.down_proj.weight", zeros_down)
                w.add(f"{pre}input_layernorm.weight", ones)
                w.add(f"{pre}post_attention_layernorm.weight", ones)
        weight_map.update({e[0]: name for e in w.entries})
        w.close()
    (target / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}, indent=1))

    (draft / "config.json").write_text(json.dumps(_config(
        {**dims, "num_hidden_layers": 1}, architectures=["LlamaForCausalLMEagle3"],
        draft_vocab_size=VOCAB, target_hidden_size=H), indent=2) + "\n")
    fc = np.zeros((H, 3 * H), np.uint16)
    fc[:, :H] = bf16(np.eye(H, dtype=np.float32))
    w = SafetensorsWriter(draft / "model.safetensors")
    w.add("fc.weight", fc)
    w.add("midlayer.self_attn.q_proj.weight", rand(H, 2 * H))
    w.add("midlayer.self_attn.k_proj.weight", rand(kv, 2 * H))
    w.add("midlayer.self_attn.v_proj.weight", rand(kv, 2 * H))
    w.add("midlayer.self_attn.o_proj.weight", zeros_o)
    w.add("midlayer.mlp.gate_proj.weight", shared["gate"])
    w.add("midlayer.mlp.up_proj.weight", shared["up"])
    w.add("midlayer.mlp.down_proj.weight", zeros_down)
    for norm in ("input_layernorm", "hidden_norm", "post_attention_layernorm"):
        w.add(f"midlayer.{norm}.weight", ones)
    w.add("norm.weight", ones)
    w.add("lm_head.weight", head)
    w.close()
    params = nl * (2 * H * H + 2 * kv * H + 3 * H * I) + 2 * VOCAB * H
    info = {"size": size, **dims, "vocab_size": VOCAB, "token": TOKEN, "p_accept": p, "logit": L,
            "target_params": params, "expected_accept_length_3_steps": expected_accept_length(p, 3)}
    (out / "agree.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", choices=sorted(SIZES), default="8b")
    ap.add_argument("--p-accept", type=float, default=0.8)
    args = ap.parse_args()
    if not 0.0 < args.p_accept < 1.0:
        ap.error(f"--p-accept {args.p_accept}: expected a probability strictly between 0 and 1")
    info = build(Path(args.out), args.size, args.p_accept)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
