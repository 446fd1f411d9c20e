#!/usr/bin/python3
"""Goldens for the Go sliding window (models/unet3d window.go).

Run with Debian's python3-scipy (1.10) from this folder:
    /usr/bin/python3 make_golden.py
It computes, as the MLPerf reference does (mlcommons/inference
vision/medical_imaging/3d-unet-kits19 inference_utils.py and base_SUT.py):
  importance.npy   the Gaussian importance map (float32) sampled every 9th
                   voxel along each axis: map[::9, ::9, ::9]
  golden.json      the SHA-256 of the whole float32 map, and of the uint8
                   labels of a sliding-window pass over a 192x128x192
                   volume whose "model" returns the fake logits of
                   fake_logits below
"""
import hashlib
import json

import numpy as np
from scipy import signal

N = 128
STRIDE = 64


def importance_map():
    g = signal.windows.gaussian(N, 0.125 * N)
    g2 = np.outer(g, g)
    g3 = np.outer(g2, g).reshape(N, N, N)
    g3 = np.cbrt(g3)
    g3 /= g3.max()
    return g3.astype(np.float32)


def fake_logits(w):
    # logits[c, i, j, k] = ((w*7 + c*37 + flat*13) % 101) / 50 - 1, float32
    flat = np.arange(N * N * N, dtype=np.int64).reshape(N, N, N)
    out = np.empty((3, N, N, N), dtype=np.float32)
    for c in range(3):
        out[c] = (((w * 7 + c * 37 + flat * 13) % 101).astype(np.float32) / np.float32(50)) - np.float32(1)
    return out


def sliding(shape, kernel):
    result = np.zeros((1, 3) + shape, dtype=np.float32)
    norm = np.zeros_like(result)
    n = [(s - N) // STRIDE + 1 for s in shape]
    w = 0
    for i in range(0, STRIDE * n[0], STRIDE):
        for j in range(0, STRIDE * n[1], STRIDE):
            for k in range(0, STRIDE * n[2], STRIDE):
                sl = (Ellipsis, slice(i, i + N), slice(j, j + N), slice(k, k + N))
                result[sl] += fake_logits(w) * kernel
                norm[sl] += kernel
                w += 1
    result /= norm
    return np.argmax(result, axis=1).astype(np.uint8)


def main():
    k = importance_map()
    np.save("importance.npy", k[::9, ::9, ::9])
    labels = sliding((192, 128, 192), k)
    out = {
        "map_sha256": hashlib.sha256(k.tobytes()).hexdigest(),
        "map_max_index": list(np.unravel_index(np.argmax(k), k.shape)),
        "labels_shape": [192, 128, 192],
        "labels_sha256": hashlib.sha256(labels.tobytes()).hexdigest(),
        "labels_counts": np.bincount(labels.ravel(), minlength=3).tolist(),
    }
    with open("golden.json", "w") as f:
        json.dump(out, f, indent=1, default=int)


if __name__ == "__main__":
    main()
