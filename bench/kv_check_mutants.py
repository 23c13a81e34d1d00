#!/usr/bin/env python3
"""Does the ``kv`` mode's check (patches/dynamic_spec_disable/draft_kv.check) catch a wrong KV-only
write? On the CPU (torch, no SGLang): a toy draft of the EAGLE-3 shape (embedding, fc over three aux
hidden states, the layer's two RMSNorms, a fused QKV projection, neox rotary) and a bf16 KV pool.
The "full extend" is written independently here, from the layer's order of operations; the
KV-only side is draft_kv.kv_of, unmutated and then with one input or step wrong at a time. The
same for a prompt batch (three requests with prefixes): the "full prefill" builds its inputs as
upstream's ``_draft_extend_for_prefill`` and ``compute_position_torch`` do, one request at a time;
the KV-only side is draft_kv.prefill_rows, unmutated and then with its shift, tail or positions wrong.

    pip install torch==2.13.0 && python3 bench/kv_check_mutants.py

Prints one line per case and exits 1 unless the unmutated write agrees bit for bit and every mutant
is caught (``agrees()`` false, the ERROR line the smoke's log-scan fails)."""
from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from patches.dynamic_spec_disable import draft_kv  # noqa: E402

H, HEADS, KV_HEADS, D, VOCAB, N, SLOTS = 64, 4, 2, 16, 100, 8, 64
torch.manual_seed(0)


class RMSNorm(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = torch.nn.Parameter(1 + 0.1 * torch.randn(n))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class QKV(torch.nn.Linear):
    def forward(self, x):  # SGLang's parallel linears return (output, bias)
        return super().forward(x), None


def rope(positions, q, k):
    half = D // 2
    freqs = positions[:, None].float() / (10000 ** (torch.arange(half).float() / half))
    cos, sin = freqs.cos(), freqs.sin()

    def apply(x, heads):
        x = x.view(-1, heads, D)
        a, b = x[..., :half], x[..., half:]
        return torch.cat([a * cos[:, None] - b * sin[:, None], b * cos[:, None] + a * sin[:, None]], -1).flatten(1)
    return apply(q, HEADS), apply(k, KV_HEADS)


class Pool:
    dtype = torch.bfloat16

    def __init__(self):
        self.k = torch.zeros(SLOTS, KV_HEADS, D, dtype=self.dtype)
        self.v = torch.zeros(SLOTS, KV_HEADS, D, dtype=self.dtype)

    def set_kv_buffer(self, layer, loc, k, v, k_scale=None, v_scale=None):
        self.k[loc], self.v[loc] = k.to(self.dtype), v.to(self.dtype)

    def get_key_buffer(self, layer_id):
        return self.k

    def get_value_buffer(self, layer_id):
        return self.v


def toy_plan() -> draft_kv.KVPlan:
    attn = SimpleNamespace(qkv_proj=QKV(2 * H, (HEADS + 2 * KV_HEADS) * D, bias=False), rotary_emb=rope,
                           q_size=HEADS * D, kv_size=KV_HEADS * D,
                           attn=SimpleNamespace(layer_id=0, tp_k_head_num=KV_HEADS, tp_v_head_num=KV_HEADS,
                                                qk_head_dim=D, v_head_dim=D, k_scale=None, v_scale=None))
    layer = SimpleNamespace(is_input_layer=True, hidden_norm=RMSNorm(H), input_layernorm=RMSNorm(H), self_attn=attn)
    inner = SimpleNamespace(embed_tokens=torch.nn.Embedding(VOCAB, H), fc=torch.nn.Linear(3 * H, H, bias=False),
                            fc_norm=None, input_norm=RMSNorm(3 * H), is_mrope_enabled=False, layers=[layer])
    runner = SimpleNamespace(model=SimpleNamespace(model=inner), token_to_kv_pool=Pool())
    got = draft_kv.plan(runner)
    assert isinstance(got, draft_kv.KVPlan), got
    return got


def full_extend(p, batch, output):
    """The draft layer's K/V as its forward computes them, written at the verify's slots."""
    inner, layer, attn = p.inner, p.layer, p.attn
    emb = inner.embed_tokens(output.next_token_ids.long())
    h = inner.fc(inner.input_norm(output.logits_output.hidden_states))
    x = torch.cat([layer.input_layernorm(emb), layer.hidden_norm(h)], -1)
    qkv, _ = attn.qkv_proj(x)
    q, k, v = qkv.split([attn.q_size, attn.kv_size, attn.kv_size], -1)
    q, k = rope(batch.seq_lens.long(), q, k)
    p.pool.set_kv_buffer(None, batch.out_cache_loc, k.view(-1, KV_HEADS, D), v.view(-1, KV_HEADS, D))


def step():
    batch = SimpleNamespace(seq_lens=torch.randint(5, 40, (N,), dtype=torch.int32),
                            out_cache_loc=torch.randperm(SLOTS)[:N])
    output = SimpleNamespace(next_token_ids=torch.randint(0, VOCAB, (N,), dtype=torch.int32),
                             logits_output=SimpleNamespace(hidden_states=torch.randn(N, 3 * H)))
    return batch, output


MUTANTS = {
    "position+1": lambda ids, pos, loc, hid: (ids, pos + 1, loc, hid),
    "token of the previous row": lambda ids, pos, loc, hid: (ids.roll(1), pos, loc, hid),
    "hidden state of another row": lambda ids, pos, loc, hid: (ids, pos, loc, hid.roll(1, 0)),
    "hidden state not normed before fc": None,  # input_norm left out (0.5.17+'s norm_before_fc)
}


EXTEND, PREFIX = [5, 1, 4], [0, 7, 3]


def prompt():
    n = sum(EXTEND)
    batch = SimpleNamespace(forward_mode=SimpleNamespace(name="EXTEND"), input_embeds=None, multimodal_inputs=None,
                            input_ids=torch.randint(0, VOCAB, (n,)), out_cache_loc=torch.randperm(SLOTS)[:n],
                            extend_lens=list(EXTEND), prefix_lens=list(PREFIX))
    return batch, torch.randint(0, VOCAB, (len(EXTEND),)), torch.randn(n, 3 * H)


def full_prefill(p, batch, tails, hidden):
    """The draft layer's K/V over a prompt batch as upstream builds its inputs: per request, the
    extend tokens shifted left with the tail token last, at prefix + arange(extend)."""
    ids, pos, pt = [], [], 0
    for i, (e, pre) in enumerate(zip(batch.extend_lens, batch.prefix_lens)):
        ids.append(torch.cat((batch.input_ids[pt + 1: pt + e], tails[i].reshape(1))))
        pos.append(torch.arange(pre, pre + e))
        pt += e
    inner, layer, attn = p.inner, p.layer, p.attn
    h = inner.fc(inner.input_norm(hidden))
    x = torch.cat([layer.input_layernorm(inner.embed_tokens(torch.cat(ids))), layer.hidden_norm(h)], -1)
    q, k, v = attn.qkv_proj(x)[0].split([attn.q_size, attn.kv_size, attn.kv_size], -1)
    q, k = rope(torch.cat(pos), q, k)
    p.pool.set_kv_buffer(None, batch.out_cache_loc, k.view(-1, KV_HEADS, D), v.view(-1, KV_HEADS, D))


def _unshifted(batch, tails, hidden):
    ids, pos, loc, hid = draft_kv.prefill_rows(batch, tails, hidden)
    return batch.input_ids.clone(), pos, loc, hid


def _no_prefix(batch, tails, hidden):
    ids, pos, loc, hid = draft_kv.prefill_rows(batch, tails, hidden)
    return ids, torch.cat([torch.arange(e) for e in batch.extend_lens]), loc, hid


def _across_requests(batch, tails, hidden):  # one shift over the whole batch: each tail is the next prompt's first token
    ids, pos, loc, hid = draft_kv.prefill_rows(batch, tails, hidden)
    ids = torch.cat((batch.input_ids[1:], tails[-1:]))
    return ids, pos, loc, hid


PREFILL_MUTANTS = {
    "prompt not shifted": _unshifted,
    "positions without the prefix": _no_prefix,
    "shifted across requests (tails lost)": _across_requests,
    "tail tokens of other requests": lambda b, t, h: draft_kv.prefill_rows(b, t.roll(1), h),
}


def run_prefill() -> int:
    bad = 0
    p = toy_plan()
    batch, tails, hidden = prompt()
    rows = draft_kv.prefill_rows(batch, tails, hidden)
    got = draft_kv.check_rows(p, rows, lambda: full_prefill(p, batch, tails, hidden))
    print(f"prefill unmutated: {got.line()} agrees={got.agrees()}")
    bad += not (got.agrees() and got.identical == got.rows)
    for name, rows_of in PREFILL_MUTANTS.items():
        p = toy_plan()
        batch, tails, hidden = prompt()
        got = draft_kv.check_rows(p, rows_of(batch, tails, hidden), lambda: full_prefill(p, batch, tails, hidden))
        caught = not got.agrees()
        print(f"prefill mutant {name}: {got.line()} caught={caught}")
        bad += not caught
    return bad


def run() -> int:
    bad = 0
    with torch.no_grad():
        bad += run_prefill()
        p = toy_plan()
        batch, output = step()
        got = draft_kv.check(p, batch, output, lambda: full_extend(p, batch, output))
        ok = got.agrees() and got.identical == got.rows
        print(f"unmutated: {got.line()} agrees={got.agrees()}")
        bad += not ok
        real_inputs = draft_kv._inputs
        for name, mutate in MUTANTS.items():
            p = toy_plan()
            batch, output = step()
            kv_side = p
            if mutate is None:  # the KV-only side without the draft's input_norm
                kv_side = draft_kv.KVPlan(SimpleNamespace(**{**vars(p.inner), "input_norm": None}),
                                          p.layer, p.attn, p.radix, p.pool)
            else:
                draft_kv._inputs = lambda b, o, m=mutate: m(*real_inputs(b, o))
            try:
                got = draft_kv.check(kv_side, batch, output, lambda: full_extend(p, batch, output))
            finally:
                draft_kv._inputs = real_inputs
            caught = not got.agrees()
            print(f"mutant {name}: {got.line()} caught={caught}")
            bad += not caught
    print("all caught" if not bad else f"{bad} case(s) wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(run())
