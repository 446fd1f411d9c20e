#!/usr/bin/python3
"""Writes golden.json: SHA-256 of the RetinaNet reference preprocessing of
the photos in preprocess/testdata/images, computed with OpenCV itself.

Test tooling, not part of the Go build. Needs Debian's python3-opencv (4.6)
and python3-numpy; run from the repository root:

    /usr/bin/python3 models/retinanet/testdata/make_golden.py

The pipeline is pre_process_openimages_retinanet with maybe_resize of
vision/classification_and_detection/python/dataset.py (mlcommons/inference),
fed by cv2.imread as python/openimages.py does, with dims (800, 800, 3)
and need_transpose=True (the NCHW ONNX profile).
"""
import hashlib
import json
import os

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = os.path.join(HERE, "..", "..", "..", "preprocess", "testdata", "images")

# Landscape, portrait, grayscale, EXIF-rotated (orientations 3, 6 and 8,
# big- and little-endian), tiny, CMYK, progressive, 4:4:4, a square
# smaller than 800 and one larger.
NAMES = [
    "HappyFish.jpg", "messi5.jpg", "fruits_tall.jpg", "left01.jpg",
    "fish_exif3.jpg", "fish_exif6.jpg", "fish_exif8.jpg", "messi_exif6_be.jpg",
    "fruits_tiny.jpg", "fruits_cmyk.jpg", "fruits_prog.jpg", "fruits_444.jpg",
    "baboon.jpg", "starry_night.jpg",
]


def maybe_resize(img, dims):
    img = np.array(img, dtype=np.float32)
    if len(img.shape) < 3 or img.shape[2] != 3:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2RGB)
    img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    if dims is not None:
        im_height, im_width, _ = dims
        img = cv2.resize(img, (im_width, im_height), interpolation=cv2.INTER_LINEAR)
    return img


def pre_process_openimages_retinanet(img, dims=None, need_transpose=False):
    img = maybe_resize(img, dims)
    img /= 255.0
    if need_transpose:
        img = img.transpose([2, 0, 1])
    return img


def main():
    out = {"opencv": cv2.__version__, "images": {}}
    for name in NAMES:
        img = cv2.imread(os.path.join(IMAGES, name))
        x = pre_process_openimages_retinanet(img, dims=(800, 800, 3), need_transpose=True)
        assert x.dtype == np.float32 and x.shape == (3, 800, 800)
        out["images"][name] = {
            "height": int(img.shape[0]),
            "width": int(img.shape[1]),
            "sha256": hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest(),
            "sum": float(x.astype(np.float64).sum()),
        }
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
