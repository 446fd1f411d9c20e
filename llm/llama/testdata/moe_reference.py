#!/usr/bin/python3
"""Goldens of the sparse mixture of experts (llama.MoE, Mixtral), from
numpy alone (Debian's python3-numpy):

    /usr/bin/python3 moe_reference.py

writes, in this folder:
  moe_golden.json        one MoE block (hidden 16, 8 experts of width 24,
                         top 2) on 12 tokens, as transformers'
                         MixtralSparseMoeBlock computes it: router logits,
                         softmax over all 8, the top 2, renormalised by
                         their sum, and the weighted sum of the chosen
                         experts' SwiGLU outputs; the tokens, the chosen
                         experts, their weights and the output;
  mixtral_reference.json an independent float64 forward pass of a small
                         Mixtral-style decoder (2 layers, grouped-query
                         attention, RoPE theta 1e6, 8 experts, top 2): the
                         prompt's logits and a greedy continuation
                         (llm/decoder/decodertest.Golden).

The weights are those the Go builder draws (onnx.Init from a SplitMix64
stream seeded by the graph seed and the weight's name), recomputed here.
The script refuses a golden whose routing is a near tie (the 2nd and 3rd
probabilities of some token closer than 1e-3), where float32 and float64
could choose differently.
"""
import json
import math

import numpy as np

M = (1 << 64) - 1
SEED = 20231211  # moeSeed of moe_ort_test.go


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


MARGINS = []


def sparse_moe(prefix, x, hidden, inter, experts, top_k):
    """MixtralSparseMoeBlock.forward on x [T, hidden]."""
    p = prefix + "block_sparse_moe."
    logits = linear(p + "gate", x, hidden, experts)
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)  # softmax(router_logits, dim=1)
    order = np.argsort(-probs, axis=-1, kind="stable")
    chosen = order[:, :top_k]  # torch.topk(routing_weights, top_k)
    top = np.take_along_axis(probs, chosen, -1)
    srt = np.sort(probs, -1)[:, ::-1]
    MARGINS.append(float((srt[:, top_k - 1] - srt[:, top_k]).min()))
    w = top / top.sum(-1, keepdims=True)  # routing_weights /= sum
    out = np.zeros_like(x)
    for e in range(experts):  # the index_add_ loop, expert by expert
        tok, slot = np.nonzero(chosen == e)
        if len(tok) == 0:
            continue
        q = f"{p}experts.{e}."
        xs = x[tok]
        g = linear(q + "w1", xs, hidden, inter)
        u = linear(q + "w3", xs, hidden, inter)
        y = linear(q + "w2", g / (1 + np.exp(-g)) * u, inter, hidden)
        out[tok] += y * w[tok, slot][:, None]
    return out, chosen, w


def moe_golden():
    H, I, E, K, T = 16, 24, 8, 2, 12
    x = weights("test.x", (T, H), -2, 2)
    out, chosen, w = sparse_moe("model.layers.0.", x, H, I, E, K)
    return {"hidden": H, "intermediate": I, "experts": E, "top_k": K, "seed": SEED, "prefix": "model.layers.0.",
            "x": [float(repr(float(np.float32(v)))) for v in x.ravel()],
            "chosen": chosen.tolist(), "weights": [[float("%.9g" % v) for v in r] for r in w],
            "out": [float("%.9g" % v) for v in out.ravel()]}


CFG = dict(Layers=2, Hidden=32, Heads=4, KVHeads=2, Intermediate=48, Vocab=97, MaxPositions=256, RopeTheta=1e6,
           RMSEps=1e-5, Experts=8, ExpertsPerToken=2)
PROMPT = [5, 13, 72, 5, 40, 88, 29, 3, 61, 17, 90, 44, 8, 25, 70, 11]
NEW = 8
EOS = 2


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
    e = np.arange(0, D, 2, dtype=np.int64).astype(np.float32) / np.float32(D)
    inv = (np.float32(1.0) / (np.float32(c["RopeTheta"]) ** e)).astype(np.float32).astype(np.float64)
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
        k = np.repeat(k, H // KV, axis=1)
        v = np.repeat(v, H // KV, axis=1)
        sc = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(D)
        sc = np.where(causal[None], sc, -np.inf)
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        sc /= sc.sum(-1, keepdims=True)
        a = np.einsum("hqk,khd->qhd", sc, v).reshape(S, H * D)
        x = x + linear(p + "self_attn.o_proj", a, H * D, W)
        n = rms(p + "post_attention_layernorm", x)
        x = x + sparse_moe(p, n, W, c["Intermediate"], c["Experts"], c["ExpertsPerToken"])[0]
    return linear("lm_head", rms("model.norm", x), W, c["Vocab"])


def reference():
    logits = forward(PROMPT)
    seq = list(PROMPT)
    gen = []
    for i in range(NEW):
        row = forward(seq)[-1].copy()
        if i == 0:
            row[EOS] = -np.inf  # decodertest.CheckGolden decodes with min_new_tokens 1
        t = int(np.argmax(row))
        gen.append(t)
        seq.append(t)
        if t == EOS:
            break
    return {"config": CFG, "seed": SEED, "prompt": PROMPT, "eos": EOS, "max_new_tokens": NEW,
            "logits": [float("%.7g" % v) for v in logits.ravel()], "greedy": gen}


def main():
    block = moe_golden()
    ref = reference()
    if min(MARGINS) < 1e-3:
        raise SystemExit(f"routing near a tie (margin {min(MARGINS):g}): change the seed or the prompt")
    print(f"smallest margin between the 2nd and 3rd expert: {min(MARGINS):.4g}")
    with open("moe_golden.json", "w") as f:
        json.dump(block, f)
        f.write("\n")
    with open("mixtral_reference.json", "w") as f:
        json.dump(ref, f)
        f.write("\n")


main()
