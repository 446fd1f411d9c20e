#!/usr/bin/env python3
"""Golden for models/llama2: a small Llama 2 decoder built and exported by
PyTorch with seeded weights, and PyTorch's outputs.

The network follows transformers' modeling_llama (LlamaForCausalLM):
RMSNorm in float32 (eps 1e-5), rotary embeddings with rotate_half over
cos/sin of [freqs, freqs] (theta 10000, inv_freq in float32), grouped-query
attention (repeat_kv), additive mask of float32 min on padded and future
columns, SiLU-gated MLP, no biases, written with torch.nn layers at
2 layers of width 32 (4 heads, 2 kv heads, MLP 48, vocabulary 97). It is
exported in the optimum "with past" I/O (input_ids, attention_mask,
position_ids, past_key_values.N.key/value -> logits, present.N.key/value)
with the past length dynamic.

Writes, in the current folder:
  torch_small.onnx     the export (opset 14)
  weights.bin/.txt     the weights in the synthetic builder's names and
                       layouts (linear weights [in, out])
  prefill_logits.npy   logits [2, 6, 97] of the prefill below
  prefill_present0k.npy  present.0.key [2, 2, 6, 8] of that prefill
  step_logits.npy      logits [2, 1, 97] of one decode step after it
  greedy.txt           8 greedy tokens (no EOS) for each prompt alone
Inputs (the Go test makes the same): the two PROMPTS below; the prefill
batch left-pads the shorter with token 2 (attention_mask 0); position_ids
are cumsum(mask) - 1 per row, 1 at padded positions; the step feeds each
row's argmax of the prefill's last logits at the next position.

Run with Debian's python3-torch 1.13: /usr/bin/python3 make_torch_small.py
"""
import numpy as np
import torch
import torch.nn as nn

L, H, HEADS, KV, FF, V = 2, 32, 4, 2, 48, 97
D = H // HEADS
EPS = 1e-5
THETA = 10000.0
PROMPTS = [[1, 5, 17, 33], [1, 40, 8, 61, 22, 90]]
NEW = 8


class RMSNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(H))

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(var + EPS))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = RMSNorm()
        self.q_proj = nn.Linear(H, HEADS * D, bias=False)
        self.k_proj = nn.Linear(H, KV * D, bias=False)
        self.v_proj = nn.Linear(H, KV * D, bias=False)
        self.o_proj = nn.Linear(HEADS * D, H, bias=False)
        self.post_attention_layernorm = RMSNorm()
        self.gate_proj = nn.Linear(H, FF, bias=False)
        self.up_proj = nn.Linear(H, FF, bias=False)
        self.down_proj = nn.Linear(FF, H, bias=False)

    def forward(self, x, cos, sin, mask, past_k, past_v):
        b, s, _ = x.shape
        n = self.input_layernorm(x)
        q = self.q_proj(n).view(b, s, HEADS, D).transpose(1, 2)
        k = self.k_proj(n).view(b, s, KV, D).transpose(1, 2)
        v = self.v_proj(n).view(b, s, KV, D).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        # repeat_kv: each kv head serves HEADS // KV consecutive query heads
        kr = k[:, :, None].expand(-1, -1, HEADS // KV, -1, -1).reshape(b, HEADS, -1, D)
        vr = v[:, :, None].expand(-1, -1, HEADS // KV, -1, -1).reshape(b, HEADS, -1, D)
        scores = torch.matmul(q, kr.transpose(2, 3)) / (D ** 0.5) + mask
        probs = torch.softmax(scores.float(), dim=-1)
        a = torch.matmul(probs, vr).transpose(1, 2).reshape(b, s, HEADS * D)
        x = x + self.o_proj(a)
        n = self.post_attention_layernorm(x)
        x = x + self.down_proj(nn.functional.silu(self.gate_proj(n)) * self.up_proj(n))
        return x, k, v


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(V, H)
        self.layers = nn.ModuleList([Layer() for _ in range(L)])
        self.norm = RMSNorm()
        self.lm_head = nn.Linear(H, V, bias=False)
        self.register_buffer("inv_freq", 1.0 / (THETA ** (torch.arange(0, D, 2).float() / D)))

    def forward(self, input_ids, attention_mask, position_ids, *past):
        b, s = input_ids.shape
        x = self.embed_tokens(input_ids)
        freqs = position_ids[:, :, None].float() * self.inv_freq[None, None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[:, None], emb.sin()[:, None]  # [B,1,S,D]
        p = past[0].shape[2]
        t = attention_mask.shape[1]
        rows = torch.arange(s)[:, None] + p
        cols = torch.arange(t)[None, :]
        allowed = (cols <= rows)[None, None] & (attention_mask[:, None, None, :] > 0)
        lowest = torch.finfo(torch.float32).min
        mask = torch.where(allowed, torch.zeros((), dtype=torch.float32), torch.full((), lowest))
        presents = []
        for i, layer in enumerate(self.layers):
            x, k, v = layer(x, cos, sin, mask, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        return (self.lm_head(self.norm(x)), *presents)


def init(m):
    g = torch.Generator().manual_seed(20230718)
    with torch.no_grad():
        for name, p in m.named_parameters():
            if name.endswith("layernorm.weight") or name == "norm.weight":
                p.copy_(torch.rand(p.shape, generator=g) * 0.4 + 0.8)
            elif name == "embed_tokens.weight":
                p.copy_(torch.rand(p.shape, generator=g) * 2 - 1)
            else:
                a = (3.0 / p.shape[1]) ** 0.5
                p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * a)


def builder_weights(m):
    out = [("model.embed_tokens.weight", m.embed_tokens.weight)]
    for i, l in enumerate(m.layers):
        p = f"model.layers.{i}."
        out.append((p + "input_layernorm.weight", l.input_layernorm.weight))
        for n in ("q_proj", "k_proj", "v_proj", "o_proj"):
            out.append((p + "self_attn." + n + ".weight", getattr(l, n).weight.t()))
        out.append((p + "post_attention_layernorm.weight", l.post_attention_layernorm.weight))
        for n in ("gate_proj", "up_proj", "down_proj"):
            out.append((p + "mlp." + n + ".weight", getattr(l, n).weight.t()))
    out.append(("model.norm.weight", m.norm.weight))
    out.append(("lm_head.weight", m.lm_head.weight.t()))
    return [(n, t.detach().numpy().astype(np.float32)) for n, t in out]


def empty_past(b):
    return [torch.zeros(b, KV, 0, D) for _ in range(2 * L)]


def prefill_inputs():
    s = max(len(p) for p in PROMPTS)
    ids = torch.full((len(PROMPTS), s), 2, dtype=torch.int64)
    mask = torch.zeros((len(PROMPTS), s), dtype=torch.int64)
    for r, p in enumerate(PROMPTS):
        ids[r, s - len(p):] = torch.tensor(p)
        mask[r, s - len(p):] = 1
    pos = mask.cumsum(-1) - 1
    pos = pos.masked_fill(mask == 0, 1)
    return ids, mask, pos


def greedy(m, prompt):
    ids = torch.tensor([prompt])
    mask = torch.ones_like(ids)
    pos = torch.arange(len(prompt))[None]
    past = empty_past(1)
    out = []
    for _ in range(NEW):
        logits, *past = m(ids, mask, pos, *past)
        tok = int(logits[0, -1].argmax())
        out.append(tok)
        ids = torch.tensor([[tok]])
        pos = torch.tensor([[mask.shape[1]]])
        mask = torch.ones(1, mask.shape[1] + 1, dtype=torch.int64)
    return out


def main():
    m = Llama().eval()
    init(m)
    ids, mask, pos = prefill_inputs()
    with torch.no_grad():
        logits, *presents = m(ids, mask, pos, *empty_past(2))
        nxt = logits[:, -1].argmax(-1)[:, None]
        mask2 = torch.cat([mask, torch.ones(2, 1, dtype=torch.int64)], dim=1)
        pos2 = pos[:, -1:] + 1
        step, *_ = m(nxt, mask2, pos2, *presents)
        tokens = [greedy(m, p) for p in PROMPTS]
    names = ["input_ids", "attention_mask", "position_ids"]
    past_names, present_names = [], []
    for i in range(L):
        past_names += [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
        present_names += [f"present.{i}.key", f"present.{i}.value"]
    dyn = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "total_sequence"},
           "position_ids": {0: "batch", 1: "sequence"}, "logits": {0: "batch", 1: "sequence"}}
    for n in past_names:
        dyn[n] = {0: "batch", 2: "past_sequence"}
    for n in present_names:
        dyn[n] = {0: "batch", 2: "total_sequence"}
    # Trace with a non-empty past so that the concatenation stays in the graph.
    ex_past = [torch.zeros(2, KV, 1, D) for _ in range(2 * L)]
    ex_mask = torch.cat([torch.ones(2, 1, dtype=torch.int64), mask], dim=1)
    torch.onnx.export(m, (ids, ex_mask, pos + 1, *ex_past), "torch_small.onnx", opset_version=14,
                      input_names=names + past_names, output_names=["logits"] + present_names,
                      dynamic_axes=dyn)
    with open("weights.bin", "wb") as fb, open("weights.txt", "w") as ft:
        for name, a in builder_weights(m):
            fb.write(np.ascontiguousarray(a).astype("<f4").tobytes())
            ft.write(f"{name} {','.join(str(d) for d in a.shape)}\n")
    np.save("prefill_logits.npy", logits.numpy().astype(np.float32))
    np.save("prefill_present0k.npy", presents[0].numpy().astype(np.float32))
    np.save("step_logits.npy", step.numpy().astype(np.float32))
    with open("greedy.txt", "w") as f:
        for t in tokens:
            f.write(" ".join(str(x) for x in t) + "\n")


if __name__ == "__main__":
    main()
