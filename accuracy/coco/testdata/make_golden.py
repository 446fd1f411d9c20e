#!/usr/bin/env python3
"""Writes the COCO bbox fixtures and their expected scores for
accuracy/coco*_test.go, using the real pycocotools as the reference.

  PYTHONPATH=PYCOCOTOOLS_DIR python3 make_golden.py [OUT_DIR]

PYCOCOTOOLS_DIR holds a built pycocotools (pip's pycocotools 2.0.x, i.e.
github.com/ppwwyyxx/cocoapi PythonAPI built with `setup.py build_ext
--inplace`, or an installed one). numpy 1.24-1.26 (Debian bookworm's
python3-numpy) lets the script run the OpenImages path both with numpy 1.x
promotion and with numpy 2's (NEP 50, np._set_promotion_state('weak')).
OUT_DIR defaults to this script's folder. Test tooling only.

Outputs (all deterministic: fixed seeds, fixed hand-written cases):
  cases.json             generic cases: {name: {gt, dets, img_ids}}
  openimages/annotations.json, openimages/mlperf_log_accuracy.json
                         a RetinaNet-style log scored like
                         tools/accuracy-openimages.py
  golden.json            per case the 12 stats (repr, exact), the printed
                         summary, sha256 of eval['precision'] and
                         eval['recall'] (float64 little-endian, C order),
                         the params' linspace values, numpy sums; for the
                         OpenImages log also the mAP line and the sha256 of
                         the decoded detections [image_id, category_id, x,
                         y, w, h, score] in both numpy modes.
"""
import contextlib
import copy
import hashlib
import io
import json
import os
import random
import struct
import sys
import tempfile

import numpy as np
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def coco_from_dict(d):
    c = COCO()
    c.dataset = copy.deepcopy(d)
    with contextlib.redirect_stdout(io.StringIO()):
        c.createIndex()
    return c


def run_eval(gt_dict, dets, img_ids):
    """COCOeval bbox as the MLPerf script drives it; returns the golden entry."""
    gt = coco_from_dict(gt_dict)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # loadRes from a file, as accuracy-openimages.py does.
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(dets, f, sort_keys=True, indent=4)
        try:
            dt = gt.loadRes(f.name)
        finally:
            os.unlink(f.name)
        ev = COCOeval(gt, dt, iouType="bbox")
        if img_ids is not None:
            ev.params.imgIds = list(img_ids)
        ev.evaluate()
        ev.accumulate()
    summary = io.StringIO()
    with contextlib.redirect_stdout(summary):
        ev.summarize()
    return {
        "stats": [repr(float(s)) for s in ev.stats],
        "summary": summary.getvalue(),
        "precision_sha256": sha(ev.eval["precision"]),
        "recall_sha256": sha(ev.eval["recall"]),
        "precision_shape": list(ev.eval["precision"].shape),
    }


def sha(a):
    a = np.ascontiguousarray(a, dtype="<f8")
    return hashlib.sha256(a.tobytes()).hexdigest()


def r2(x):
    return round(x, 2)


# ---------------------------------------------------------------- hand case
def hard_case():
    """Hand-written corner cases, one feature per image/category."""
    cats = [{"id": c, "name": "c%d" % c} for c in (1, 2, 3, 5, 7, 9)]
    # 9: no gt, no dets; 7: dets, no gt; 5: gt, no dets.
    images = [{"id": i, "width": 640, "height": 480, "file_name": "%d.jpg" % i}
              for i in (1, 2, 3, 4, 5, 6, 7, 8, 100)]
    anns = []
    dets = []

    def gt(img, cat, bbox, crowd=0, area=None, aid=None):
        anns.append({"id": len(anns) + 1 if aid is None else aid, "image_id": img,
                     "category_id": cat, "bbox": bbox,
                     "area": bbox[2] * bbox[3] if area is None else area,
                     "iscrowd": crowd})

    def dt(img, cat, bbox, score):
        dets.append({"image_id": img, "category_id": cat, "bbox": bbox, "score": score})

    # image 1: ties in scores, duplicates, a box partly outside the image.
    gt(1, 1, [10, 10, 50, 40])
    gt(1, 1, [100, 100, 80, 60])
    gt(1, 1, [600, 400, 60, 100])  # partly outside (640x480)
    dt(1, 1, [12, 11, 48, 40], 0.9)
    dt(1, 1, [12, 11, 48, 40], 0.9)  # duplicate
    dt(1, 1, [101, 99, 80, 62], 0.9)  # tie
    dt(1, 1, [590, 395, 80, 110], 0.5)
    dt(1, 1, [300, 300, 20, 20], 0.5)
    dt(1, 2, [10, 10, 50, 40], 0.7)
    # image 2: crowd regions (ignore, IoU over the detection's area).
    gt(2, 2, [0, 0, 300, 300], crowd=1)
    gt(2, 2, [20, 20, 40, 40])
    dt(2, 2, [22, 22, 40, 40], 0.95)
    dt(2, 2, [21, 19, 40, 41], 0.94)  # second on the same gt: falls to crowd
    dt(2, 2, [100, 100, 30, 30], 0.8)  # inside crowd
    dt(2, 2, [250, 250, 100, 100], 0.6)  # half inside crowd
    dt(2, 2, [400, 400, 30, 30], 0.3)
    dt(2, 3, [5, 5, 10, 10], 0.2)
    # image 3: area boundaries 32^2 and 96^2 for gt (area field) and dets (w*h).
    gt(3, 3, [0, 0, 32, 32])  # 1024: small and medium
    gt(3, 3, [100, 0, 96, 96])  # 9216: medium and large
    gt(3, 3, [300, 0, 31.9, 32])  # just under 1024
    gt(3, 3, [0, 200, 96.1, 96])  # just over 9216
    gt(3, 3, [400, 200, 50, 50], area=9216.0)  # area field disagrees with bbox
    gt(3, 3, [500, 300, 10, 10], area=1024.0000001)
    dt(3, 3, [0, 0, 32, 32], 0.8)
    dt(3, 3, [100, 0, 96, 96], 0.8)
    dt(3, 3, [300, 0, 31.9, 32], 0.7)
    dt(3, 3, [0, 200, 96.1, 96], 0.7)
    dt(3, 3, [400, 200, 50, 50], 0.6)
    dt(3, 3, [500, 300, 10, 10], 0.6)
    dt(3, 3, [200, 400, 32, 32], 0.55)  # unmatched, exactly 1024
    dt(3, 3, [250, 400, 96, 96], 0.54)  # unmatched, exactly 9216
    dt(3, 3, [560, 400, 33, 31.9], 0.53)
    # image 4: ground truth, no detections at all.
    gt(4, 1, [50, 50, 100, 100])
    gt(4, 5, [60, 60, 100, 100])
    # image 5: more than 100 detections for one category, more over categories.
    for j in range(12):
        gt(5, 1, [j * 50, (j % 4) * 100, 40 + j, 60])
    rng = random.Random(5)
    for j in range(130):
        x, y = rng.randrange(0, 600), rng.randrange(0, 420)
        dt(5, 1, [x, y, r2(rng.uniform(5, 120)), r2(rng.uniform(5, 120))],
           r2(rng.choice([0.5, 0.25, rng.random()])))
    for j in range(12):  # the best ones, late in the list
        dt(5, 1, [j * 50 + 1, (j % 4) * 100 + 1, 40 + j, 59], r2(0.3 + j / 100))
    for j in range(40):
        dt(5, 7, [j * 10, 10, 20, 20], r2(rng.random()))
    # image 6: a ground truth with id 0 (pycocotools stores the matched id;
    # 0 reads as "no match"), and a zero-width detection.
    gt(6, 3, [10, 10, 100, 100], aid=0)
    gt(6, 3, [300, 300, 60, 60])
    dt(6, 3, [12, 12, 100, 100], 0.9)
    dt(6, 3, [300, 300, 0, 60], 0.8)
    dt(6, 3, [298, 301, 60, 60], 0.4)
    # image 7: crowd and regular gt with equal IoU to one detection; gt
    # matched at low but not high thresholds.
    gt(7, 2, [0, 0, 100, 100])
    gt(7, 2, [0, 0, 100, 100], crowd=1)
    dt(7, 2, [0, 0, 100, 100], 0.5)
    dt(7, 2, [0, 0, 100, 100], 0.5)
    dt(7, 2, [5, 5, 100, 100], 0.45)
    gt(7, 1, [200, 200, 100, 100])
    dt(7, 1, [200, 230, 100, 100], 0.6)  # IoU 0.538
    dt(7, 1, [210, 210, 100, 100], 0.6)  # IoU 0.681
    # image 8: only detections (no gt in any category).
    dt(8, 1, [10, 10, 20, 20], 0.99)
    dt(8, 2, [10, 10, 200, 200], 0.01)
    # image 100: no gt, no dets, evaluated.
    gtd = {"images": images, "annotations": anns, "categories": cats}
    return {"gt": gtd, "dets": dets, "img_ids": None}


# -------------------------------------------------------------- random case
def random_case(seed, n_img, n_cat, img_subset=False):
    rng = random.Random(seed)
    cats = [{"id": 3 * c + 1, "name": "c%d" % c} for c in range(n_cat)]
    images, anns, dets = [], [], []
    for i in range(n_img):
        w, h = rng.choice([(640, 480), (1024, 683), (333, 517), (800, 800)])
        iid = 1000 + 7 * i
        images.append({"id": iid, "width": w, "height": h, "file_name": "%d.jpg" % iid})
        gts = []
        for _ in range(rng.choice([0, 1, 3, 5, 8, 12])):
            bw = r2(rng.choice([rng.uniform(2, 31), rng.uniform(31, 97), rng.uniform(90, 400)]))
            bh = r2(rng.choice([rng.uniform(2, 31), rng.uniform(31, 97), rng.uniform(90, 400)]))
            b = [r2(rng.uniform(-20, w - 10)), r2(rng.uniform(-20, h - 10)), bw, bh]
            c = rng.choice(cats[: n_cat - 2])["id"]  # last two: no gt
            crowd = 1 if rng.random() < 0.08 else 0
            anns.append({"id": len(anns) + 1, "image_id": iid, "category_id": c,
                         "bbox": b, "area": r2(b[2] * b[3]), "iscrowd": crowd})
            gts.append((b, c))
        nd = rng.choice([0, 5, 10, 25, 110])
        for _ in range(nd):
            if gts and rng.random() < 0.7:
                b, c = rng.choice(gts)
                j = [r2(v + rng.gauss(0, 0.05 * max(b[2], b[3]))) for v in b]
                j[2], j[3] = abs(j[2]), abs(j[3])
                if rng.random() < 0.15:
                    c = rng.choice(cats)["id"]
            else:
                c = rng.choice(cats)["id"]
                j = [r2(rng.uniform(-10, w)), r2(rng.uniform(-10, h)),
                     r2(rng.uniform(1, 200)), r2(rng.uniform(1, 200))]
            s = rng.choice([r2(rng.random()), round(rng.random(), 1), round(rng.random(), 6)])
            dets.append({"image_id": iid, "category_id": c, "bbox": j, "score": s})
    img_ids = None
    if img_subset:
        img_ids = sorted(rng.sample([im["id"] for im in images], n_img // 2))
    return {"gt": {"images": images, "annotations": anns, "categories": cats},
            "dets": dets, "img_ids": img_ids}


# ------------------------------------------------------- OpenImages (RetinaNet)
def openimages_fixture(seed):
    rng = random.Random(seed)
    n_img, n_cat = 30, 264
    cats = [{"id": c, "name": "class_%d" % c, "supercategory": None} for c in range(n_cat)]
    images, anns = [], []
    for i in range(n_img):
        w, h = rng.choice([(1024, 683), (1024, 768), (683, 1024), (800, 533), (333, 517), (1024, 1024)])
        images.append({"id": i + 1, "file_name": "%016x.jpg" % rng.getrandbits(64),
                       "height": h, "width": w, "license": None, "coco_url": None})
        for _ in range(rng.choice([1, 2, 4, 7, 10])):
            x0, x1 = sorted([rng.random(), rng.random()])
            y0, y1 = sorted([rng.random(), rng.random()])
            b = [x0 * w, y0 * h, (x1 - x0) * w, (y1 - y0) * h]
            anns.append({"id": len(anns) + 1, "image_id": i + 1,
                         "category_id": rng.randrange(0, 40), "bbox": b,
                         "area": b[2] * b[3], "iscrowd": 1 if rng.random() < 0.1 else 0})
    gt = {"info": {"dataset": "openimages_mlperf", "version": "v6"}, "licenses": [],
          "categories": cats, "images": images, "annotations": anns}

    by_img = {}
    for a in anns:
        by_img.setdefault(a["image_id"], []).append(a)

    def response(qsl, k, mismatch=False):
        im = images[qsl]
        w, h = im["width"], im["height"]
        recs = []
        for _ in range(k):
            if by_img.get(qsl + 1) and rng.random() < 0.6:
                a = rng.choice(by_img[qsl + 1])
                x, y, bw, bh = a["bbox"]
                xmin = (x + rng.gauss(0, 0.05 * bw)) / w
                ymin = (y + rng.gauss(0, 0.05 * bh)) / h
                xmax = (x + bw + rng.gauss(0, 0.05 * bw)) / w
                ymax = (y + bh + rng.gauss(0, 0.05 * bh)) / h
                label = a["category_id"] if rng.random() < 0.9 else rng.randrange(0, 40)
            else:
                xmin, ymin = rng.random() * 0.9, rng.random() * 0.9
                xmax, ymax = xmin + rng.random() * 0.3, ymin + rng.random() * 0.3
                label = rng.randrange(0, 40)
            recs.append((xmin, ymin, xmax, ymax, label))
        scores = sorted((rng.choice([rng.random(), 0.5, 0.05 + rng.random() / 2]) for _ in recs), reverse=True)
        out = b""
        for (xmin, ymin, xmax, ymax, label), s in zip(recs, scores):
            idx = qsl + 1 if mismatch else qsl
            out += struct.pack("<7f", idx, ymin, xmin, ymax, xmax, s, label)
        return out.hex().upper()

    entries = []
    order = list(range(n_img))
    rng.shuffle(order)
    skipped = set(order[-3:])  # three images not in the log
    for seq, qsl in enumerate(o for o in order if o not in skipped):
        k = rng.choice([0, 3, 10, 40, 120]) if qsl % 7 else 0  # some empty
        if seq == 1:  # records whose index field is not the qsl_idx
            k = max(k, 3)
        entries.append({"seq_id": seq, "qsl_idx": qsl, "data": response(qsl, k, mismatch=(seq == 1))})
    # Odd records, appended to the first non-empty answer of an image with
    # ground truth: NaN and signed-zero scores, NaN and infinite
    # coordinates, an inverted box (json.dump writes NaN/Infinity and
    # loadRes reads them back).
    nan, inf = float("nan"), float("inf")
    for e in entries:
        if e["data"] and by_img.get(e["qsl_idx"] + 1):
            x, y, bw, bh = by_img[e["qsl_idx"] + 1][0]["bbox"]
            im = images[e["qsl_idx"]]
            w, h = im["width"], im["height"]
            box = (y / h, x / w, (y + bh) / h, (x + bw) / w)
            cat = by_img[e["qsl_idx"] + 1][0]["category_id"]
            odd = [
                (box[0], box[1], box[2], box[3], nan),
                (box[0], nan, box[2], box[3], 0.3),
                (box[0], box[1], inf, box[3], 0.3),
                (box[2], box[3], box[0], box[1], 0.3),
                (box[0], box[1], box[2], box[3], -0.0),
                (box[0], box[1], box[2], box[3], 0.0),
            ]
            extra = b"".join(struct.pack("<7f", e["qsl_idx"], *r[:4], r[4], cat) for r in odd)
            e["data"] += extra.hex().upper()
            break
    # repeats of a qsl_idx with other data: the first occurrence wins
    for qsl in order[:4]:
        entries.append({"seq_id": len(entries), "qsl_idx": qsl, "data": response(qsl, 5)})
    return gt, entries


def openimages_score(gt_path, log_path, numpy2):
    """tools/accuracy-openimages.py, step for step (no --use-inv-map)."""
    if hasattr(np, "_set_promotion_state"):
        np._set_promotion_state("weak" if numpy2 else "legacy")
    elif not numpy2:
        raise SystemExit("numpy >= 2 cannot run the numpy-1 mode; use numpy 1.24-1.26")
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            cocoGt = COCO(gt_path)
        with open(log_path) as f:
            results = json.load(f)
        detections, image_ids, seen = [], set(), set()
        no_results = 0
        image_map = cocoGt.dataset["images"]
        for j in results:
            idx = j["qsl_idx"]
            if idx in seen:
                continue
            seen.add(idx)
            data = np.frombuffer(bytes.fromhex(j["data"]), np.float32)
            if len(data) < 7:
                image_ids.add(image_map[idx]["id"])
                no_results += 1
                continue
            for i in range(0, len(data), 7):
                image_idx, ymin, xmin, ymax, xmax, score, label = data[i: i + 7]
                image = image_map[idx]
                image_id = image["id"]
                height, width = image["height"], image["width"]
                ymin *= height
                xmin *= width
                ymax *= height
                xmax *= width
                label = int(label)
                detections.append({
                    "image_id": image_id, "category_id": label,
                    "bbox": [float(xmin), float(ymin), float(xmax - xmin), float(ymax - ymin)],
                    "score": float(score)})
                image_ids.add(image_id)
        gtd = cocoGt.dataset
        entry = run_eval(gtd, detections, list(image_ids))
        entry["map_line"] = "mAP={:.3f}%".format(100.0 * float(entry["stats"][0]))
        entry["detections"] = len(detections)
        entry["images"] = len(image_ids)
        entry["no_results"] = no_results
        entry["dupes"] = len(results) - len(seen)
        entry["detections_sha256"] = sha(np.array(
            [[d["image_id"], d["category_id"]] + d["bbox"] + [d["score"]] for d in detections],
            dtype=np.float64))
        return entry
    finally:
        if hasattr(np, "_set_promotion_state"):
            np._set_promotion_state("legacy")


def iou_case():
    """maskUtils.iou (bbIou) on boxes of every kind: the matrix, bit for bit."""
    from pycocotools import mask as maskUtils
    rng = random.Random(11)

    def box():
        k = rng.random()
        if k < 0.2:
            return [float(rng.randrange(-5, 50)) for _ in range(4)]
        if k < 0.3:
            return [rng.uniform(0, 10), rng.uniform(0, 10), 0.0, rng.uniform(-3, 3)]
        return [rng.uniform(-10, 40), rng.uniform(-10, 40), rng.uniform(0, 30), rng.uniform(0, 30)]

    gt = [box() for _ in range(40)]
    dt = [box() for _ in range(60)]
    for g in gt[:20]:  # near copies: IoU close to 1 and to the thresholds
        dt.append([g[0] + rng.uniform(-1, 1), g[1], g[2] * rng.uniform(0.5, 1.5), g[3]])
    crowd = [1 if rng.random() < 0.3 else 0 for _ in gt]
    ious = maskUtils.iou(dt, gt, crowd)
    return {"dt": dt, "gt": gt, "crowd": crowd, "sha256": sha(ious), "shape": list(ious.shape)}


def sum_cases():
    """np.add.reduce on arrays the Go test rebuilds: x_i = ((i*7919) %
    1000003) / 1000003 * [0.01, 0.1, 1, 10, 100][i % 5]."""
    out = {}
    for n in (7, 100, 129, 8192, 8193, 20000, 266640):
        i = np.arange(n, dtype=np.int64)
        x = ((i * 7919) % 1000003) / 1000003.0 * np.array([0.01, 0.1, 1.0, 10.0, 100.0])[i % 5]
        out[str(n)] = repr(float(np.add.reduce(x)))
    return out


def main():
    cases = {
        "hard": hard_case(),
        "random50": random_case(50, 50, 20),
        "random_subset": random_case(7, 30, 8, img_subset=True),
    }
    golden = {
        "numpy": np.__version__,
        "iou_thrs": [repr(float(v)) for v in np.linspace(.5, 0.95, int(np.round((0.95 - .5) / .05)) + 1, endpoint=True)],
        "rec_thrs": [repr(float(v)) for v in np.linspace(.0, 1.00, int(np.round((1.00 - .0) / .01)) + 1, endpoint=True)],
        "numpy_sum": sum_cases(),
        "iou": iou_case(),
        "cases": {},
        "openimages": {},
    }
    for name, c in cases.items():
        golden["cases"][name] = run_eval(c["gt"], c["dets"], c["img_ids"])
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, separators=(",", ":"))
        f.write("\n")

    oi = os.path.join(OUT, "openimages")
    os.makedirs(oi, exist_ok=True)
    gt, entries = openimages_fixture(2024)
    gt_path = os.path.join(oi, "annotations.json")
    log_path = os.path.join(oi, "mlperf_log_accuracy.json")
    with open(gt_path, "w") as f:
        json.dump(gt, f)
    with open(log_path, "w") as f:  # LoadGen's layout
        f.write("[\n" + ",\n".join(
            '{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }' % (e["seq_id"], e["qsl_idx"], e["data"])
            for e in entries) + "\n]\n")
    golden["openimages"]["numpy1"] = openimages_score(gt_path, log_path, numpy2=False)
    golden["openimages"]["numpy2"] = openimages_score(gt_path, log_path, numpy2=True)
    with open(os.path.join(OUT, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
