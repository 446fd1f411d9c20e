// Package fid computes the Fréchet Inception Distance as mlcommons/inference
// text_to_image/tools/fid/fid_score.py (pytorch-fid's
// calculate_frechet_distance) does, with scipy.linalg.sqrtm's Schur-based
// matrix square root. For small matrices it emulates, rounding for
// rounding, the OpenBLAS and LAPACK routines numpy and scipy call (obkern.go),
// so that the exact zeros LAPACK's decisions depend on come out the same.
// It also prints the SDXL result line (FID and CLIP score).
package fid
