#!/usr/bin/python3
"""Independent numpy forward pass of Llama 2 (transformers' modeling_llama
semantics, float64) on the seeded weights arch.go writes, for the golden file
reference.json: logits of a prompt at every position and a greedy
continuation. Run from this folder with Debian's python3-numpy:

    /usr/bin/python3 reference.py > reference.json
"""
import json
import math

import numpy as np

M = (1 << 64) - 1
CFG = dict(Layers=2, Hidden=32, Heads=4, KVHeads=2, Intermediate=48, Vocab=97,
           MaxPositions=256, RopeTheta=10000.0, RMSEps=1e-5)
SEED = 20230718  # ArchSeed
PROMPT = [1, 13, 72, 5, 40, 88, 29]
NEW = 8
EOS = 2


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


def linear(name, x, n_in, n_out):
    a = math.sqrt(3 / n_in)
    return x @ weights(name + ".weight", (n_in, n_out), -a, a)


def rms(name, x):
    w = weights(name + ".weight", (CFG["Hidden"],), 0.8, 1.2)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + CFG["RMSEps"]) * w


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], -1)


def forward(ids):
    c = CFG
    H, KV, W = c["Heads"], c["KVHeads"], c["Hidden"]
    D = W // H
    S = len(ids)
    x = weights("model.embed_tokens.weight", (c["Vocab"], W), -1, 1)[ids]
    inv = 1.0 / (c["RopeTheta"] ** (np.arange(0, D, 2) / D))
    freqs = np.arange(S)[:, None] * inv[None, :]
    emb = np.concatenate([freqs, freqs], -1)
    cos, sin = np.cos(emb)[:, None, :], np.sin(emb)[:, None, :]
    causal = np.tril(np.ones((S, S), bool))
    for l in range(c["Layers"]):
        p = f"model.layers.{l}."
        n = rms(p + "input_layernorm", x)
        q = linear(p + "self_attn.q_proj", n, W, H * D).reshape(S, H, D)
        k = linear(p + "self_attn.k_proj", n, W, KV * D).reshape(S, KV, D)
        v = linear(p + "self_attn.v_proj", n, W, KV * D).reshape(S, KV, D)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = np.repeat(k, H // KV, axis=1)  # repeat_kv: query head h uses kv head h // (H/KV)
        v = np.repeat(v, H // KV, axis=1)
        s = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(D)
        s = np.where(causal[None], s, -np.inf)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        a = np.einsum("hqk,khd->qhd", s, v).reshape(S, H * D)
        x = x + linear(p + "self_attn.o_proj", a, H * D, W)
        n = rms(p + "post_attention_layernorm", x)
        g = linear(p + "mlp.gate_proj", n, W, c["Intermediate"])
        u = linear(p + "mlp.up_proj", n, W, c["Intermediate"])
        x = x + linear(p + "mlp.down_proj", g / (1 + np.exp(-g)) * u, c["Intermediate"], W)
    return linear("lm_head", rms("model.norm", x), W, c["Vocab"])


def main():
    logits = forward(PROMPT)
    seq = list(PROMPT)
    gen = []
    for i in range(NEW):
        row = forward(seq)[-1].copy()
        if i == 0:
            row[EOS] = -np.inf  # min_new_tokens=1
        t = int(np.argmax(row))
        gen.append(t)
        seq.append(t)
        if t == EOS:
            break
    print(json.dumps({"config": CFG, "seed": SEED, "prompt": PROMPT, "eos": EOS, "max_new_tokens": NEW,
                      "logits": [float("%.7g" % v) for v in logits.ravel()], "greedy": gen}))


main()
