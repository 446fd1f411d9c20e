#!/usr/bin/env python3
"""Goldens for accuracy/fid/fid.go: scipy.linalg.sqrtm and the FID formula of
the SDXL reference (text_to_image/tools/fid/fid_score.py,
calculate_frechet_distance), on features written here as float32 .npy.

  /usr/bin/python3 make_golden.py

Needs numpy and scipy (Debian: python3-numpy python3-scipy; scipy 1.10 is
the version the SDXL reference pins).
"""
import json, os
import numpy as np
import scipy
from scipy import linalg

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(77)


def fid(mu1, sigma1, mu2, sigma2, eps=1e-6):
    # The steps of calculate_frechet_distance, recorded as they go.
    rec = {}
    diff = mu1 - mu2
    covmean, _ = linalg.sqrtm(sigma1.dot(sigma2), disp=False)
    rec["offset"] = not bool(np.isfinite(covmean).all())
    if rec["offset"]:
        offset = np.eye(sigma1.shape[0]) * eps
        covmean = linalg.sqrtm((sigma1 + offset).dot(sigma2 + offset))
    rec["complex"] = bool(np.iscomplexobj(covmean))
    if np.iscomplexobj(covmean):
        if not np.allclose(np.diagonal(covmean).imag, 0, atol=1e-3):
            rec["error"] = "Imaginary component {}".format(np.max(np.abs(covmean.imag)))
            return None, rec
        covmean = covmean.real
    tr_covmean = np.trace(covmean)
    rec["trace_sqrt"] = repr(float(tr_covmean))
    return diff.dot(diff) + np.trace(sigma1) + np.trace(sigma2) - 2 * tr_covmean, rec


def features(n, d, rank=None, const_cols=0, shift=0.0):
    if rank is None:
        x = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) * 0.3 + shift
    else:
        x = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d)) + shift
    x = np.abs(x)  # pool3 features are non-negative
    if const_cols:
        x[:, :const_cols] = 0.25
    return x.astype(np.float32)


cases = {
    "rand8": (features(40, 8), features(40, 8, shift=0.2)),
    "rand32": (features(100, 32), features(90, 32, shift=0.1)),
    "rand64": (features(150, 64), features(150, 64, shift=0.05)),
    "fewer_rows_than_dims": (features(20, 48), features(24, 48, shift=0.1)),
    "low_rank": (features(60, 24, rank=5), features(60, 24, rank=7)),
    "constant_features": (features(50, 16, const_cols=3), features(50, 16, const_cols=3, shift=0.3)),
}
a = features(30, 12)
cases["identical"] = (a, a.copy())
# One constant feature set (every row the same, float64 features so that
# the mean is inexact): its covariance is only rounding residue (~1e-30),
# the product is rank one at the residue level. With the random set first
# scipy's sqrtm of it stays finite (complex), so no eps fallback is taken.
# With the constant set first ("constant_set_first") balancing isolates
# two zero rows and the Schur form from LAPACK's dgehd2 and dlahqr has one
# more exact zero on its diagonal, so Higham's recurrence divides a
# non-zero by 0 + 0, sqrtm returns NaN and the eps fallback runs. Whether
# that zero is exact depends on the rounding of every BLAS call before it
# (np.cov's dsyrk, the dgemm of the product, dgemv/dger/dnrm2 in dgehd2):
# these goldens come from OpenBLAS's kernels for the CPU named in "blas".
# Its own generator keeps the draws above.
rng2 = np.random.default_rng(78)
# Float64 features (full mantissas) make the mean inexact, hence residue.
row = np.abs(rng2.normal(size=(1, 16))) + 0.1
cases["constant_set"] = (np.abs(rng2.normal(size=(50, 16))), np.repeat(row, 50, axis=0))
cases["constant_set_first"] = cases["constant_set"][::-1]
# Constant sets beside random ones of 12 and 44 features (np.cov's dsyrk
# sums some elements in 2 or 4 partial sums there), both orders.
rng3 = np.random.default_rng(79)
for d, r1, r2 in ((12, 199, 45), (44, 120, 60)):
    x = np.abs(rng3.normal(size=(r1, d)))
    c = np.repeat(np.abs(rng3.normal(size=(1, d))) + 0.1, r2, axis=0)
    cases["constant_set%d" % d] = (x, c)
    cases["constant_set%d_first" % d] = (c, x)

out = {"numpy": np.__version__, "scipy": scipy.__version__, "cases": {}}
try:
    from threadpoolctl import threadpool_info
    out["blas"] = " ".join(
        "{} {} {}".format(p.get("internal_api"), p.get("version"), p.get("architecture"))
        for p in threadpool_info() if p.get("user_api") == "blas")
except ImportError:
    pass
for name, (fa, fb) in cases.items():
    np.save(os.path.join(here, name + "_a.npy"), fa)
    np.save(os.path.join(here, name + "_b.npy"), fb)
    a64, b64 = fa.astype(np.float64), fb.astype(np.float64)
    mu1, s1 = np.mean(a64, axis=0), np.cov(a64, rowvar=False)
    mu2, s2 = np.mean(b64, axis=0), np.cov(b64, rowvar=False)
    v, rec = fid(mu1, s1, mu2, s2)
    rec["fid"] = None if v is None else repr(float(v))
    rec["mu1_sum"] = repr(float(np.sum(mu1)))
    rec["sigma1_sum"] = repr(float(np.sum(s1)))
    if name == "rand8":
        rec["mu1"] = [repr(float(x)) for x in mu1]
        rec["sigma1"] = [repr(float(x)) for x in s1.ravel()]
    out["cases"][name] = rec

# statistics given directly: the singular-product fallback (a nilpotent
# product) and the imaginary-component error (a product of -I and I).
stats = {
    "nilpotent_product": (np.zeros(2), np.array([[0.0, 1.0], [0.0, 0.0]]), np.ones(2), np.eye(2)),
    "imaginary": (np.zeros(2), -np.eye(2), np.zeros(2), np.eye(2)),
    "diag_negative_small": (np.array([0.5, 1.0, 2.0]), np.diag([1.0, 2.0, -1e-12]), np.zeros(3), np.diag([3.0, 1.0, 1.0])),
}
out["stats"] = {}
for name, (mu1, s1, mu2, s2) in stats.items():
    v, rec = fid(mu1, s1, mu2, s2)
    rec["fid"] = None if v is None else repr(float(v))
    rec["mu1"], rec["mu2"] = [repr(float(x)) for x in mu1], [repr(float(x)) for x in mu2]
    rec["sigma1"], rec["sigma2"] = [repr(float(x)) for x in s1.ravel()], [repr(float(x)) for x in s2.ravel()]
    out["stats"][name] = rec

# sqrtm on small matrices: real, negative and complex eigenvalues, singular.
mats = {
    "spd": (lambda m: m @ m.T + np.eye(5))(rng.normal(size=(5, 5))),
    "nonsym_real": np.array([[1.0, 3.0], [1.0, 4.0]]),
    "complex_eigs": rng.normal(size=(6, 6)),
    "negative_eig": np.diag([4.0, -1.0, 9.0]) + np.triu(rng.normal(size=(3, 3)), 1),
    "rotation": np.array([[0.0, -1.0], [1.0, 0.0]]),
    "zero": np.zeros((3, 3)),
    "nilpotent": np.array([[0.0, 1.0], [0.0, 0.0]]),
}
out["sqrtm"] = {}
for name, m in mats.items():
    x, err = linalg.sqrtm(m, disp=False)
    out["sqrtm"][name] = {
        "a": [repr(float(v)) for v in m.ravel()],
        "complex": bool(np.iscomplexobj(x)),
        "finite": bool(np.isfinite(x).all()),
        "re": [repr(float(v)) for v in np.real(x).ravel()],
        "im": [repr(float(v)) for v in np.imag(x).ravel()],
    }
with open(os.path.join(here, "golden.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
