#!/usr/bin/python3
"""Pickle fixtures for the Go pickle reader (datasets/kits19/pickle.go).

Run with Debian's python3-numpy from this folder:
    /usr/bin/python3 make_pickles.py
It writes, the way the MLPerf reference's preprocess.py does
(mlcommons/inference vision/medical_imaging/3d-unet-kits19: pickle.dump of
[image, label] per case, and of {"file_list", "cases"} for the index) but
with small arrays, at Python's default protocol (4) and at protocol 2:
  pickles/case_00007.pkl, pickles/case_00007_p2.pkl, pickles/preprocessed_files.pkl
"""
import os
import pickle

import numpy as np

os.makedirs("pickles", exist_ok=True)
image = (np.arange(1 * 4 * 5 * 6, dtype=np.float32).reshape(1, 4, 5, 6) - 50) / np.float32(7.5)
label = (np.arange(1 * 4 * 5 * 6) % 3).astype(np.uint8).reshape(1, 4, 5, 6)
with open("pickles/case_00007.pkl", "wb") as f:
    pickle.dump([image, label], f)
with open("pickles/case_00007_p2.pkl", "wb") as f:
    pickle.dump([image, label], f, protocol=2)
aff = np.array([[0, 0, -0.78125, 0], [0, -0.78125, 0, 0], [-3.0, 0, 0, 0], [0, 0, 0, 1]])
aux = {
    "file_list": ["case_00007", "case_00400"],
    "cases": {
        c: {
            "original_affine": aff,
            "reshaped_affine": np.array([[0, 0, -1.2, 0], [0, -1.2, 0, 0], [-1.6, 0, 0, 0], [0, 0, 0, 1]]),
            "zoom_factor": np.array([3.0, 0.78125, 0.78125]) / np.array([1.6, 1.2, 1.2]),
            "case": c,
            "image_shape": (1, 256, 192, 320 + i * 64),
        }
        for i, c in enumerate(["case_00007", "case_00400"])
    },
}
with open("pickles/preprocessed_files.pkl", "wb") as f:
    pickle.dump(aux, f)
