# Writes trace_golden.txt: the aggregation traces the DLRMv2 reference
# builds (mlcommons/inference recommendation/dlrm_v2/pytorch/python/
# multihot_criteo.py, quantile branch) with numpy's legacy global
# generator, for the Go test of QuantileTrace.
# Run with Debian's python3-numpy: python3 make_golden.py > trace_golden.txt
import numpy as np

quantile = np.array([100, 100, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 300, 300, 400, 500, 600, 700])


def trace(n, seed):
    np.random.seed(seed)
    off = []
    qo = 0
    while True:
        off.append(int(qo))
        qo = min(qo + quantile[np.random.randint(low=0, high=len(quantile))], n)
        if qo >= n:
            break
    off.append(int(qo))
    return off


for n, seed, head in [(89137319, 123, 300), (10000, 123, None), (54321, 7, None)]:
    off = trace(n, seed)
    print("rows %d seed %d samples %d" % (n, seed, len(off) - 1))
    m = len(off) - 1 if head is None else head
    for j in range(m):
        print("%d, %d, %d" % (off[j], off[j + 1], off[j + 1] - off[j]))
    if head is not None:
        print("last %d, %d, %d" % (off[-2], off[-1], off[-1] - off[-2]))
# raw draws of randint with other bounds, to check the mask and rejection
np.random.seed(2024)
for high in [1, 2, 3, 20, 100, 1000, 65537, 40000000, 2**31, 2**32]:
    print("randint %d %s" % (high, " ".join(str(np.random.randint(0, high)) for _ in range(20))))
