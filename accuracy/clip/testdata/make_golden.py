#!/usr/bin/env python3
"""Goldens for accuracy/clip/clip.go: the CLIP score of float32 feature vectors
as clip_encoder.py computes it (features / norm in float32, similarity =
image @ text.T in float32, 100 * .item(), np.mean over samples), with
numpy's float32 kernels standing in for torch's.

  /usr/bin/python3 make_golden.py
"""
import json, os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(5)
n, d = 24, 512  # ViT-B/32 embeds in 512 dimensions
img = rng.normal(size=(n, d)).astype(np.float32)
txt = (0.3 * img + rng.normal(size=(n, d))).astype(np.float32)
txt[0] *= 1e3  # scale does not matter
np.save(os.path.join(here, "image_features.npy"), img)
np.save(os.path.join(here, "text_features.npy"), txt)
scores = []
for i in range(n):
    a = img[i:i + 1].copy(); b = txt[i:i + 1].copy()
    a /= np.linalg.norm(a, axis=-1, keepdims=True)
    b /= np.linalg.norm(b, axis=-1, keepdims=True)
    sim = a @ b.T
    assert sim.dtype == np.float32
    scores.append(100 * sim.item())
with open(os.path.join(here, "golden.json"), "w") as f:
    json.dump({"scores": [repr(s) for s in scores], "clip_score": f"{np.mean(scores)}", "numpy": np.__version__}, f, indent=1)
    f.write("\n")
