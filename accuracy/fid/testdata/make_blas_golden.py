#!/usr/bin/env python3
"""Bit-level goldens for the OpenBLAS/LAPACK rounding order that
accuracy/fid/obkern.go follows: numpy's a.dot(b) (OpenBLAS's small dgemm
kernel), np.cov (dsyrk), LAPACK's permutation balancing, dgehrd and
dorghr as scipy.linalg.lapack calls them (dgehd2 and dorg2r over OpenBLAS's
dgemv, dger and dnrm2 kernels), and scipy.linalg.schur's T and Z (dgees:
the above, then dlahqr with OpenBLAS's drot), written as float64 .npy
files under blas/ with an index in blas/index.json.

  /usr/bin/python3 make_blas_golden.py

Needs Debian's python3-numpy and python3-scipy on OpenBLAS (libopenblas0);
the kernels, hence the bits, are those OpenBLAS picks for the CPU that
"blas" in the index names (these were made on Cooper Lake, AVX-512).
"""
import json, os
import numpy as np
from scipy.linalg import lapack, schur
from threadpoolctl import threadpool_info

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "blas")
os.makedirs(here, exist_ok=True)
rng = np.random.default_rng(2026)
index = {"blas": " ".join("{} {} {}".format(p.get("internal_api"), p.get("version"), p.get("architecture"))
                          for p in threadpool_info() if p.get("user_api") == "blas"),
         "gemm": [], "cov": [], "hessenberg": []}


def save(name, a):
    np.save(os.path.join(here, name + ".npy"), np.ascontiguousarray(a, dtype=np.float64))


# Products: n mod 8 in 1..4 with n >= 16 takes the kernel's lane-reduction
# path for the last columns; 5 is all FMA chains.
for n in (5, 20, 26, 33, 43):
    a, b = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    name = "gemm%d" % n
    save(name + "_a", a), save(name + "_b", b), save(name + "_c", a.dot(b))
    index["gemm"].append(name)

# Covariances: more than 384 rows splits dsyrk's K.
for rows, d in ((50, 16), (800, 7)):
    x = np.abs(rng.normal(size=(rows, d)))
    name = "cov%dx%d" % (rows, d)
    save(name + "_x", x), save(name + "_c", np.cov(x, rowvar=False))
    index["cov"].append(name)

# Hessenberg reductions: the residue-level product of the constant_set_first
# FID case, a random matrix, and one at residue scale with zero rows and
# columns for balancing to isolate.
fid = os.path.dirname(here)
s1 = np.cov(np.load(os.path.join(fid, "constant_set_first_a.npy")), rowvar=False)
s2 = np.cov(np.load(os.path.join(fid, "constant_set_first_b.npy")), rowvar=False)
m3 = rng.normal(size=(37, 37)) * 1e-20
m3[[3, 17], :] = 0
m3[:, 30] = 0
for name, m in (("hess_constant_set_first", s1.dot(s2)), ("hess_rand23", rng.normal(size=(23, 23))), ("hess_zero_rows37", m3)):
    bal, lo, hi, _, info = lapack.dgebal(m, permute=1, scale=0)
    assert info == 0
    h, tau, info = lapack.dgehrd(bal, lo=lo, hi=hi)
    assert info == 0
    q, info = lapack.dorghr(h, tau, lo=lo, hi=hi)
    assert info == 0
    t, z = schur(m)
    save(name + "_a", m), save(name + "_bal", bal), save(name + "_h", h), save(name + "_tau", tau), save(name + "_q", q)
    save(name + "_t", t), save(name + "_z", z)
    index["hessenberg"].append({"name": name, "ilo": int(lo), "ihi": int(hi)})

# Covariances of 12, 44 and 77 features reach the kernel's row tails in
# 12-column blocks (their own generator keeps the draws above).
rng_tail = np.random.default_rng(2027)
for rows, d in ((61, 12), (500, 44), (90, 77)):
    x = np.abs(rng_tail.normal(size=(rows, d)))
    name = "cov%dx%d" % (rows, d)
    save(name + "_x", x), save(name + "_c", np.cov(x, rowvar=False))
    index["cov"].append(name)

with open(os.path.join(here, "index.json"), "w") as f:
    json.dump(index, f, indent=1, sort_keys=True)
    f.write("\n")
