"""patchkit dynamic-spec-disable: the draft's KV cache without the draft's forward (``--speculative-disable-draft-extend kv``).

``patchkit apply dynamic-spec-disable`` copies this file into the target as
``sglang/srt/speculative/patchkit_spec_disable_kv.py``; ``patchkit_spec_disable.py`` (runtime.py)
imports it lazily, only when the mode is ``kv``.

On a decode step where drafting is disabled, the draft model's extend over the step's one token
per request runs a whole draft forward: its decoder layer, its LM head, the top-k of the next
proposal. While drafting stays disabled nothing reads that proposal; what a later resume needs is
the draft's KV cache for those tokens. An EAGLE-3 draft (``LlamaForCausalLMEagle3``: one decoder
layer whose input is ``[input_layernorm(embed(token)), hidden_norm(fc(target aux hidden))]``) keeps
its KV cache complete with that layer's K and V alone: the embedding row, ``fc``, two RMSNorms, the
QKV projection and the rotary embedding, written with the pool's own ``set_kv_buffer`` at the slots
the extend would use (the verify's ``out_cache_loc``, at position ``seq_lens``), from the same
modules the extend calls. The layer's attention, its MLP, the LM head and the top-k are skipped:
about a quarter of the draft's weights are read instead of all of them (8B shape: fc and QKV,
200 of 850 MB).

A prompt admitted while drafting is disabled above the threshold gets the same write instead of
the draft's prefill (:func:`prefill_rows`: each request's prompt tokens shifted left by one, its
tail token last, at the prompt's positions and slots, with the target's hidden states of every
prompt token). That prefill would also run the draft's attention over the whole prompt (on
FlashInfer, a host-side ``plan`` per batch), its MLP and its LM head; none of it is needed until
drafting resumes, and the run-up to a resume refreshes the seed.

Any other draft (EAGLE-1, MTP, multi-layer, M-RoPE, quantised KV, 0.5.23's fused draft pool that
needs physical write slots) gets no plan: the runtime says so
once at start-up and runs the full extend (``keep``). :func:`check` compares what this writes with
what the full extend writes for the same step, on the real server
(``$PATCHKIT_SPEC_DISABLE_KV_CHECK``: the first N disabled steps above the threshold, and with
:func:`check_rows` the first N prompt batches admitted there).

Imports nothing from SGLang or torch at module level.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

#: modules the plan needs on the draft's decoder layer and its attention
_LAYER_PARTS = ("hidden_norm", "input_layernorm", "self_attn")
_ATTN_PARTS = ("qkv_proj", "rotary_emb", "attn", "q_size", "kv_size")
_RADIX_PARTS = ("layer_id", "tp_k_head_num", "tp_v_head_num", "qk_head_dim", "v_head_dim")


@dataclass(frozen=True)
class KVPlan:
    """What :func:`write` uses: the draft's inner model, its one decoder layer, the layer's
    attention module and RadixAttention, and the draft's KV pool."""

    inner: Any
    layer: Any
    attn: Any
    radix: Any
    pool: Any


def plan(draft_runner: Any) -> Union[KVPlan, str]:
    """A plan for ``draft_runner``'s model, or why there is none (one line)."""
    model = getattr(draft_runner, "model", None)
    name = type(model).__name__
    inner = getattr(model, "model", None)
    layers = getattr(inner, "layers", None)
    if inner is None or layers is None or not hasattr(inner, "embed_tokens") or not hasattr(inner, "fc"):
        return f"the draft model {name} is not an EAGLE-3 draft (no model.embed_tokens / model.fc / model.layers)"
    if len(layers) != 1:
        return f"the draft model {name} has {len(layers)} decoder layers (the KV-only write covers one)"
    if getattr(inner, "is_mrope_enabled", False):
        return f"the draft model {name} uses M-RoPE (positions come from the batch's mrope_positions)"
    layer = layers[0]
    if not getattr(layer, "is_input_layer", False):
        return f"the draft model {name}'s layer does not take [embeds, hidden] as its input"
    missing = [p for p in _LAYER_PARTS if not hasattr(layer, p)]
    attn = getattr(layer, "self_attn", None)
    missing += [f"self_attn.{p}" for p in _ATTN_PARTS if not hasattr(attn, p)]
    radix = getattr(attn, "attn", None)
    missing += [f"self_attn.attn.{p}" for p in _RADIX_PARTS if not hasattr(radix, p)]
    if missing:
        return f"the draft model {name}'s layer lacks {', '.join(missing)}"
    pool = getattr(draft_runner, "token_to_kv_pool", None)
    if pool is None or not callable(getattr(pool, "set_kv_buffer", None)):
        return "the draft runner has no token_to_kv_pool with set_kv_buffer"
    if getattr(pool, "is_quantized_kv_cache", False) or getattr(pool, "use_hnd", False) or \
            "FP4" in type(pool).__name__.upper():
        return f"the draft's KV pool {type(pool).__name__} is quantised or paged head-major"
    if getattr(pool, "requires_physical_write_loc", False):
        # 0.5.23's fused draft pool (--enable-unified-memory): writes need the verify's physical
        # slot plan, which the extend gets from upstream and this write does not
        return f"the draft's KV pool {type(pool).__name__} needs physical write slots"
    if not callable(getattr(pool, "get_key_buffer", None)):
        return f"the draft's KV pool {type(pool).__name__} has no get_key_buffer"
    return KVPlan(inner, layer, attn, radix, pool)


def kv_of(p: KVPlan, token_ids: Any, positions: Any, hidden: Any) -> tuple[Any, Any]:
    """The first layer's (K, V) for ``token_ids`` at ``positions`` with the target's auxiliary
    hidden states ``hidden``: the same modules, in the same order, as the layer's forward."""
    import torch
    inner, layer, attn, radix = p.inner, p.layer, p.attn, p.radix
    embeds = inner.embed_tokens(token_ids)
    h = hidden
    if h.shape[-1] != embeds.shape[-1]:
        pre = getattr(inner, "input_norm", None)  # 0.5.17+: norm_before_fc
        if pre is not None:
            h = pre(h)
        norms = getattr(inner, "fc_norm", None)
        if norms is not None:
            h = torch.cat([norm(chunk) for norm, chunk in zip(norms, h.chunk(len(norms), dim=-1))], dim=-1)
        h = inner.fc(h)
    x = torch.cat([layer.input_layernorm(embeds), layer.hidden_norm(h)], dim=-1)
    qkv, _ = attn.qkv_proj(x)
    q, k, v = qkv.split([attn.q_size, attn.kv_size, attn.kv_size], dim=-1)
    q, k = attn.rotary_emb(positions, q, k)
    return (k.reshape(-1, radix.tp_k_head_num, radix.qk_head_dim),
            v.reshape(-1, radix.tp_v_head_num, radix.v_head_dim))


def _inputs(batch: Any, output: Any) -> tuple[Any, Any, Any, Any]:
    """(token ids, positions, slots, target hidden states) of a one-token verify step: what
    ``prepare_for_draft_extend`` hands the draft's extend (the new bonus tokens, at the verified
    token's position and slot, with the target's hidden states of the verified token)."""
    import torch
    return (output.next_token_ids.to(torch.int64), batch.seq_lens.to(torch.int64), batch.out_cache_loc,
            output.logits_output.hidden_states)


def prefill_layout(extend_lens: list, prefix_lens: list) -> tuple[list, list]:
    """(the index of each request's last extend token, the position of every extend token) of a
    prompt batch: positions run from each request's prefix length, as ``ForwardBatch`` computes
    them for an extend."""
    ends, positions, at = [], [], 0
    for e, start in zip(extend_lens, prefix_lens):
        at += e
        ends.append(at - 1)
        positions.extend(range(start, start + e))
    return ends, positions


def prefill_rows(batch: Any, tail_tokens: Any, hidden: Any) -> Union[tuple[Any, Any, Any, Any], str]:
    """(token ids, positions, slots, target hidden states) of a prompt batch's draft prefill, or
    why this write cannot stand in for it (one line). The ids are what upstream's
    ``_draft_extend_for_prefill`` builds: each request's extend tokens shifted left by one, its
    tail token (the target's next token; a chunked prompt's next prompt token) last. ``tail_tokens``
    may be a callable that makes them, called only once the batch is accepted."""
    if hidden is None or tail_tokens is None:
        return "no target hidden states or tail tokens (a prefill hook from an older apply)"
    if getattr(getattr(batch, "forward_mode", None), "name", None) != "EXTEND":
        return "not a plain prefill batch (mixed, idle or another mode)"
    if getattr(batch, "input_embeds", None) is not None or getattr(batch, "replace_embeds", None) is not None or any(
            m is not None for m in (getattr(batch, "multimodal_inputs", None) or ())):
        return "the prompt has input embeddings, embedding overrides or multimodal inputs (the draft embeds them otherwise)"
    ids, loc = batch.input_ids, batch.out_cache_loc
    lens, prefix = list(batch.extend_lens or ()), list(batch.prefix_lens or ())
    n = int(ids.numel())
    if not lens or len(prefix) != len(lens) or min(lens) < 1 or \
            sum(lens) != n or int(hidden.shape[0]) != n or int(loc.numel()) != n:
        return "the prompt batch's lengths, slots or hidden states do not line up"
    import torch
    if callable(tail_tokens):
        tail_tokens = tail_tokens()
    if int(tail_tokens.numel()) != len(lens):
        return "the prompt batch's tail tokens do not line up with its requests"
    ends, positions = prefill_layout(lens, prefix)
    # one host-to-device copy, pinned and non-blocking: a blocking one (``torch.tensor(...,
    # device=cuda)``) waits for the target's prefill on the stream, and the overlap scheduler
    # loses a step's host work on every prompt batch
    host = torch.tensor(ends + positions, dtype=torch.int64)
    if getattr(ids, "is_cuda", False):
        host = host.pin_memory()
    both = host.to(ids.device, non_blocking=True)
    shifted = torch.empty(n, dtype=torch.int64, device=ids.device)
    shifted[:-1] = ids[1:]
    shifted[both[:len(ends)]] = tail_tokens.to(torch.int64)
    return shifted, both[len(ends):], loc, hidden


def write_rows(p: KVPlan, rows: tuple[Any, Any, Any, Any]) -> None:
    """Write the draft's KV for ``rows`` (token ids, positions, slots, hidden states), nothing else."""
    ids, pos, loc, hidden = rows
    k, v = kv_of(p, ids, pos, hidden)
    p.pool.set_kv_buffer(p.radix, loc, k, v, getattr(p.radix, "k_scale", None), getattr(p.radix, "v_scale", None))


def write(p: KVPlan, batch: Any, output: Any) -> None:
    """Write the draft's KV for a one-token verify step's tokens, nothing else."""
    write_rows(p, _inputs(batch, output))


def _as_stored(p: KVPlan, x: Any, scale: Any) -> Any:
    """``x`` as the pool stores it (``set_kv_buffer``: divided by the layer's scale when the pool's
    dtype differs, then cast), in float32 for the comparison."""
    import torch
    dtype = getattr(p.pool, "dtype", x.dtype)
    if x.dtype != dtype:
        if scale is not None:
            x = x / scale
        x = x.to(dtype)
    return x.to(torch.float32)


@dataclass(frozen=True)
class CheckResult:
    """What :func:`check` found for one step: rows compared, rows equal bit for bit, the largest
    absolute difference and the largest absolute value (K and V together)."""

    rows: int
    identical: int
    max_abs_diff: float
    max_abs: float

    #: the largest difference, relative to the largest value, that still agrees: bf16 rounding of
    #: another GEMM schedule; a wrong token, position, slot or hidden state differs by the values' size
    TOLERANCE = 0.02

    def agrees(self) -> bool:
        return self.identical == self.rows or self.max_abs_diff <= self.TOLERANCE * self.max_abs

    def line(self) -> str:
        rel = self.max_abs_diff / self.max_abs if self.max_abs else 0.0
        return (f"rows={self.rows} identical={self.identical} max_abs_diff={self.max_abs_diff:.3g} "
                f"max_abs={self.max_abs:.3g} rel={rel:.3g}")


def check(p: KVPlan, batch: Any, output: Any, run_full_extend) -> CheckResult:
    """:func:`check_rows` for a one-token verify step."""
    return check_rows(p, _inputs(batch, output), run_full_extend)


def check_rows(p: KVPlan, rows: tuple[Any, Any, Any, Any], run_full_extend) -> CheckResult:
    """Compute the KV-only rows, run the full extend (``run_full_extend()``, which writes the pool),
    then compare the pool's rows at the step's slots with them. Synchronises the GPU: for the first
    few steps of a check run only."""
    import torch
    ids, pos, loc, hidden = rows
    k, v = kv_of(p, ids, pos, hidden)
    k, v = k.clone(), v.clone()
    loc = loc.clone()
    run_full_extend()
    lid = p.radix.layer_id
    kb = p.pool.get_key_buffer(lid)[loc].to(torch.float32)
    vb = p.pool.get_value_buffer(lid)[loc].to(torch.float32)
    kf, vf = _as_stored(p, k, getattr(p.radix, "k_scale", None)), _as_stored(p, v, getattr(p.radix, "v_scale", None))
    kb, vb = kb.reshape(kf.shape), vb.reshape(vf.shape)
    same = ((kb == kf).flatten(1).all(dim=1) & (vb == vf).flatten(1).all(dim=1))
    diff = torch.maximum((kb - kf).abs().amax(), (vb - vf).abs().amax())
    top = torch.maximum(kb.abs().amax(), vb.abs().amax())
    return CheckResult(int(same.numel()), int(same.sum().item()), float(diff.item()), float(top.item()))
