# Writes the accuracy logs that make_golden.sh scores with accuracy-dlrm.py:
# log_pairs.json ((prediction, label) float32 pairs per sample, as the
# reference SUT answers, with tied and exactly-0.5 predictions and a
# repeated qsl_idx), and log_preds.json (predictions only) with the
# day_23_head.tsv and trace_preds.txt it needs.
import json
import numpy as np

rng = np.random.RandomState(7)


def entry(seq, idx, arr):
    return {"seq_id": seq, "qsl_idx": idx, "data": arr.astype(np.float32).tobytes().hex().upper()}


def write_log(path, entries):
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in entries) + "\n]\n")


# pairs
entries = []
order = rng.permutation(30)
for seq, idx in enumerate(order):
    n = rng.randint(1, 20)
    p = np.round(rng.rand(n), 2)  # ties between samples
    p[rng.rand(n) < 0.1] = 0.5
    lab = (rng.rand(n) < p).astype(np.float32)
    entries.append(entry(seq, int(idx), np.stack([p, lab], 1).reshape(-1)))
    if seq == 5:  # loadgen may repeat a sample; the script keeps the first
        entries.append(entry(100, int(idx), np.stack([1 - p, lab], 1).reshape(-1)))
write_log("log_pairs.json", entries)

# predictions only
sizes = rng.randint(1, 9, size=25)
labels = (rng.rand(sizes.sum() + 5) < 0.3).astype(int)
with open("day_23_head.tsv", "w") as f:
    for l in labels:
        f.write("%d\t%d\t7\t\ta3f1\t0b2c\n" % (l, rng.randint(100)))
with open("trace_preds.txt", "w") as f:
    s = 0
    for n in sizes:
        f.write("%d, %d, %d\n" % (s, s + n, n))
        s += n
entries = []
for seq, idx in enumerate(rng.permutation(25)):
    entries.append(entry(seq, int(idx), np.round(rng.rand(sizes[idx]), 3)))
write_log("log_preds.json", entries)
