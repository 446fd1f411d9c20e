#!/usr/bin/python3
"""Independent numpy forward pass of GPT-J (transformers' modeling_gptj
semantics, float64) on the seeded weights arch.go writes, for the golden file
reference.json: logits of a prompt at every position and a greedy
continuation. Run from this folder with Debian's python3-numpy:

    /usr/bin/python3 reference.py > reference.json
"""
import json
import math

import numpy as np

M = (1 << 64) - 1
CFG = dict(Layers=2, Hidden=32, Heads=2, RotaryDim=8, Inner=128, Vocab=101, MaxPositions=256, LNEps=1e-5)
SEED = 20210609  # ArchSeed
PROMPT = [50 % 101, 7, 99, 12, 64, 3, 31, 77]
NEW = 8
EOS = 100  # the pad/EOS of a 101-token vocabulary: min(50256, vocab-1)


def stream_seed(seed, name):
    h = 14695981039346656037
    for c in name.encode():
        h ^= c
        h = (h * 1099511628211) & M
    return seed ^ h


def weights(name, shape, lo, hi):
    """onnx.Init: lo + (hi-lo)*u_i, u_i from SplitMix64 seeded by name, as float32."""
    n = int(np.prod(shape))
    with np.errstate(over="ignore"):
        i = np.arange(1, n + 1, dtype=np.uint64)
        z = np.uint64(stream_seed(SEED, name)) + i * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    v = lo + (hi - lo) * u
    return v.astype(np.float32).astype(np.float64).reshape(shape)


def linear(name, x, n_in, n_out, bias):
    a = math.sqrt(3 / n_in)
    y = x @ weights(name + ".weight", (n_in, n_out), -a, a)
    if bias:
        y = y + weights(name + ".bias", (n_out,), -0.05, 0.05)
    return y


def layer_norm(name, x):
    W = CFG["Hidden"]
    w = weights(name + ".weight", (W,), 0.8, 1.2)
    b = weights(name + ".bias", (W,), -0.05, 0.05)
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + CFG["LNEps"]) * w + b


def gelu_new(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def rotate_every_two(x):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return np.stack([-x2, x1], -1).reshape(x.shape)


def forward(ids):
    c = CFG
    H, W, R = c["Heads"], c["Hidden"], c["RotaryDim"]
    D = W // H
    S = len(ids)
    x = weights("transformer.wte.weight", (c["Vocab"], W), -1, 1)[ids]
    inv = 1.0 / (10000 ** (np.arange(0, R, 2) / R))
    ang = np.arange(S)[:, None] * inv[None, :]
    sin = np.repeat(np.sin(ang), 2, axis=-1)[:, None, :]  # duplicate_interleave
    cos = np.repeat(np.cos(ang), 2, axis=-1)[:, None, :]

    def rotary(t):
        r = t[..., :R] * cos + rotate_every_two(t[..., :R]) * sin
        return np.concatenate([r, t[..., R:]], -1)

    causal = np.tril(np.ones((S, S), bool))
    for l in range(c["Layers"]):
        p = f"transformer.h.{l}."
        n = layer_norm(p + "ln_1", x)
        q = rotary(linear(p + "attn.q_proj", n, W, W, False).reshape(S, H, D))
        k = rotary(linear(p + "attn.k_proj", n, W, W, False).reshape(S, H, D))
        v = linear(p + "attn.v_proj", n, W, W, False).reshape(S, H, D)
        s = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(D)
        s = np.where(causal[None], s, -np.inf)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        a = np.einsum("hqk,khd->qhd", s, v).reshape(S, W)
        attn = linear(p + "attn.out_proj", a, W, W, False)
        ff = linear(p + "mlp.fc_out", gelu_new(linear(p + "mlp.fc_in", n, W, c["Inner"], True)), c["Inner"], W, True)
        x = attn + ff + x
    return linear("lm_head", layer_norm("transformer.ln_f", x), W, c["Vocab"], True)


def main():
    logits = forward(PROMPT)
    seq = list(PROMPT)
    gen = []
    for i in range(NEW):
        row = forward(seq)[-1].copy()
        if i == 0:
            row[EOS] = -np.inf
        t = int(np.argmax(row))
        gen.append(t)
        seq.append(t)
        if t == EOS:
            break
    print(json.dumps({"config": CFG, "seed": SEED, "prompt": PROMPT, "eos": EOS, "max_new_tokens": NEW,
                      "logits": [float("%.7g" % v) for v in logits.ravel()], "greedy": gen}))


main()
