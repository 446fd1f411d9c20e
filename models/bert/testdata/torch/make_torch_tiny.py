#!/usr/bin/env python3
"""Golden for models/bert: a small BERT for question answering built and
exported by PyTorch with seeded weights, and PyTorch's logits on fixed
inputs.

The network is BertForQuestionAnswering as the MLPerf reference runs it
(Hugging Face BERT, post-LayerNorm, eps 1e-12, exact GELU, additive mask
(1 - mask) * -10000, QA head dense H->2 split into start and end), written
with torch.nn layers, at 2 layers of width 32 (2 heads, feed-forward 128),
a 1000-word vocabulary and 384 positions, under the official ONNX file's
names (input_ids, input_mask, segment_ids -> output_start_logits,
output_end_logits).

Writes, in the current folder:
  torch_small.onnx  torch.onnx.export of the model (opset 13, batch dynamic)
  weights.bin       every parameter as float32 little-endian in the
  weights.txt       synthetic builder's names and layouts (dense weights
                    [in, out]); weights.txt: "name dim,dim,..." per tensor
  start.npy end.npy PyTorch's logits [2, 384] on the inputs below
Inputs (the Go test makes the same), n < 2, s < 384:
  input_ids[n,s]   = (n*7 + s*13 + (s*s) % 17) % 1000
  input_mask[n,s]  = 1 if s < (300, 384)[n] else 0
  segment_ids[n,s] = 1 if 24 <= s < (300, 384)[n] else 0

Run with Debian's python3-torch 1.13: /usr/bin/python3 make_torch_tiny.py
"""
import math

import numpy as np
import torch
import torch.nn as nn

L, H, HEADS, FF, V, P, S = 2, 32, 2, 128, 1000, 384, 384
EPS = 1e-12


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, H)
        self.att_out = nn.Linear(H, H)
        self.att_ln = nn.LayerNorm(H, eps=EPS)
        self.inter = nn.Linear(H, FF)
        self.out = nn.Linear(FF, H)
        self.out_ln = nn.LayerNorm(H, eps=EPS)

    def forward(self, x, mask):
        n, s, _ = x.shape
        dh = H // HEADS

        def heads(y):
            return y.view(n, s, HEADS, dh).permute(0, 2, 1, 3)

        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh) + mask
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).reshape(n, s, H)
        x = self.att_ln(self.att_out(ctx) + x)
        y = self.out(torch.nn.functional.gelu(self.inter(x)))
        return self.out_ln(y + x)


class BertQA(nn.Module):
    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(V, H)
        self.pos = nn.Embedding(P, H)
        self.typ = nn.Embedding(2, H)
        self.emb_ln = nn.LayerNorm(H, eps=EPS)
        self.layers = nn.ModuleList([Layer() for _ in range(L)])
        self.qa = nn.Linear(H, 2)

    def forward(self, input_ids, input_mask, segment_ids):
        s = input_ids.shape[1]
        x = self.word(input_ids) + self.typ(segment_ids) + self.pos(torch.arange(s).unsqueeze(0))
        x = self.emb_ln(x)
        mask = (1.0 - input_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        logits = self.qa(x)
        start, end = logits.split(1, dim=-1)
        return start.squeeze(-1), end.squeeze(-1)


def init(m):
    g = torch.Generator().manual_seed(20191106)
    with torch.no_grad():
        for name, p in m.named_parameters():
            if name.endswith("ln.weight"):
                p.copy_(torch.rand(p.shape, generator=g) * 0.4 + 0.8)
            elif name.endswith("ln.bias"):
                p.copy_(torch.rand(p.shape, generator=g) * 0.2 - 0.1)
            elif p.dim() == 1:
                p.copy_(torch.rand(p.shape, generator=g) * 0.1 - 0.05)
            else:
                p.copy_(torch.randn(p.shape, generator=g) * 0.2)


def builder_weights(m):
    out = [("bert.embeddings.word_embeddings.weight", m.word.weight),
           ("bert.embeddings.position_embeddings.weight", m.pos.weight),
           ("bert.embeddings.token_type_embeddings.weight", m.typ.weight),
           ("bert.embeddings.LayerNorm.weight", m.emb_ln.weight),
           ("bert.embeddings.LayerNorm.bias", m.emb_ln.bias)]

    def dense(name, lin):
        out.append((name + ".weight", lin.weight.t()))
        out.append((name + ".bias", lin.bias))

    def ln(name, norm):
        out.append((name + ".weight", norm.weight))
        out.append((name + ".bias", norm.bias))

    for i, layer in enumerate(m.layers):
        p = f"bert.encoder.layer.{i}"
        dense(p + ".attention.self.query", layer.query)
        dense(p + ".attention.self.key", layer.key)
        dense(p + ".attention.self.value", layer.value)
        dense(p + ".attention.output.dense", layer.att_out)
        ln(p + ".attention.output.LayerNorm", layer.att_ln)
        dense(p + ".intermediate.dense", layer.inter)
        dense(p + ".output.dense", layer.out)
        ln(p + ".output.LayerNorm", layer.out_ln)
    dense("qa_outputs", m.qa)
    return [(n, t.detach().numpy().astype(np.float32)) for n, t in out]


def inputs():
    n, s = np.meshgrid(np.arange(2), np.arange(S), indexing="ij")
    ids = (n * 7 + s * 13 + (s * s) % 17) % 1000
    length = np.where(n == 0, 300, 384)
    mask = (s < length).astype(np.int64)
    seg = ((s >= 24) & (s < length)).astype(np.int64)
    return [torch.from_numpy(a.astype(np.int64)) for a in (ids, mask, seg)]


def main():
    m = BertQA().eval()
    init(m)
    x = inputs()
    with torch.no_grad():
        start, end = m(*x)
    names = ["input_ids", "input_mask", "segment_ids"]
    torch.onnx.export(m, tuple(x), "torch_small.onnx", opset_version=13, input_names=names,
                      output_names=["output_start_logits", "output_end_logits"],
                      dynamic_axes={k: {0: "batch_size"} for k in names + ["output_start_logits", "output_end_logits"]})
    with open("weights.bin", "wb") as fb, open("weights.txt", "w") as ft:
        for name, a in builder_weights(m):
            fb.write(np.ascontiguousarray(a).astype("<f4").tobytes())
            ft.write(f"{name} {','.join(str(d) for d in a.shape)}\n")
    np.save("start.npy", start.numpy().astype(np.float32))
    np.save("end.npy", end.numpy().astype(np.float32))


if __name__ == "__main__":
    main()
