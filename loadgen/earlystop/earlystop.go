// Package earlystop computes MLPerf's early-stopping criterion exactly as
// LoadGen's early_stopping.cc: with tolerance 0 and confidence 0.99, how
// many queries may exceed a latency bound (Server), and which sorted
// latency is the early-stopping percentile estimate (SingleStream and
// MultiStream). Functions are pure and safe for concurrent use.
package earlystop

import "math"

// Confidence is LoadGen's hard-coded confidence level.
const Confidence = 0.99

// odds is the regularised incomplete beta function I_p(h, t+1): the
// probability that the true percentile is not met given h queries under
// and t over the bound. It follows LoadGen's formula: exp(h ln p + t
// ln(1-p) - lbeta(h, t+1)) / h * 2F1(1, -t; 1+h; p/(p-1)), with the
// hypergeometric series summed until a term is at most 2^-33.
func odds(h, t int64, p float64) float64 {
	hf, tf := float64(h), float64(t)
	lgh, _ := math.Lgamma(hf)
	lgt, _ := math.Lgamma(tf + 1)
	lgs, _ := math.Lgamma(hf + tf + 1)
	lbeta := lgh + lgt - lgs
	front := math.Exp(hf*math.Log(p)+tf*math.Log(1-p)-lbeta) / hf
	z := p / (p - 1)
	sum, term := 1.0, 1.0
	for k := int64(0); k < t; k++ {
		term *= float64(k-t) / (hf + 1 + float64(k)) * z
		sum += term
		if math.Abs(term) <= 1.0/(1<<33) {
			break
		}
	}
	return front * sum
}

// MinPassing returns the smallest number of under-bound queries h for
// which t over-bound queries still pass at percentile p: odds(h, t, p) <
// 1 - Confidence. It is monotone in t.
func MinPassing(t int64, p float64) int64 {
	limit := 1 - Confidence
	// h >= t*p/(1-p) is necessary; start the search below that.
	lo := int64(math.Floor(float64(t) * p / (1 - p) * 0.9))
	lo = max(lo, 1)
	for odds(lo, t, p) < limit && lo > 1 {
		lo /= 2
	}
	hi := max(lo*2, lo+16)
	for odds(hi, t, p) >= limit {
		lo = hi
		hi *= 2
	}
	// Invariant: odds(lo) >= limit (or lo is 1), odds(hi) < limit.
	if odds(lo, t, p) < limit {
		return lo
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if odds(mid, t, p) < limit {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Server checks a Server run: n samples of which over exceeded the latency
// bound. met reports whether early stopping is satisfied; when not, need is
// how many more queries would have to run, all under the bound.
func Server(n, over int64, p float64) (met bool, need int64) {
	h := MinPassing(over, p)
	if n >= h+over {
		return true, 0
	}
	return false, h + over - n
}

// Estimate is a SingleStream/MultiStream early-stopping result.
type Estimate struct {
	MinQueries int64 // queries needed for any estimate (h_min + 1)
	T          int64 // the t of the passing criterion
	Discarded  int64 // highest latencies discarded: T - 1
	Index      int64 // index into the ascending-sorted latencies of the estimate: n - T
}

// Sequence computes the early-stopping estimate for n query latencies at
// percentile p. ok is false when n is below the minimum (MinQueries is
// still set then).
func Sequence(n int64, p float64) (est Estimate, ok bool) {
	hMin := MinPassing(1, p)
	est.MinQueries = hMin + 1
	if n < hMin+1 {
		return est, false
	}
	// The first i >= 2 with n < MinPassing(i)+i; MinPassing(i)+i grows with i.
	passes := func(i int64) bool { return n >= MinPassing(i, p)+i }
	lo := int64(1) // passes (n >= hMin + 1)
	hi := int64(2)
	for passes(hi) {
		lo = hi
		hi *= 2
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if passes(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	t := hi - 1
	est.T = t
	est.Discarded = t - 1
	est.Index = n - t
	return est, true
}
