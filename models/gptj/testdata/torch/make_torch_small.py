#!/usr/bin/env python3
"""Golden for models/gptj: a small GPT-J decoder built and exported by
PyTorch with seeded weights, and PyTorch's outputs.

The network follows transformers' modeling_gptj (GPTJForCausalLM): ln_1
LayerNorm (eps 1e-5), attention and MLP in parallel on it, rotary
embeddings on the first rotary_dim dimensions of each head in the
interleaved convention (rotate_every_two, sin/cos repeat-interleaved,
theta 10000), the rest passed through; q/k/v/out projections without bias;
fc_in, gelu_new (tanh), fc_out with bias; ln_f; lm_head with bias; float32
min on masked columns. Written with torch.nn layers at 2 layers of width 32
(2 heads of 16, rotary 8, MLP 128, vocabulary 101), exported in the optimum
"with past" I/O with the past length dynamic.

Writes, in the current folder:
  torch_small.onnx     the export (opset 14)
  weights.bin/.txt     the weights in the synthetic builder's names and
                       layouts (linear weights [in, out])
  prefill_logits.npy   logits [2, 6, 101] of the prefill below
  prefill_present0k.npy  present.0.key [2, 2, 6, 16] of that prefill
  step_logits.npy      logits [2, 1, 101] of one decode step after it
  greedy.txt           8 greedy tokens (no EOS) for each prompt alone
Inputs (the Go test makes the same): the two PROMPTS below; the prefill
batch left-pads the shorter with token 100 (attention_mask 0); position_ids
are cumsum(mask) - 1 per row, 1 at padded positions; the step feeds each
row's argmax of the prefill's last logits at the next position.

Run with Debian's python3-torch 1.13: /usr/bin/python3 make_torch_small.py
"""
import math

import numpy as np
import torch
import torch.nn as nn

L, H, HEADS, R, FF, V = 2, 32, 2, 8, 128, 101
D = H // HEADS
KV = HEADS
EPS = 1e-5
PAD = 100
PROMPTS = [[7, 5, 17, 33], [7, 40, 8, 61, 22, 90]]
NEW = 8


def rotate_every_two_matrix():
    """M with x @ M = modeling_gptj's rotate_every_two on the first R
    dimensions of a head (out[2i] = -x[2i+1], out[2i+1] = x[2i]) and 0 on
    the others; written as a matrix because torch 1.13 exports the
    stack/flatten and the split/concat of the partial rotary with wrong
    shapes."""
    m = torch.zeros(D, D)
    for i in range(R // 2):
        m[2 * i + 1, 2 * i] = -1.0
        m[2 * i, 2 * i + 1] = 1.0
    return m


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(H, eps=EPS)
        self.q_proj = nn.Linear(H, H, bias=False)
        self.k_proj = nn.Linear(H, H, bias=False)
        self.v_proj = nn.Linear(H, H, bias=False)
        self.out_proj = nn.Linear(H, H, bias=False)
        self.fc_in = nn.Linear(H, FF)
        self.fc_out = nn.Linear(FF, H)
        self.register_buffer("turn", rotate_every_two_matrix())

    def forward(self, x, sin, cos, mask, past_k, past_v):
        b, s, _ = x.shape
        n = self.ln_1(x)
        q = self.q_proj(n).view(b, s, HEADS, D)
        k = self.k_proj(n).view(b, s, HEADS, D)
        v = self.v_proj(n).view(b, s, HEADS, D)

        def rot(t):  # cos is 1 and sin 0 past the first R dimensions
            return t * cos + torch.matmul(t, self.turn) * sin

        q, k = rot(q).transpose(1, 2), rot(k).transpose(1, 2)
        v = v.transpose(1, 2)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(D) + mask
        # dim=3, not -1: torch 1.13 exports softmax(dim=-1) of this tensor
        # over another axis
        a = torch.matmul(torch.softmax(scores, dim=3), v).transpose(1, 2).reshape(b, s, H)
        x = x + self.out_proj(a) + self.fc_out(gelu_new(self.fc_in(n)))
        return x, k, v


class GPTJ(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(V, H)
        self.layers = nn.ModuleList([Layer() for _ in range(L)])
        self.ln_f = nn.LayerNorm(H, eps=EPS)
        self.lm_head = nn.Linear(H, V)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, R, 2).float() / R)))

    def forward(self, input_ids, attention_mask, position_ids, *past):
        b, s = input_ids.shape
        x = self.wte(input_ids)
        ang = position_ids[:, :, None].float() * self.inv_freq[None, None, :]  # [B,S,R/2]
        # sin/cos repeat-interleaved over the first R dimensions, then
        # sin 0 and cos 1 over the pass-through ones: [B,S,1,D]
        sin = ang.sin().repeat_interleave(2, dim=-1)
        cos = ang.cos().repeat_interleave(2, dim=-1)
        sin = torch.cat([sin, torch.zeros_like(sin[:, :, :1]).expand(-1, -1, D - R)], dim=-1)[:, :, None, :]
        cos = torch.cat([cos, torch.ones_like(cos[:, :, :1]).expand(-1, -1, D - R)], dim=-1)[:, :, None, :]
        p = past[0].shape[2]
        t = attention_mask.shape[1]
        rows = torch.arange(s)[:, None] + p
        cols = torch.arange(t)[None, :]
        allowed = (cols <= rows)[None, None] & (attention_mask[:, None, None, :] > 0)
        lowest = torch.finfo(torch.float32).min
        mask = torch.where(allowed, torch.zeros((), dtype=torch.float32), torch.full((), lowest))
        presents = []
        for i, layer in enumerate(self.layers):
            x, k, v = layer(x, sin, cos, mask, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        return (self.lm_head(self.ln_f(x)), *presents)


def init(m):
    g = torch.Generator().manual_seed(20230605)
    with torch.no_grad():
        for name, p in m.named_parameters():
            if "ln_" in name and name.endswith("weight"):
                p.copy_(torch.rand(p.shape, generator=g) * 0.4 + 0.8)
            elif p.dim() == 1:
                p.copy_(torch.rand(p.shape, generator=g) * 0.1 - 0.05)
            elif name == "wte.weight":
                p.copy_(torch.rand(p.shape, generator=g) * 2 - 1)
            else:
                a = (3.0 / p.shape[1]) ** 0.5
                p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * a)


def builder_weights(m):
    out = [("transformer.wte.weight", m.wte.weight)]
    for i, l in enumerate(m.layers):
        p = f"transformer.h.{i}."
        out += [(p + "ln_1.weight", l.ln_1.weight), (p + "ln_1.bias", l.ln_1.bias)]
        for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
            out.append((p + "attn." + n + ".weight", getattr(l, n).weight.t()))
        for n in ("fc_in", "fc_out"):
            out += [(p + "mlp." + n + ".weight", getattr(l, n).weight.t()), (p + "mlp." + n + ".bias", getattr(l, n).bias)]
    out += [("transformer.ln_f.weight", m.ln_f.weight), ("transformer.ln_f.bias", m.ln_f.bias)]
    out += [("lm_head.weight", m.lm_head.weight.t()), ("lm_head.bias", m.lm_head.bias)]
    return [(n, t.detach().numpy().astype(np.float32)) for n, t in out]


def empty_past(b):
    return [torch.zeros(b, KV, 0, D) for _ in range(2 * L)]


def prefill_inputs():
    s = max(len(p) for p in PROMPTS)
    ids = torch.full((len(PROMPTS), s), PAD, dtype=torch.int64)
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
    m = GPTJ().eval()
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
