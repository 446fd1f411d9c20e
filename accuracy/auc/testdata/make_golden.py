#!/usr/bin/env python3
"""Goldens for accuracy/auc/auc.go: sklearn.metrics.roc_auc_score on float32
(prediction, label) pairs, and the reference accuracy-dlrm.py on a small
accuracy log.

  /usr/bin/python3 make_golden.py [--reference PATH/TO/mlcommons/inference]

Needs numpy and scikit-learn (Debian: python3-numpy python3-sklearn).
With --reference, the log golden is the printout of the reference script
recommendation/dlrm_v2/pytorch/tools/accuracy-dlrm.py run on dlrm_log.json.
"""
import argparse, json, os, subprocess, sys
import numpy as np
import sklearn, sklearn.metrics

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--reference")
args = ap.parse_args()

rng = np.random.default_rng(20240601)
cases = {}
def add(name, p, t):
    cases[name] = (np.asarray(p, np.float32), np.asarray(t, np.float32))

add("tiny", [0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
add("all_tied", np.full(50, 0.5), rng.integers(0, 2, 50))
add("perfect", np.linspace(0, 1, 64), np.r_[np.zeros(32), np.ones(32)])
add("inverted", np.linspace(0, 1, 64), np.r_[np.ones(32), np.zeros(32)])
add("minus_one_one", rng.random(300), rng.choice([-1, 1], 300))
add("neg_zero", [-0.0, 0.0, 0.0, -0.0, 0.25, 0.25], [1, 0, 1, 0, 1, 0])
n = 4000
s = rng.random(n).astype(np.float32)
add("continuous", s, (rng.random(n) < s).astype(np.float32))
q = np.round(rng.random(n), 2).astype(np.float32)          # 101 distinct
add("ties_2dp", q, (rng.random(n) < q).astype(np.float32))
z = rng.normal(size=n).astype(np.float32)
sig = (1 / (1 + np.exp(-z))).astype(np.float32)
lab = (rng.random(n) < 0.15 + 0.5 * sig).astype(np.float32)
add("sigmoid_imbalanced", sig, lab)
add("rare_positive", rng.random(3000), (rng.random(3000) < 0.004).astype(np.float32))

out = {"sklearn": sklearn.__version__, "numpy": np.__version__, "cases": {}}
for name, (p, t) in cases.items():
    np.save(os.path.join(here, name + ".npy"), np.stack([p, t], axis=1))
    auc = sklearn.metrics.roc_auc_score(t, p)
    good = int(sum(1 for a, b in zip(p, t) if a.round() == b))
    out["cases"][name] = {"auc": repr(float(auc)), "good": good, "total": len(p)}

# one-class input: sklearn raises
try:
    sklearn.metrics.roc_auc_score(np.ones(5, np.float32), np.arange(5, dtype=np.float32))
    out["one_class_error"] = None
except ValueError as e:
    out["one_class_error"] = str(e)

# a small accuracy log: 6 aggregated samples, duplicates, rows of 1..40
p, t = cases["sigmoid_imbalanced"]
bounds = [0, 17, 40, 41, 80, 120, 150]
entries = []
seq = 0
for k in [3, 0, 5, 1, 0, 2, 4, 3]:
    a, b = bounds[k], bounds[k + 1]
    data = np.stack([p[a:b], t[a:b]], axis=1).astype(np.float32).tobytes().hex().upper()
    if seq == 4:  # a duplicate of qsl 0 with other data: the first one wins
        data = np.zeros((b - a, 2), np.float32).tobytes().hex().upper()
    entries.append('{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }' % (seq, k, data))
    seq += 1
with open(os.path.join(here, "dlrm_log.json"), "w") as f:
    f.write("[\n" + ",\n".join(entries) + "\n]\n")
if args.reference:
    script = os.path.join(args.reference, "recommendation/dlrm_v2/pytorch/tools/accuracy-dlrm.py")
    res = subprocess.run([sys.executable, script, "--mlperf-accuracy-file", os.path.join(here, "dlrm_log.json")],
                         check=True, capture_output=True, text=True)
    out["dlrm_log_line"] = [l for l in res.stdout.splitlines() if l.startswith("AUC=")][0]
    out["dlrm_log_source"] = "accuracy-dlrm.py"
else:
    rows = np.concatenate([np.arange(bounds[k], bounds[k + 1]) for k in [3, 0, 5, 1, 2, 4]])
    auc = sklearn.metrics.roc_auc_score(t[rows], p[rows])
    good = int(sum(1 for a, b in zip(p[rows], t[rows]) if a.round() == b))
    out["dlrm_log_line"] = "AUC={:.3f}%, accuracy={:.3f}%, good={}, total={}, queries={}".format(
        100.0 * auc, 100.0 * good / len(rows), good, len(rows), 6)
    out["dlrm_log_source"] = "sklearn"
with open(os.path.join(here, "golden.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
