#!/usr/bin/env python3
"""Golden for models/whisper: a small Whisper built and run by PyTorch with
seeded weights, and PyTorch's outputs.

The network follows transformers' modeling_whisper
(WhisperForConditionalGeneration), written here with torch.nn layers:
encoder conv1 (kernel 3, padding 1) and conv2 (stride 2) with exact GELU,
the sinusoidal position table of whisper's sinusoids(), pre-LN layers
(LayerNorm eps 1e-5) of self-attention (queries scaled by head_dim^-0.5
after their bias, k_proj without bias) and a GELU MLP, a final LayerNorm;
decoder token and learned position embeddings, causal self-attention,
cross-attention over the encoder states, MLP, final LayerNorm and an
output projection. Sizes: 128 Mel bins, 3000 frames (1500 encoder
positions), width 32, 2 + 2 layers, 4 heads, MLP 64, vocabulary 97, 448
decoder positions.

Writes, in the current folder:
  weights.bin/.txt    the weights in the Go builder's names and layouts
                      (linear weights [in, out])
  encoder_rows.npy    last_hidden_state rows 0..9 and 1490..1499, [2, 20, 32]
  prefill_logits.npy  decoder logits of PROMPT for both rows, [2, 4, 97]
  prefill_cross0k.npy present.0.encoder.key rows 0..9, [2, 4, 10, 8]
  step_logits.npy     logits of one cached step feeding each row's argmax, [2, 1, 97]
  greedy.txt          8 greedy tokens per row (no end token)
Inputs (the Go test makes the same): input_features[b, m, t] =
float32((b·7 + m·13 + t·31) mod 97 / 97 − 0.5), b < 2; PROMPT.

Run with Debian's python3-torch 1.13: /usr/bin/python3 make_torch_small.py
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MELS, FRAMES, W, LE, LD, HEADS, FF, V, TPOS = 128, 3000, 32, 2, 2, 4, 64, 97, 448
SPOS = FRAMES // 2
HD = W // HEADS
EPS = 1e-5
PROMPT = [1, 5, 17, 33]
NEW = 8


def sinusoids(length, channels):
    inc = math.log(10000) / (channels // 2 - 1)
    inv = torch.exp(-inc * torch.arange(channels // 2, dtype=torch.float64))
    t = torch.arange(length, dtype=torch.float64)[:, None] * inv[None, :]
    return torch.cat([torch.sin(t), torch.cos(t)], dim=1).float()


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(W, W)
        self.k_proj = nn.Linear(W, W, bias=False)
        self.v_proj = nn.Linear(W, W)
        self.out_proj = nn.Linear(W, W)

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, HEADS, HD).transpose(1, 2)

    def kv(self, x):
        return self.split(self.k_proj(x)), self.split(self.v_proj(x))

    def forward(self, x, k, v, mask=None):
        q = self.split(self.q_proj(x) * HD ** -0.5)
        s = q @ k.transpose(-1, -2)
        if mask is not None:
            s = s + mask
        a = torch.softmax(s, dim=-1) @ v
        b, _, t, _ = a.shape
        return self.out_proj(a.transpose(1, 2).reshape(b, t, W))


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn = Attention()
        self.self_attn_layer_norm = nn.LayerNorm(W, eps=EPS)
        self.fc1 = nn.Linear(W, FF)
        self.fc2 = nn.Linear(FF, W)
        self.final_layer_norm = nn.LayerNorm(W, eps=EPS)

    def forward(self, x):
        h = self.self_attn_layer_norm(x)
        k, v = self.self_attn.kv(h)
        x = x + self.self_attn(h, k, v)
        return x + self.fc2(F.gelu(self.fc1(self.final_layer_norm(x))))


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn = Attention()
        self.self_attn_layer_norm = nn.LayerNorm(W, eps=EPS)
        self.encoder_attn = Attention()
        self.encoder_attn_layer_norm = nn.LayerNorm(W, eps=EPS)
        self.fc1 = nn.Linear(W, FF)
        self.fc2 = nn.Linear(FF, W)
        self.final_layer_norm = nn.LayerNorm(W, eps=EPS)

    def forward(self, x, mask, past_k, past_v, cross_k, cross_v):
        h = self.self_attn_layer_norm(x)
        k, v = self.self_attn.kv(h)
        k, v = torch.cat([past_k, k], 2), torch.cat([past_v, v], 2)
        x = x + self.self_attn(h, k, v, mask)
        x = x + self.encoder_attn(self.encoder_attn_layer_norm(x), cross_k, cross_v)
        x = x + self.fc2(F.gelu(self.fc1(self.final_layer_norm(x))))
        return x, k, v


class Whisper(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(MELS, W, 3, padding=1)
        self.conv2 = nn.Conv1d(W, W, 3, stride=2, padding=1)
        self.register_buffer("enc_pos", sinusoids(SPOS, W))
        self.enc_layers = nn.ModuleList([EncoderLayer() for _ in range(LE)])
        self.enc_norm = nn.LayerNorm(W, eps=EPS)
        self.embed_tokens = nn.Embedding(V, W)
        self.embed_positions = nn.Embedding(TPOS, W)
        self.dec_layers = nn.ModuleList([DecoderLayer() for _ in range(LD)])
        self.dec_norm = nn.LayerNorm(W, eps=EPS)
        self.proj_out = nn.Linear(W, V, bias=False)

    def encode(self, feats):
        x = F.gelu(self.conv1(feats))
        x = F.gelu(self.conv2(x)).transpose(1, 2)
        x = x + self.enc_pos
        for l in self.enc_layers:
            x = l(x)
        return self.enc_norm(x)

    def cross(self, enc):
        return [l.encoder_attn.kv(enc) for l in self.dec_layers]

    def decode(self, ids, past, cross):
        b, s = ids.shape
        p = past[0][0].shape[2]
        x = self.embed_tokens(ids) + self.embed_positions(torch.arange(p, p + s))
        rows = torch.arange(s)[:, None] + p
        cols = torch.arange(p + s)[None, :]
        mask = torch.where(cols <= rows, 0.0, torch.finfo(torch.float32).min)
        present = []
        for l, (pk, pv), (ck, cv) in zip(self.dec_layers, past, cross):
            x, k, v = l(x, mask, pk, pv, ck, cv)
            present.append((k, v))
        return self.proj_out(self.dec_norm(x)), present


def init(m):
    g = torch.Generator().manual_seed(20231106)
    with torch.no_grad():
        for name, p in m.named_parameters():
            if "norm" in name and name.endswith("weight"):
                p.copy_(torch.rand(p.shape, generator=g) * 0.4 + 0.8)
            elif name.endswith("bias"):
                p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * 0.05)
            elif name in ("embed_tokens.weight",):
                p.copy_(torch.rand(p.shape, generator=g) * 2 - 1)
            elif name == "embed_positions.weight":
                p.copy_(torch.rand(p.shape, generator=g) - 0.5)
            else:
                fan_in = p.shape[1] * (p.shape[2] if p.dim() == 3 else 1)
                p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * (3.0 / fan_in) ** 0.5)


def builder_weights(m):
    out = [("encoder.conv1.weight", m.conv1.weight), ("encoder.conv1.bias", m.conv1.bias),
           ("encoder.conv2.weight", m.conv2.weight), ("encoder.conv2.bias", m.conv2.bias),
           ("encoder.embed_positions.weight", m.enc_pos)]

    def lin(p, mod, bias=True):
        r = [(p + ".weight", mod.weight.t())]
        return r + [(p + ".bias", mod.bias)] if bias else r

    def ln(p, mod):
        return [(p + ".weight", mod.weight), (p + ".bias", mod.bias)]

    def attn(p, a):
        return lin(p + "q_proj", a.q_proj) + lin(p + "k_proj", a.k_proj, False) + lin(p + "v_proj", a.v_proj) + lin(p + "out_proj", a.out_proj)

    for i, l in enumerate(m.enc_layers):
        p = f"encoder.layers.{i}."
        out += ln(p + "self_attn_layer_norm", l.self_attn_layer_norm) + attn(p + "self_attn.", l.self_attn)
        out += ln(p + "final_layer_norm", l.final_layer_norm) + lin(p + "fc1", l.fc1) + lin(p + "fc2", l.fc2)
    out += ln("encoder.layer_norm", m.enc_norm)
    out += [("decoder.embed_tokens.weight", m.embed_tokens.weight), ("decoder.embed_positions.weight", m.embed_positions.weight)]
    for i, l in enumerate(m.dec_layers):
        p = f"decoder.layers.{i}."
        out += ln(p + "self_attn_layer_norm", l.self_attn_layer_norm) + attn(p + "self_attn.", l.self_attn)
        out += ln(p + "encoder_attn_layer_norm", l.encoder_attn_layer_norm) + attn(p + "encoder_attn.", l.encoder_attn)
        out += ln(p + "final_layer_norm", l.final_layer_norm) + lin(p + "fc1", l.fc1) + lin(p + "fc2", l.fc2)
    out += ln("decoder.layer_norm", m.dec_norm) + [("proj_out.weight", m.proj_out.weight.t())]
    return [(n, t.detach().contiguous().numpy().astype(np.float32)) for n, t in out]


def features():
    b = np.arange(2)[:, None, None]
    mm = np.arange(MELS)[None, :, None]
    t = np.arange(FRAMES)[None, None, :]
    return torch.from_numpy(((b * 7 + mm * 13 + t * 31) % 97 / 97 - 0.5).astype(np.float32))


def empty_past(b):
    return [(torch.zeros(b, HEADS, 0, HD), torch.zeros(b, HEADS, 0, HD)) for _ in range(LD)]


def main():
    m = Whisper().eval()
    init(m)
    with torch.no_grad():
        enc = m.encode(features())
        cross = m.cross(enc)
        ids = torch.tensor([PROMPT, PROMPT])
        logits, present = m.decode(ids, empty_past(2), cross)
        nxt = logits[:, -1].argmax(-1)[:, None]
        step, _ = m.decode(nxt, present, cross)
        greedy = [[] for _ in range(2)]
        past, cur = empty_past(2), ids
        for _ in range(NEW):
            lg, past = m.decode(cur, past, cross)
            tok = lg[:, -1].argmax(-1)
            for r in range(2):
                greedy[r].append(int(tok[r]))
            cur = tok[:, None]
    ws = builder_weights(m)
    with open("weights.txt", "w") as f:
        for n, a in ws:
            f.write(n + " " + ",".join(str(d) for d in a.shape) + "\n")
    with open("weights.bin", "wb") as f:
        for _, a in ws:
            f.write(a.astype("<f4").tobytes())
    np.save("encoder_rows.npy", torch.cat([enc[:, :10], enc[:, -10:]], 1).numpy())
    np.save("prefill_logits.npy", logits.numpy())
    np.save("prefill_cross0k.npy", np.ascontiguousarray(cross[0][0][:, :, :10].numpy()))
    np.save("step_logits.npy", step.numpy())
    with open("greedy.txt", "w") as f:
        for g in greedy:
            f.write(" ".join(map(str, g)) + "\n")


if __name__ == "__main__":
    main()
