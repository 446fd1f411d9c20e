// Package hist is a concurrent histogram of durations for figures
// measured on the hot path of a run (server-side timings, queue waits):
// Record is a few atomic adds, with no lock, so that many goroutines can
// record at hundreds of thousands of values per second; Dist reads an
// estimate of the distribution at any time.
//
// Buckets are log-linear: values under 128 ns are exact, larger ones fall
// in one of 64 equal buckets per power of two, so a percentile is within
// 1/128 (0.8%) of a value of the series; the count, mean, min and max are
// exact. Memory is fixed (about 30 KiB per histogram).
package hist

import (
	"math/bits"
	"sync/atomic"

	"github.com/mlperf-go/inference/loadgen"
)

const (
	subBits = 6
	sub     = 1 << subBits // buckets per power of two
	// nBuckets covers every non-negative int64: groups 0 and 1 hold
	// 0..127 exactly, group g ≥ 2 holds [64<<(g-1), 128<<(g-1)).
	nBuckets = (64 - subBits) * sub
)

// Hist counts non-negative durations in ns. The zero value is ready to
// use; it must not be copied after first use. All methods are safe for
// concurrent use.
type Hist struct {
	count, sum atomic.Int64
	min, max   atomic.Int64 // min holds ^value so that the zero value works
	buckets    [nBuckets]atomic.Int64
}

func index(v int64) int {
	if v < 2*sub {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - subBits - 1
	return (shift+1)*sub + int(v>>shift) - sub
}

// bounds returns the lowest value of bucket i and its width.
func bounds(i int) (lo, width int64) {
	if i < 2*sub {
		return int64(i), 1
	}
	shift := i/sub - 1
	return int64(sub+i%sub) << shift, 1 << shift
}

// Record adds one value (ns); a negative one counts as 0.
func (h *Hist) Record(v int64) {
	v = max(v, 0)
	h.count.Add(1)
	h.sum.Add(v)
	h.buckets[index(v)].Add(1)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			break
		}
	}
	for {
		m := h.min.Load() // ^min; 0 (= ^-1) before the first value
		if (m != 0 && v >= ^m) || h.min.CompareAndSwap(m, ^v) {
			break
		}
	}
}

// Count is the number of values recorded.
func (h *Hist) Count() int64 { return h.count.Load() }

// Reset forgets every value. Values recorded during a Reset may be half
// kept; reset between series, not during one.
func (h *Hist) Reset() {
	h.count.Store(0)
	h.sum.Store(0)
	h.min.Store(0)
	h.max.Store(0)
	for i := range h.buckets {
		h.buckets[i].Store(0)
	}
}

// Dist summarises the values recorded so far: count, mean (integer
// division), min and max exactly; each percentile p as the middle of the
// bucket holding the value at floor(count*p) of the ascending order (as
// LoadGen indexes its percentiles), clamped to [min, max].
func (h *Hist) Dist() loadgen.Dist {
	var counts [nBuckets]int64
	var n int64
	for i := range h.buckets {
		counts[i] = h.buckets[i].Load()
		n += counts[i]
	}
	if n == 0 {
		return loadgen.Dist{}
	}
	lo, hi := ^h.min.Load(), h.max.Load()
	d := loadgen.Dist{Count: n, Min: lo, Max: hi, Mean: h.sum.Load() / max(h.count.Load(), 1)}
	at := func(p float64) int64 {
		rank := min(int64(float64(n)*p), n-1)
		var cum int64
		for i, c := range counts {
			cum += c
			if cum > rank {
				b, w := bounds(i)
				return min(max(b+w/2, lo), hi)
			}
		}
		return hi
	}
	d.P50, d.P90, d.P99, d.P999 = at(0.50), at(0.90), at(0.99), at(0.999)
	return d
}
