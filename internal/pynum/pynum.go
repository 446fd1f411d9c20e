// Package pynum reproduces, bit for bit, the numpy and Python numerics the
// MLCommons reference accuracy scripts (e.g. mlcommons/inference
// language/gpt-j/evaluation.py, text_to_image/tools/fid/fid_score.py) apply
// to their scores: numpy's pairwise summation behind np.sum and np.mean,
// np.round, Python's round(x, 1) and Python's repr of a float. The
// functions are pure and safe for concurrent use.
package pynum

import (
	"math"
	"strconv"
	"strings"
)

// Sum is numpy's pairwise summation of float64 (the
// add.reduce that np.mean uses): blocks of up to 128 elements summed with
// eight accumulators, larger arrays split in halves rounded to a multiple
// of 8.
func Sum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		s := math.Copysign(0, -1) // numpy starts from -0.0
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for k := range 8 {
				r[k] += a[i+k]
			}
		}
		s := (r[0] + r[1]) + (r[2] + r[3]) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return Sum(a[:n2]) + Sum(a[n2:])
	}
}

// Round is np.round(x, decimals) for decimals >= 0: multiply by
// 10^decimals, round half to even, divide.
func Round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.RoundToEven(x*p) / p
}

// Round1 is Python's round(x, 1) on a float: correctly rounded to the
// nearest decimal with one digit (ties to even on the exact binary value).
func Round1(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 1, 64), 64)
	return v
}

// FloatRepr formats x as Python's repr(float) does for the magnitudes
// these metrics take (shortest round-trip digits, at least one decimal).
func FloatRepr(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		switch {
		case math.IsNaN(x):
			return "nan"
		case x > 0:
			return "inf"
		}
		return "-inf"
	}
	ax := math.Abs(x)
	if ax != 0 && (ax < 1e-4 || ax >= 1e16) {
		return strconv.FormatFloat(x, 'e', -1, 64) // 1e-05, 1e+16 as Python
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}
