package coco

import "math"

// Numerical building blocks that reproduce numpy bit for bit where COCOeval
// leans on it.

// numpyLinspace returns np.linspace(start, stop, num) (endpoint=True):
// i*step + start with step = (stop-start)/(num-1), the last value set to
// stop.
func numpyLinspace(start, stop float64, num int) []float64 {
	out := make([]float64, num)
	step := (stop - start) / float64(num-1)
	for i := range out {
		// The conversion keeps a fused multiply-add out (Go may fuse x*y+z).
		out[i] = float64(float64(i)*step) + start
	}
	out[num-1] = stop
	return out
}

// numpyBufSize is numpy's default ufunc buffer size: a reduction adds the
// pairwise sums of consecutive blocks of this many elements.
const numpyBufSize = 8192

// numpySum returns np.add.reduce(a) for a contiguous float64 array: 0.0
// plus the pairwise sum of each 8192-element block, in order (numpy 1.24's
// buffered reduction loop; checked against it on random data).
func numpySum(a []float64) float64 {
	s := 0.0
	for len(a) > 0 {
		n := min(len(a), numpyBufSize)
		s += pairwiseSum(a[:n])
		a = a[n:]
	}
	return s
}

// pairwiseSum is numpy's pairwise_sum for float64: plain loop under 8
// elements, 8 accumulators up to 128, halves (rounded to a multiple of 8)
// above.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		s := 0.0
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += a[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
}

// scoreCmp orders detections as np.argsort(-scores, kind='mergesort')
// does once the ties are broken by position: higher score first, NaN last.
// It returns -1, 0 or +1 for use in a stable or position-tie-broken sort.
func scoreCmp(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	case a == b:
		return 0
	}
	// At least one NaN: NaN sorts after numbers, NaNs tie.
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && !bn:
		return 1
	case bn && !an:
		return -1
	}
	return 0
}

// cFmin and cFmax are C99 fmin and fmax: a NaN argument yields the other.
func cFmin(a, b float64) float64 {
	if a < b || b != b {
		return a
	}
	return b
}

func cFmax(a, b float64) float64 {
	if a > b || b != b {
		return a
	}
	return b
}
