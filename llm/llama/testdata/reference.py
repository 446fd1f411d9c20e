#!/usr/bin/python3
"""Goldens for llm/llama, from numpy alone (Debian's python3-numpy):

    /usr/bin/python3 reference.py

writes, in this folder:
  rope_golden.json  rotary inverse frequencies of transformers'
                    _compute_default_rope_parameters and
                    _compute_llama3_parameters (modeling_rope_utils.py),
                    the formula transcribed op by op on float32 arrays, for
                    Llama 3.1 8B's head (128, theta 500000, factor 8,
                    low_freq_factor 1, high_freq_factor 4, original 8192),
                    the tiny model's head (16) and two other settings;
  reference.json    an independent float64 forward pass of a small
                    Llama-3-style decoder (grouped-query attention, theta
                    500000 replaced by 10000 and a rope scaling whose three
                    bands fall inside a 16-token prompt) on the seeded
                    weights the Go builder writes: the prompt's logits and
                    a greedy continuation (llm/decoder/decodertest.Golden).
"""
import json
import math

import numpy as np

F = np.float32


def default_inv_freq(dim, base):
    # 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    e = np.arange(0, dim, 2, dtype=np.int64).astype(F) / F(dim)
    return (F(1.0) / (F(base) ** e)).astype(F)


def llama3_inv_freq(dim, base, factor, low_freq_factor, high_freq_factor, old_context_len):
    inv_freq = default_inv_freq(dim, base)
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = F(2 * math.pi) / inv_freq
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / F(factor), inv_freq).astype(F)
    smooth_factor = ((F(old_context_len) / wavelen - F(low_freq_factor)) / F(high_freq_factor - low_freq_factor)).astype(F)
    smoothed_inv_freq = ((F(1) - smooth_factor) * inv_freq_llama / F(factor) + smooth_factor * inv_freq_llama).astype(F)
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama).astype(F)


ROPE_CASES = [
    dict(name="llama3.1-8b", dim=128, theta=500000.0, scaling=dict(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=8192)),
    dict(name="tiny", dim=16, theta=500000.0, scaling=dict(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=8192)),
    dict(name="other", dim=64, theta=10000.0, scaling=dict(factor=4.0, low_freq_factor=2.0, high_freq_factor=8.0, original_max_position_embeddings=1024)),
    dict(name="unscaled", dim=128, theta=500000.0, scaling=None),
]


def rope_golden():
    out = []
    for c in ROPE_CASES:
        s = c["scaling"]
        if s is None:
            inv = default_inv_freq(c["dim"], c["theta"])
        else:
            inv = llama3_inv_freq(c["dim"], c["theta"], s["factor"], s["low_freq_factor"], s["high_freq_factor"],
                                  s["original_max_position_embeddings"])
        out.append(dict(c, inv_freq=[float(repr(float(v))) for v in inv]))
    return out


# --- forward pass -----------------------------------------------------------

M = (1 << 64) - 1
CFG = dict(Layers=2, Hidden=32, Heads=4, KVHeads=2, Intermediate=48, Vocab=97, MaxPositions=256, RopeTheta=10000.0,
           RMSEps=1e-5, RopeScaling=dict(Factor=8.0, LowFreqFactor=1.0, HighFreqFactor=4.0, OriginalMaxPositions=64))
SEED = 20240723  # refSeed of ort_test.go
PROMPT = [5, 13, 72, 5, 40, 88, 29, 3, 61, 17, 90, 44, 8, 25, 70, 11]
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
    s = c["RopeScaling"]
    inv = llama3_inv_freq(D, c["RopeTheta"], s["Factor"], s["LowFreqFactor"], s["HighFreqFactor"],
                          s["OriginalMaxPositions"]).astype(np.float64)
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
        sc = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(D)
        sc = np.where(causal[None], sc, -np.inf)
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        sc /= sc.sum(-1, keepdims=True)
        a = np.einsum("hqk,khd->qhd", sc, v).reshape(S, H * D)
        x = x + linear(p + "self_attn.o_proj", a, H * D, W)
        n = rms(p + "post_attention_layernorm", x)
        g = linear(p + "mlp.gate_proj", n, W, c["Intermediate"])
        u = linear(p + "mlp.up_proj", n, W, c["Intermediate"])
        x = x + linear(p + "mlp.down_proj", g / (1 + np.exp(-g)) * u, c["Intermediate"], W)
    return linear("lm_head", rms("model.norm", x), W, c["Vocab"])


def reference():
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
    return {"config": CFG, "seed": SEED, "prompt": PROMPT, "eos": EOS, "max_new_tokens": NEW,
            "logits": [float("%.7g" % v) for v in logits.ravel()], "greedy": gen}


def main():
    with open("rope_golden.json", "w") as f:
        json.dump(rope_golden(), f, indent=1)
        f.write("\n")
    with open("reference.json", "w") as f:
        json.dump(reference(), f)
        f.write("\n")


main()
