// Package sample picks the next token of a generated sequence from a model's
// logits: greedy argmax with a minimum length (Llama 2), and the Hugging Face
// beam search of transformers' BeamSearchScorer (GPT-J), as a step API that a
// decode loop drives.
//
// Everything works on plain []float32 rows of vocabulary width. Nothing here
// knows about tensors, sessions or caches: a decode loop runs the model,
// hands the last-position logits of each live sequence to a sampler, feeds
// back the tokens it returns and, for beam search, reorders its KV cache by
// the parent beams it returns.
package sample

import (
	"errors"
	"math"
)

// ErrBadInput is wrapped by every error about the shape or content of the
// logits or the configuration handed to this package.
var ErrBadInput = errors.New("sample: bad input")

// LogSoftmax writes log_softmax(logits) into dst and returns it; dst is grown
// when it is too short and may be logits itself (in place). The result is
// float32, computed in the same three steps as torch's log_softmax kernel
// for a float32 row: m = max(x); s = Σ exp(x−m); y = (x−m) − log(s). The
// subtraction x−m and the final subtraction are done in float32 as torch
// does; exp and the running sum are done in float64 and log(s) is rounded
// once to float32. torch sums in float32 in a vectorised order that depends
// on the CPU or GPU kernel, so no implementation reproduces its last bit
// everywhere; this one is within one float32 ulp of it and is
// deterministic. A row containing +Inf gives NaN where torch does too; -Inf
// entries give -Inf. An empty row returns dst[:0].
func LogSoftmax(dst, logits []float32) []float32 {
	if cap(dst) < len(logits) {
		dst = make([]float32, len(logits))
	}
	dst = dst[:len(logits)]
	if len(logits) == 0 {
		return dst
	}
	m, ls := logSumExp(logits)
	for i, v := range logits {
		dst[i] = (v - m) - ls
	}
	return dst
}

// rowMax is the m of LogSoftmax: the largest value of a non-empty row, NaN
// as soon as the row holds one.
func rowMax(row []float32) float32 {
	m := row[0]
	for _, v := range row[1:] {
		if v > m || v != v {
			m = v
		}
	}
	return m
}

// logSumExp returns m = rowMax(row) and ls, the float32 rounding of
// log(Σ exp(x−m)) with exp and the sum in float64 in row order: the two
// values LogSoftmax subtracts. row must not be empty.
//
// The sum is first taken with fastExp (fastExpSum). Its result differs
// from the sum of math.Exp by at most sumSlack (relative); when log of the fast sum is far
// enough from a float32 rounding boundary that every value within that
// slack rounds to the same float32, that float32 is exactly what the
// math.Exp sum gives. Otherwise (rare: a boundary within about 1e-11, or a
// row so peaked that log(s) is tiny) the sum is redone with math.Exp. The
// result is therefore bit for bit the float32(math.Log(Σ math.Exp(…))) of
// the plain loop, at a fraction of its cost.
func logSumExp(row []float32) (m, ls float32) {
	m = rowMax(row)
	if m != m || math.IsInf(float64(m), 0) {
		// log(s) is NaN (exp of NaN or of -Inf − -Inf), and so is every
		// (x−m) − log(s): the plain sum, for the very same NaN
		return m, plainLogSum(row, m)
	}
	s := fastExpSum(row, m)
	l := math.Log(s)
	// s ≥ 1 (the maximum contributes exp(0) = 1), so a relative error e
	// of s is an absolute error of at most e(1+e) in log(s); math.Log is
	// within one ulp on both sides, and l ± d is rounded once more.
	d := sumSlack(len(row)) + 8*epsilon64*l
	if lo, hi := float32(l-d), float32(l+d); lo == hi {
		return m, lo
	}
	return m, plainLogSum(row, m)
}

// plainLogSum is float32(log(Σ math.Exp(float64(x − m)))) in row order.
func plainLogSum(row []float32, m float32) float32 {
	var s float64
	for _, v := range row {
		s += math.Exp(float64(v - m))
	}
	return float32(math.Log(s))
}

const (
	epsilon64 = 0x1p-52 // float64 ulp of 1
	// fastExpErr bounds |fastExp(x) − math.Exp(x)| / math.Exp(x) on
	// [expMin, 0] (measured below 1.5e-13: the truncation of fastExp's
	// polynomial); terms below exp(expMin) are 0 in fastExp and at most
	// 2^-1021 in math.Exp, nothing next to a sum of at least 1.
	fastExpErr = 4e-13
)

// sumSlack bounds the relative difference of two float64 sums of n
// non-negative terms (in any order), the second's terms within fastExpErr
// of the first's (and absolutely within 2^-1000), the first sum being at
// least 1: the term errors add up to fastExpErr of the sum, and each sum is
// within (n−1)/2 ulps of the sum of its terms.
func sumSlack(n int) float64 {
	return 1.01*(fastExpErr+float64(n+1)*epsilon64) + float64(n)*0x1p-1000
}

// expTab holds 2^(j/256) for j in [0, 256) as float64 bits with j<<44
// subtracted, so that adding k<<44 (k = 256·exponent + j, two's
// complement) gives the bits of 2^(k/256) directly.
var expTab = func() (t [256]uint64) {
	for j := range t {
		t[j] = math.Float64bits(math.Exp2(float64(j)/256)) - uint64(j)<<44
	}
	return t
}()

const (
	expMin  = -708 // fastExp is 0 below
	invLn2N = 256 / math.Ln2
	shift   = 0x1.8p52                         // rounds z to an integer held in the low bits
	ln2hiN  = 6.93147180369123816490e-01 / 256 // 32 significant bits: k·ln2hiN is exact
	ln2loN  = 1.90821492927058770002e-10 / 256 // ln2/256 − ln2hiN
)

// fastExp is exp(x) for expMin ≤ x ≤ 0 within fastExpErr of math.Exp:
// x = k·ln2/256 + r with |r| ≤ ln2/512, exp(x) = 2^(k/256)·exp(r),
// 2^(k/256) from expTab and exp(r) from its degree-3 Taylor polynomial
// (truncation below 1.5e-13).
func fastExp(x float64) float64 {
	kd := x*invLn2N + shift
	ki := math.Float64bits(kd)
	kd -= shift
	r := x - kd*ln2hiN - kd*ln2loN
	scale := math.Float64frombits(expTab[ki&255] + ki<<44)
	return scale + scale*(r+r*r*(0.5+r*(1.0/6)))
}

// fastExpSum is Σ fastExp(float64(v − m)) over row, terms below expMin
// left out, summed four ways (the order is free within sumSlack).
func fastExpSum(row []float32, m float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(row); i += 4 {
		r := row[i : i+4 : i+4]
		x0, x1, x2, x3 := float64(r[0]-m), float64(r[1]-m), float64(r[2]-m), float64(r[3]-m)
		if x0 >= expMin && x1 >= expMin && x2 >= expMin && x3 >= expMin {
			s0 += fastExp(x0)
			s1 += fastExp(x1)
			s2 += fastExp(x2)
			s3 += fastExp(x3)
			continue
		}
		for _, x := range [4]float64{x0, x1, x2, x3} {
			if x >= expMin {
				s0 += fastExp(x)
			}
		}
	}
	for ; i < len(row); i++ {
		if x := float64(row[i] - m); x >= expMin {
			s0 += fastExp(x)
		}
	}
	return (s0 + s1) + (s2 + s3)
}

// Argmax returns the index of the largest value of row, the first one on
// ties (torch.argmax's rule); -1 for an empty row. NaN is treated as larger
// than any number, as torch does; the first NaN wins.
func Argmax(row []float32) int {
	if len(row) == 0 {
		return -1
	}
	best := 0
	for i := 1; i < len(row); i++ {
		v, b := row[i], row[best]
		if b != b {
			return best
		}
		if v > b || v != v {
			best = i
		}
	}
	return best
}
