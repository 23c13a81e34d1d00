"""The benchmark's agreeing checkpoint (bench/agree_model.py): a numpy reference forward of the
Llama target and the EAGLE-3 draft over the written safetensors shows that the target emits the
agreed token with probability p at every position and the draft always proposes it."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("agree_model", ROOT / "bench" / "agree_model.py")
am = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(am)


def _rms(x, w, eps=1e-5):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def _rope(x, pos, theta):
    d = x.shape[-1]
    inv = theta ** (-np.arange(0, d, 2) / d)
    ang = pos[:, None] * inv[None, :]
    cos, sin = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


def _attn(x, W, pre, cfg):
    T = x.shape[0]
    nh, nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg["hidden_size"] // nh
    pos = np.arange(T, dtype=np.float64)
    q = (x @ W[pre + "q_proj.weight"].T).reshape(T, nh, hd)
    k = (x @ W[pre + "k_proj.weight"].T).reshape(T, nkv, hd)
    v = (x @ W[pre + "v_proj.weight"].T).reshape(T, nkv, hd)
    q, k = _rope(q, pos, cfg["rope_theta"]), _rope(k, pos, cfg["rope_theta"])
    rep = nh // nkv
    k, v = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)
    s = np.einsum("qhd,khd->hqk", q, k) / np.sqrt(hd)
    s = np.where(np.tril(np.ones((T, T), bool))[None], s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    o = np.einsum("hqk,khd->qhd", s, v).reshape(T, nh * hd)
    return o @ W[pre + "o_proj.weight"].T


def _mlp(x, W, pre):
    g, u = x @ W[pre + "gate_proj.weight"].T, x @ W[pre + "up_proj.weight"].T
    return (g / (1 + np.exp(-g)) * u) @ W[pre + "down_proj.weight"].T


def _load(folder: Path) -> dict:
    W = {}
    for f in sorted(folder.glob("*.safetensors")):
        W.update(am.read_safetensors(f))
    return W


def _target(W, cfg, ids):
    h = W["model.embed_tokens.weight"][ids].astype(np.float64)
    nl = cfg["num_hidden_layers"]
    capture, aux = [2, nl // 2, nl - 3], []
    for i in range(nl):
        if i in capture:
            aux.append(h.copy())
        pre = f"model.layers.{i}."
        h = h + _attn(_rms(h, W[pre + "input_layernorm.weight"]), W, pre + "self_attn.", cfg)
        h = h + _mlp(_rms(h, W[pre + "post_attention_layernorm.weight"]), W, pre + "mlp.")
    return _rms(h, W["model.norm.weight"]) @ W["lm_head.weight"].T, aux


def _draft(D, cfg, embeds, hidden):
    if hidden.shape[-1] != embeds.shape[-1]:
        hidden = hidden @ D["fc.weight"].T
    residual = hidden
    x = np.concatenate([_rms(embeds, D["midlayer.input_layernorm.weight"]),
                        _rms(hidden, D["midlayer.hidden_norm.weight"])], axis=-1)
    residual = residual + _attn(x, D, "midlayer.self_attn.", cfg)
    out = _mlp(_rms(residual, D["midlayer.post_attention_layernorm.weight"]), D, "midlayer.mlp.")
    pre_norm = out + residual
    return _rms(pre_norm, D["norm.weight"]) @ D["lm_head.weight"].T, pre_norm


def _softmax(z):
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    out = tmp_path_factory.mktemp("agree")
    info = am.build(out, "tiny", p=0.8, layers_per_shard=3)
    return out, info


def test_target_emits_agreed_token_with_probability_p_everywhere(model):
    out, info = model
    cfg = json.loads((out / "target" / "config.json").read_text())
    W = _load(out / "target")
    index = json.loads((out / "target" / "model.safetensors.index.json").read_text())["weight_map"]
    assert set(index) == set(W)  # the index names every tensor it ships
    for ids in ([1, 5, 900, 31000, 7], [1] + list(range(200, 212))):
        logits, _ = _target(W, cfg, np.array(ids))
        probs = _softmax(logits)
        assert probs.argmax(-1).tolist() == [am.TOKEN] * len(ids)
        np.testing.assert_allclose(probs[:, am.TOKEN], 0.8, atol=0.02)
        others = np.delete(probs, am.TOKEN, axis=1)
        assert np.ptp(others) < 1e-6  # every other token equally likely


def test_draft_proposes_agreed_token_on_every_step(model):
    out, info = model
    cfg_t = json.loads((out / "target" / "config.json").read_text())
    cfg_d = json.loads((out / "draft" / "config.json").read_text())
    assert cfg_d["architectures"] == ["LlamaForCausalLMEagle3"] and cfg_d["num_hidden_layers"] == 1
    W, D = _load(out / "target"), _load(out / "draft")
    ids = np.array([1, 17, 4000, 250, 9])
    _, aux = _target(W, cfg_t, ids)
    embeds = W["model.embed_tokens.weight"][ids].astype(np.float64)  # SGLang shares the target's
    hidden = np.concatenate(aux, axis=-1)
    for _step in range(3):  # first step from the target's aux states, then from its own
        logits, hidden = _draft(D, cfg_d, embeds, hidden)
        assert logits.argmax(-1).tolist() == [am.TOKEN] * len(ids)
        assert (_softmax(logits)[:, am.TOKEN] > 0.5).all()


def test_expected_acceptance_and_logit():
    assert am.expected_accept_length(0.8, 3) == pytest.approx(2.952)
    p = 0.8
    L = am.logit_for(p, am.VOCAB)
    assert np.exp(L) / (np.exp(L) + am.VOCAB - 1) == pytest.approx(p)


def test_bf16_round_trip_is_nearest():
    x = np.array([1.0, -2.5, 3.14159, 1e-3, 65504.0], np.float32)
    back = am.from_bf16(am.bf16(x))
    assert np.all(np.abs(back - x) <= np.abs(x) * 2 ** -8)
