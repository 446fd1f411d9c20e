package report

import (
	"math"
	"slices"

	"github.com/mlperf-go/inference/loadgen/querylog"
)

// sampleStats are the per-sample figures of a series, computed as the
// loadgen computes them (so that they match the detail log's): latency =
// completion − the query's scheduled time over the samples completed
// without an error; MultiStream's query latency is its last sample's;
// TTFT = first token − scheduled, TPOT = (completion − first token) /
// (tokens − 1) over samples of more than one token.
type sampleStats struct {
	lat, queryLat, ttft, tpot []int64 // ascending
	tokens                    []int64 // per completed sample, in order
	failed, outstanding       int
	start, end                int64 // first scheduled time, last completion (ns)
}

func newSampleStats(s *querylog.Series, multiStream bool) *sampleStats {
	st := &sampleStats{start: math.MaxInt64}
	spq := s.SamplesPerQuery
	for q := range s.Scheduled {
		st.start = min(st.start, s.Scheduled[q])
		var last int64
		ok := true
		for i := q * spq; i < (q+1)*spq; i++ {
			x := s.Samples[i]
			switch {
			case x.Completed < 0:
				st.outstanding++
				ok = false
				continue
			case x.Failed:
				st.failed++
				ok = false
				continue
			}
			st.end = max(st.end, x.Completed)
			last = max(last, x.Completed)
			st.lat = append(st.lat, x.Completed-s.Scheduled[q])
			if s.Tokens {
				st.tokens = append(st.tokens, int64(x.Tokens))
				if x.FirstToken >= 0 {
					st.ttft = append(st.ttft, x.FirstToken-s.Scheduled[q])
					if x.Tokens > 1 {
						st.tpot = append(st.tpot, (x.Completed-x.FirstToken)/int64(x.Tokens-1))
					}
				}
			}
		}
		if multiStream && ok {
			st.queryLat = append(st.queryLat, last-s.Scheduled[q])
		}
	}
	if st.start == math.MaxInt64 {
		st.start = 0
	}
	for _, v := range [][]int64{st.lat, st.queryLat, st.ttft, st.tpot} {
		slices.Sort(v)
	}
	return st
}

// at is the loadgen's percentile of an ascending series: the element at
// floor(n × p).
func at(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(int(float64(len(sorted))*p), len(sorted)-1)]
}

// window is one time bucket of a series.
type window struct {
	t0, t1         float64 // seconds from the series' start
	issued, done   int
	p50, p99, pmax float64 // latency of the samples completed in it (ns); NaN when none
	lag99, lagMax  float64 // issue lag of the queries issued in it (ns); NaN when none
}

// windowWidth picks the bucket width for a series of the given length
// (seconds): one second for runs of 20 s to 10 minutes (the per-second
// view), else the narrowest 1-2-5 width giving at most 60 buckets for
// shorter runs and at most 600 for longer ones.
func windowWidth(length float64) float64 {
	if length >= 20 && length <= 600 {
		return 1
	}
	most := 60.0
	if length > 600 {
		most = 600
	}
	for e := -4.0; e <= 9; e++ {
		for _, m := range []float64{1, 2, 5} {
			if w := m * math.Pow(10, e); length/w <= most {
				return w
			}
		}
	}
	return length / most
}

// windows buckets a series by completion time (throughput, latency) and
// issue time (issue rate, lag).
func windows(s *querylog.Series, st *sampleStats) ([]window, float64) {
	length := float64(st.end-st.start) / 1e9
	if length <= 0 {
		return nil, 0
	}
	w := windowWidth(length)
	n := int(math.Ceil(length/w)) + 1
	ws := make([]window, n)
	lats := make([][]int64, n)
	lags := make([][]int64, n)
	idx := func(t int64) int { return min(max(int(float64(t-st.start)/1e9/w), 0), n-1) }
	spq := s.SamplesPerQuery
	for q := range s.Scheduled {
		k := idx(s.Issued[q])
		ws[k].issued += spq
		lags[k] = append(lags[k], s.Issued[q]-s.Scheduled[q])
		for i := q * spq; i < (q+1)*spq; i++ {
			x := s.Samples[i]
			if x.Completed < 0 || x.Failed {
				continue
			}
			k := idx(x.Completed)
			ws[k].done++
			lats[k] = append(lats[k], x.Completed-s.Scheduled[q])
		}
	}
	for k := range ws {
		ws[k].t0, ws[k].t1 = float64(k)*w, float64(k+1)*w
		ws[k].p50, ws[k].p99, ws[k].pmax = math.NaN(), math.NaN(), math.NaN()
		ws[k].lag99, ws[k].lagMax = math.NaN(), math.NaN()
		if l := lats[k]; len(l) > 0 {
			slices.Sort(l)
			ws[k].p50, ws[k].p99, ws[k].pmax = float64(at(l, 0.5)), float64(at(l, 0.99)), float64(l[len(l)-1])
		}
		if l := lags[k]; len(l) > 0 {
			slices.Sort(l)
			ws[k].lag99, ws[k].lagMax = float64(at(l, 0.99)), float64(l[len(l)-1])
		}
	}
	return ws, w
}
