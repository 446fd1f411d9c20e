#!/usr/bin/python3
"""Writes the golden data of the models/yolo tests (test tooling, not part
of the Go build).

Needs Debian's python3-opencv and python3-numpy (/usr/bin/python3). Run from
the repository root:

    /usr/bin/python3 models/yolo/testdata/gen_goldens.py

It (re)writes models/yolo/testdata/golden.json with

  letterbox_geometry  LetterBox's geometry (ultralytics/data/augment.py, as
                      the predictor uses it: scaleup, centre) for many image
                      sizes, auto off and on, with Python's round();
  letterbox_images    for real JPEGs (this folder's images/, Debian's darknet
                      package, and preprocess/testdata/images): the image
                      as Ultralytics reads it (cv2.imdecode of the file's
                      bytes, IMREAD_COLOR), cv2.resize INTER_LINEAR,
                      cv2.copyMakeBorder with grey 114, then the predictor's
                      BGR->RGB, HWC->CHW, float32 / 255 -- as SHA-256 of the
                      uint8 letterboxed image and of the float32 input;
  nms                 what non_max_suppression (ultralytics/utils/nms.py,
                      single-label path, torchvision.ops.nms semantics),
                      scale_boxes + clip_boxes (ultralytics/utils/ops.py)
                      and yolo_loadgen.py's response packing give for raw
                      [84, N] predictions, recomputed here in numpy float32.

The raw predictions are not stored: raw_prediction() draws them from
SplitMix64 with integer arithmetic only, every value an exact float32, and
the Go test draws the same values (testdata_test.go: rawPrediction).
This is a re-computation of Ultralytics' behaviour written for these tests
(Ultralytics is AGPL; none of its code is used or copied).
"""
import hashlib
import json
import math
import os
import struct

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SIZE = 640
STRIDE = 32
COCO_80_TO_91 = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27, 28, 31, 32, 33, 34,
    35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
    64, 65, 67, 70, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90,
]


def sha(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


# --- LetterBox as the predictor runs it ---

def letterbox_geometry(w, h, auto):
    r = min(SIZE / h, SIZE / w)
    new_w, new_h = round(w * r), round(h * r)
    dw, dh = SIZE - new_w, SIZE - new_h
    if auto:
        dw, dh = int(np.mod(dw, STRIDE)), int(np.mod(dh, STRIDE))
    dw /= 2
    dh /= 2
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    return dict(w=w, h=h, auto=auto, new_w=new_w, new_h=new_h, top=top, bottom=bottom, left=left, right=right)


def letterbox(img, auto):
    h, w = img.shape[:2]
    g = letterbox_geometry(w, h, auto)
    if (w, h) != (g["new_w"], g["new_h"]):
        img = cv2.resize(img, (g["new_w"], g["new_h"]), interpolation=cv2.INTER_LINEAR)
    img = cv2.copyMakeBorder(img, g["top"], g["bottom"], g["left"], g["right"], cv2.BORDER_CONSTANT,
                             value=(114, 114, 114))
    return img, g


def network_input(lb):
    chw = np.ascontiguousarray(lb[..., ::-1].transpose(2, 0, 1))
    return chw.astype(np.float32) / np.float32(255)


def geometry_cases():
    sizes = [(640, 640), (640, 480), (480, 640), (773, 512), (640, 424), (352, 448), (259, 194), (300, 700),
             (120, 90), (1, 1), (1, 640), (640, 1), (2, 1279), (1279, 2), (4000, 3000), (5, 3), (3, 5),
             (1280, 1), (641, 640), (639, 640), (640, 639), (333, 500), (500, 333), (1024, 683), (683, 1024),
             (427, 640), (640, 427), (612, 612), (500, 375), (375, 500), (6, 1000), (1000, 7),
             # w·r exactly half-way: Python rounds half to even
             (1001, 1280), (1003, 1280), (1280, 1001), (1280, 1003), (2560, 1922), (2560, 1926)]
    state = 20251023
    for _ in range(120):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        w = 1 + (state >> 33) % 3000
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        h = 1 + (state >> 33) % 3000
        sizes.append((int(w), int(h)))
    out = []
    for w, h in sizes:
        for auto in (False, True):
            g = letterbox_geometry(w, h, auto)
            if g["new_w"] < 1 or g["new_h"] < 1:
                g["error"] = True
            out.append(g)
    return out


def image_cases():
    pre = os.path.join(ROOT, "preprocess", "testdata", "images")
    files = [("models/yolo/testdata/images", f) for f in ("eagle.jpg", "person.jpg", "scream.jpg")]
    files += [("preprocess/testdata/images", f) for f in
              ("left01.jpg", "fruits_cmyk.jpg", "fish_exif6.jpg", "fruits_tall.jpg", "fruits_tiny.jpg",
               "HappyFish.jpg", "baboon768.jpg", "fruits_prog.jpg", "messi_exif8.jpg")]
    out = []
    for d, f in files:
        path = os.path.join(ROOT, d, f)
        img = cv2.imdecode(np.fromfile(path, np.uint8), cv2.IMREAD_COLOR)
        for auto in (False, True):
            lb, g = letterbox(img, auto)
            out.append(dict(file=d + "/" + f, width=img.shape[1], height=img.shape[0], auto=auto,
                            out_w=lb.shape[1], out_h=lb.shape[0], letterboxed_sha256=sha(lb),
                            input_sha256=sha(network_input(lb)), **{k: g[k] for k in
                                                                   ("new_w", "new_h", "top", "bottom", "left", "right")}))
    return out


# --- raw predictions: SplitMix64, integer arithmetic only ---

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n


def raw_prediction(seed, nc, n, objects):
    """Returns float32 [4+nc, n]: `objects` boxes (centre, size in 1/8 px,
    a class), each anchor a jittered copy of one of them or (one in four)
    background; class scores k/2^20 for the anchor's object class, and
    background scores k/2^12 with k < 8 (up to 0.0017, so that some pass
    conf 0.001) elsewhere."""
    rng = SplitMix64(seed)
    objs = []
    for _ in range(objects):
        cx, cy = rng.below(640 * 8), rng.below(640 * 8)
        bw, bh = 32 + rng.below(300 * 8), 32 + rng.below(300 * 8)
        objs.append((cx, cy, bw, bh, rng.below(nc)))
    p = np.zeros((4 + nc, n), np.float32)
    for a in range(n):
        r = rng.below(4 * objects)
        if r < 3 * objects:
            cx, cy, bw, bh, cls = objs[r % objects]
            p[0, a] = (cx + rng.below(129) - 64) / 8.0
            p[1, a] = (cy + rng.below(129) - 64) / 8.0
            p[2, a] = (bw + rng.below(129) - 64) / 8.0
            p[3, a] = (bh + rng.below(129) - 64) / 8.0
            score_cls = cls
        else:
            p[0, a] = rng.below(640 * 8) / 8.0
            p[1, a] = rng.below(640 * 8) / 8.0
            p[2, a] = (8 + rng.below(200 * 8)) / 8.0
            p[3, a] = (8 + rng.below(200 * 8)) / 8.0
            score_cls = -1
        for c in range(nc):
            p[4 + c, a] = rng.below(8) / 4096.0
        if score_cls >= 0:
            p[4 + score_cls, a] = rng.below(1 << 20) / float(1 << 20)
    return p


# --- non_max_suppression (single label), torchvision.ops.nms, scale_boxes ---

def tv_nms(boxes, scores, thr):
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = np.argsort(-scores, kind="stable")
    suppressed = np.zeros(len(scores), bool)
    keep = []
    for k, i in enumerate(order):
        if suppressed[i]:
            continue
        keep.append(i)
        rest = order[k + 1:]
        rest = rest[~suppressed[rest]]
        xx1 = np.maximum(x1[i], x1[rest])
        yy1 = np.maximum(y1[i], y1[rest])
        xx2 = np.minimum(x2[i], x2[rest])
        yy2 = np.minimum(y2[i], y2[rest])
        w = np.maximum(np.float32(0), xx2 - xx1)
        h = np.maximum(np.float32(0), yy2 - yy1)
        inter = w * h
        ovr = inter / (areas[i] + areas[rest] - inter)
        assert ovr.dtype == np.float32
        suppressed[rest[ovr.astype(np.float64) > thr]] = True
    return np.array(keep, np.int64)


def non_max_suppression(pred, conf, iou, max_det, max_nms, max_wh, agnostic):
    nc = pred.shape[0] - 4
    cls_all = pred[4:]
    xc = cls_all.max(0) > np.float32(conf)
    x = pred.T
    half = x[:, 2:4] / np.float32(2)
    box = np.concatenate([x[:, 0:2] - half, x[:, 0:2] + half], 1)
    box, cls = box[xc], x[xc, 4:]
    score, j = cls.max(1), cls.argmax(1)
    f = score > np.float32(conf)
    box, score, j = box[f], score[f], j[f]
    if len(score) > max_nms:
        idx = np.argsort(-score, kind="stable")[:max_nms]
        box, score, j = box[idx], score[idx], j[idx]
    c = j.astype(np.float32) * np.float32(0 if agnostic else max_wh)
    keep = tv_nms(box + c[:, None], score, iou)[:max_det]
    return box[keep], score[keep], j[keep], len(score)


def scale_boxes(boxes, w0, h0):
    gain = min(SIZE / h0, SIZE / w0)
    pad_x = round((SIZE - w0 * gain) / 2 - 0.1)
    pad_y = round((SIZE - h0 * gain) / 2 - 0.1)
    b = boxes.copy()
    b[:, [0, 2]] -= np.float32(pad_x)
    b[:, [1, 3]] -= np.float32(pad_y)
    b /= np.float32(gain)
    b[:, [0, 2]] = np.clip(b[:, [0, 2]], np.float32(0), np.float32(w0))
    b[:, [1, 3]] = np.clip(b[:, [1, 3]], np.float32(0), np.float32(h0))
    assert b.dtype == np.float32
    return b, pad_x, pad_y


def response(qsl_idx, boxes, scores, classes, w0, h0):
    out = b""
    for b, s, c in zip(boxes, scores, classes):
        out += struct.pack("<7f", float(qsl_idx), float(b[1] / np.float32(h0)), float(b[0] / np.float32(w0)),
                           float(b[3] / np.float32(h0)), float(b[2] / np.float32(w0)), float(s),
                           float(COCO_80_TO_91[c]))
    return out


def bits(a):
    return [int(v) for v in np.asarray(a, np.float32).view(np.uint32).ravel()]


def nms_cases():
    cases = [
        dict(name="reference", seed=1, nc=80, n=8400, objects=60, conf=0.001, iou=0.7, max_det=300, max_nms=30000,
             max_wh=7680, agnostic=False),
        dict(name="caps", seed=1, nc=80, n=8400, objects=60, conf=0.001, iou=0.7, max_det=50, max_nms=200,
             max_wh=7680, agnostic=False),
        dict(name="agnostic", seed=2, nc=80, n=2100, objects=25, conf=0.001, iou=0.5, max_det=300, max_nms=30000,
             max_wh=7680, agnostic=True),
        dict(name="few classes, high conf", seed=3, nc=3, n=900, objects=12, conf=0.25, iou=0.45, max_det=300,
             max_nms=30000, max_wh=7680, agnostic=False),
    ]
    images = [(773, 512), (352, 448), (640, 424), (640, 640), (300, 700), (1, 640)]
    out = []
    for c in cases:
        pred = raw_prediction(c["seed"], c["nc"], c["n"], c["objects"])
        box, score, cls, candidates = non_max_suppression(pred, c["conf"], c["iou"], c["max_det"], c["max_nms"],
                                                          c["max_wh"], c["agnostic"])
        scaled = []
        for w0, h0 in images:
            b, px, py = scale_boxes(box, w0, h0)
            resp = response(7, b, score, cls, w0, h0) if c["nc"] == 80 else b""
            scaled.append(dict(w=w0, h=h0, pad_x=px, pad_y=py, boxes_sha256=sha(b),
                               response_sha256=hashlib.sha256(resp).hexdigest(), response_len=len(resp)))
        out.append(dict(c, raw_sha256=sha(pred), candidates=candidates, kept=len(score), boxes=bits(box),
                        scores=bits(score), classes=[int(v) for v in cls], scaled=scaled))
    return out


def main():
    golden = dict(opencv=cv2.__version__, numpy=np.__version__, letterbox_geometry=geometry_cases(),
                  letterbox_images=image_cases(), nms=nms_cases())
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
