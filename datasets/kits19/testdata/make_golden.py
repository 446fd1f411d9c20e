#!/usr/bin/python3
"""Goldens for the Go KiTS19 preprocessing (datasets/kits19).

Run with Debian's python3-scipy (1.10) and python3-nibabel from this folder:
    /usr/bin/python3 make_golden.py
It writes small raw cases raw/case_XXXXX/{imaging,segmentation}.nii.gz with
nibabel and, per case, what the MLPerf reference's preprocess.py
(mlcommons/inference vision/medical_imaging/3d-unet-kits19) computes from
them, following its steps with the same numpy/scipy calls:
  golden/<case>_zoomed.npy        image after scipy.ndimage.zoom (float32)
  golden/<case>_zoomed_label.npy  label after zoom (uint8)
  golden.json                     per case: spacing, zoom factor, affines,
                                  final image shape and the SHA-256 of the
                                  final image (float32) and label (uint8)
                                  bytes in C order.
"""
import hashlib
import json
import os

import nibabel
import numpy as np
from scipy.ndimage import zoom

TARGET = [1.6, 1.2, 1.2]
ROI, STRIDE = 128, 64

rng = np.random.default_rng(20190812)

# name, shape, spacing, dtype, affine style
CASES = [
    ("case_00001", (7, 9, 11), (2.5, 0.7, 0.93), np.float32, "kits"),
    ("case_00002", (140, 6, 5), (1.6, 1.2, 1.2), np.float32, "diag"),
    ("case_00003", (85, 10, 8), (3.2, 2.4, 0.6), np.float32, "kits"),
    ("case_00004", (4, 5, 3), (2.8, 2.1, 0.6), np.int16, "kits"),
    ("case_00005", (30, 17, 13), (0.81, 3.3, 4.75), np.float32, "flip"),
]


def affine_for(style, sp):
    if style == "kits":
        return np.array([[0, 0, -sp[2], 0], [0, -sp[1], 0, 0], [-sp[0], 0, 0, 0], [0, 0, 0, 1]], dtype=np.float64)
    if style == "flip":
        return np.array([[-sp[0], 0, 0, 10.5], [0, sp[1], 0, -3], [0, 0, -sp[2], 7.25], [0, 0, 0, 1]], dtype=np.float64)
    return np.diag([sp[0], sp[1], sp[2], 1.0])


def reshaped(aff):
    r = aff.copy()
    targ = np.array(TARGET)
    for i in range(3):
        idx = np.where(aff[i][:-1] != 0)
        sign = -1 if aff[i][idx] < 0 else 1
        r[i][idx] = targ[idx] * sign
    return r


def crop_pad(vol, fill):
    shape = vol.shape[1:]
    b = [s % STRIDE for s in shape]
    b = [x if x < STRIDE // 2 else 0 for x in b]
    vol = vol[:, b[0] // 2: shape[0] - (b[0] - b[0] // 2),
              b[1] // 2: shape[1] - (b[1] - b[1] // 2),
              b[2] // 2: shape[2] - (b[2] - b[2] // 2)]
    p = [(STRIDE - s % STRIDE) % STRIDE for s in vol.shape[1:]]
    p = [x if s + x >= ROI else x + STRIDE for s, x in zip(vol.shape[1:], p)]
    pads = [(0, 0)] + [(x // 2, x - x // 2) for x in p]
    return np.pad(vol, pads, mode="constant", constant_values=[fill])


def main():
    os.makedirs("golden", exist_ok=True)
    out = {}
    for name, shape, sp, dt, style in CASES:
        if dt == np.int16:
            img = rng.integers(-1024, 1500, size=shape).astype(np.int16)
        else:
            img = (rng.normal(0, 300, size=shape) + rng.integers(-200, 400, size=shape)).astype(np.float32)
        lbl = rng.integers(0, 3, size=shape).astype(np.uint8)
        aff = affine_for(style, sp)
        d = os.path.join("raw", name)
        os.makedirs(d, exist_ok=True)
        nibabel.save(nibabel.Nifti1Image(img, aff), os.path.join(d, "imaging.nii.gz"))
        nibabel.save(nibabel.Nifti1Image(lbl, aff), os.path.join(d, "segmentation.nii.gz"))

        im = nibabel.load(os.path.join(d, "imaging.nii.gz"))
        la = nibabel.load(os.path.join(d, "segmentation.nii.gz"))
        spacing = im.header["pixdim"][1:4].tolist()
        original = im.affine
        image = im.get_fdata().astype(np.float32)
        label = la.get_fdata().astype(np.uint8)
        factor = np.array(spacing) / np.array(TARGET)
        if spacing != TARGET:
            image = zoom(image, factor, order=1, mode="constant", cval=image.min(), grid_mode=False)
            label = zoom(label, factor, order=0, mode="constant", cval=label.min(), grid_mode=False)
        np.save(os.path.join("golden", name + "_zoomed.npy"), image)
        np.save(os.path.join("golden", name + "_zoomed_label.npy"), label)
        zoomed_shape = list(image.shape)
        image, label = image[np.newaxis], label[np.newaxis]
        image = np.clip(image, -79.0, 304.0)
        image = (image - 101.0) / 76.9
        bounds = [max(0, ROI - s) for s in image.shape[1:]]
        pads = [(0, 0)] + [(b // 2, b - b // 2) for b in bounds]
        image = np.pad(image, pads, mode="edge")
        label = np.pad(label, pads, mode="edge")
        image = crop_pad(image, -2.2).astype(np.float32)
        label = crop_pad(label, 0).astype(np.uint8)
        out[name] = {
            "spacing": spacing,
            "zoom_factor": factor.tolist(),
            "original_affine": original.tolist(),
            "reshaped_affine": reshaped(original).tolist(),
            "zoomed_shape": zoomed_shape,
            "image_shape": list(image.shape),
            "image_sha256": hashlib.sha256(np.ascontiguousarray(image).tobytes()).hexdigest(),
            "label_sha256": hashlib.sha256(np.ascontiguousarray(label).tobytes()).hexdigest(),
        }
    with open("golden.json", "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
