package loadgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/loadgen/earlystop"
)

// ReportedPercentiles are the latency percentiles LoadGen always reports.
var ReportedPercentiles = []float64{0.50, 0.90, 0.95, 0.97, 0.99, 0.999}

// LatencyStats summarises a set of latencies in nanoseconds. Percentiles
// are exact: the element at floor(n*p) of the ascending sort, as LoadGen.
type LatencyStats struct {
	Count       int
	Min, Max    int64
	Mean        int64   // integer sum / count, truncated
	Percentiles []int64 // for ReportedPercentiles, in order
	Target      int64   // at the scenario's target percentile
	sorted      []int64 // ascending
	targetP     float64
}

func newLatencyStats(lat []int64, target float64) LatencyStats {
	s := LatencyStats{Count: len(lat), targetP: target}
	if len(lat) == 0 {
		s.Percentiles = make([]int64, len(ReportedPercentiles))
		return s
	}
	slices.Sort(lat)
	s.sorted = lat
	s.Min, s.Max = lat[0], lat[len(lat)-1]
	var sum int64
	for _, v := range lat {
		sum += v
	}
	s.Mean = sum / int64(len(lat))
	for _, p := range ReportedPercentiles {
		s.Percentiles = append(s.Percentiles, s.At(p))
	}
	s.Target = s.At(target)
	return s
}

// Dist returns s as a detail log distribution.
func (s LatencyStats) Dist() Dist {
	return Dist{Count: int64(s.Count), Min: s.Min, Mean: s.Mean, P50: s.At(0.50), P90: s.At(0.90), P99: s.At(0.99), P999: s.At(0.999), Max: s.Max}
}

// IssueLagName is the name (after ExtraKeyPrefix) of the issue-lag
// entry ExtraIssueLag gives.
const IssueLagName = "issue_lag_ns"

// ExtraIssueLag returns the detail log entry of r's issue lag (a Dist
// under IssueLagName), for LogSettings.Extra; ok is false where the run
// measured none. Only the Server scenario has an issue lag: there each
// query has a scheduled time the loadgen may miss, while SingleStream and
// MultiStream schedule a query at the moment they issue it and Offline
// issues its one query at the start, so their lag is zero by definition.
func ExtraIssueLag(r *Result) (e DetailEntry, ok bool) {
	if r == nil || r.IssueLag.Count == 0 {
		return DetailEntry{}, false
	}
	return DetailEntry{Name: IssueLagName, Value: r.IssueLag.Dist()}, true
}

// over returns how many latencies exceed target (ns), by binary search
// over the sorted series.
func (s LatencyStats) over(target int64) int {
	i, _ := slices.BinarySearch(s.sorted, target+1)
	return len(s.sorted) - i
}

// At returns the latency at percentile p (0..1).
func (s LatencyStats) At(p float64) int64 {
	if len(s.sorted) == 0 {
		return 0
	}
	i := int(float64(len(s.sorted)) * p)
	return s.sorted[min(i, len(s.sorted)-1)]
}

// Result is the outcome of a run, with the figures LoadGen reports.
type Result struct {
	Scenario Scenario
	Mode     Mode

	Valid              bool
	MinDurationMet     bool
	MinQueriesMet      bool
	PerfConstraintsMet bool // Server only; true elsewhere
	EarlyStoppingMet   bool
	InvalidReasons     []string
	// Recommendations are LoadGen's own recommendation lines for an
	// invalid run, as its summary prints them after " * " (performance
	// constraints, min duration, min queries; a line may hold "\n * ").
	Recommendations []string
	// otherReasons are the reasons LoadGen has no text for (SUT errors,
	// timeouts, interruption), printed after the recommendations.
	otherReasons []string
	// stopReason is the performance series' end line of the detail log
	// ("Ending early: ..."), or "".
	stopReason string

	QueryCount    int // queries issued
	SampleCount   int // samples issued
	FailedSamples int // samples the SUT completed with an error
	// CompletedSamples are the samples completed without an error; the
	// latencies and throughputs count only these (they equal SampleCount
	// in a run that ends normally).
	CompletedSamples int
	// Interrupted is set when the run's context was cancelled before it
	// ended (Run then also returns an error wrapping ErrInterrupted).
	Interrupted bool

	Latency LatencyStats // per sample, completion - scheduled
	// IssueLag (Server) is, per query, the time IssueQuery was called
	// minus the query's scheduled time: how late the loadgen issued.
	IssueLag     LatencyStats
	QueryLatency LatencyStats // per query (MultiStream)

	DurationNs      int64 // last issue (SS/MS) or last schedule (Server) or max latency (Offline), from the start
	OverLatency     int   // Server: samples over the target latency
	SamplesPerSec   float64
	CompletedPerSec float64 // Server: (n-1)/last completion
	ScheduledPerSec float64 // Server: (n-1)/last scheduled time
	QPSWithOverhead float64 // SingleStream: (n-1)/last issue time
	QPSNoOverhead   float64 // SingleStream: 1e9/mean latency

	EarlyStopping      []string // the "Early Stopping Result" lines
	EarlyStoppingTTFT  []string // with token latencies: "TTFT Early Stopping Result" (empty when TPOT failed first)
	EarlyStoppingTPOT  []string // with token latencies: "TPOT Early Stopping Result"
	EarlyStoppingNs    int64    // SingleStream estimate at the target percentile (early_stopping_latency_ss)
	EarlyStoppingMSNs  int64    // estimate at 0.99 (early_stopping_latency_ms), 0 if not enough queries
	earlyStoppingMSSet bool

	// Token latencies (use_token_latencies).
	Tokens          int64
	TokensPerSec    float64
	TPSWithOverhead float64 // SingleStream: tokens / last issue time
	TPSNoOverhead   float64 // SingleStream: tokens / (mean latency × samples)
	// InferredTokensPerSec is token_latency_scaling_factor × the samples
	// per second (Offline) or completed samples per second (Server) when
	// infer_token_latencies is set; 0 otherwise.
	InferredTokensPerSec float64
	TTFT, TPOT           LatencyStats
	hasTokenMetrics      bool

	PeakQPS float64 // FindPeakPerformance: the highest passing QPS
	LogDir  string  // where the logs were written

	accuracy   bool
	failMsg    string // the first failed sample's error
	lastDone   int64  // ns from start to the completion of the last issued query
	lastIssued int64  // ns from start to the issue of the last query (final_query_issued_time)
}

// Metric returns the scenario's result metric, named as in the summary.
func (r *Result) Metric() (name string, value float64) {
	switch r.Scenario {
	case SingleStream:
		return fmt.Sprintf("%.1fth percentile latency (ns)", r.Latency.targetP*100), float64(r.Latency.Target)
	case MultiStream:
		return fmt.Sprintf("%.1fth percentile latency (ns)", r.QueryLatency.targetP*100), float64(r.QueryLatency.Target)
	case Server:
		return "Completed samples per second", r.CompletedPerSec
	}
	return "Samples per second", r.SamplesPerSec
}

// measure turns the raw timestamps of a series into a Result.
func (r *runState) measure(issued int, accuracy bool) *Result {
	res := &Result{QueryCount: issued, SampleCount: issued * r.spq, FailedSamples: int(r.failed.Load()), accuracy: accuracy}
	r.errMu.Lock()
	res.failMsg = r.failMsg
	r.errMu.Unlock()
	n := res.SampleCount
	lat := make([]int64, 0, n)
	for i := 0; i < n; i++ {
		d := r.done[i]
		if d == 0 || r.failedAt(i) {
			continue
		}
		lat = append(lat, d-r.sched[i/r.spq])
	}
	res.CompletedSamples = len(lat)
	if issued > 0 {
		// LoadGen's final_query_all_samples_done_time: when the last
		// issued query completed, not the latest completion of any query
		// (loadgen.cc IssueQueries).
		var lastDone int64
		for _, d := range r.done[(issued-1)*r.spq : issued*r.spq] {
			if d == 0 {
				lastDone = 0
				break
			}
			lastDone = max(lastDone, d)
		}
		if lastDone > 0 {
			res.lastDone = lastDone - r.start
		}
		res.lastIssued = r.sched[issued-1] - r.start
		if r.lastIssued > 0 {
			res.lastIssued = r.lastIssued - r.start
		}
	}
	if r.lag != nil {
		res.IssueLag = newLatencyStats(slices.Clone(r.lag[:min(issued, len(r.lag))]), 0.99)
	}
	if r.e.scenario == MultiStream {
		ql := make([]int64, 0, issued)
		for q := 0; q < issued; q++ {
			var last int64
			ok := true
			for i, d := range r.done[q*r.spq : (q+1)*r.spq] {
				if d == 0 || r.failedAt(q*r.spq+i) {
					ok = false
					break
				}
				last = max(last, d)
			}
			if ok {
				ql = append(ql, last-r.sched[q])
			}
		}
		res.QueryLatency = newLatencyStats(ql, r.e.targetLatencyPercentile)
	}
	if r.first != nil {
		res.hasTokenMetrics = true
		var ttft, tpot []int64
		for i := 0; i < n; i++ {
			tok := int64(r.tokens[i])
			res.Tokens += tok
			if r.first[i] == 0 || r.done[i] == 0 || r.failedAt(i) {
				continue
			}
			ttft = append(ttft, r.first[i]-r.sched[i/r.spq])
			if tok > 1 {
				tpot = append(tpot, (r.done[i]-r.first[i])/(tok-1))
			}
		}
		res.TTFT = newLatencyStats(ttft, r.e.targetLatencyPercentile)
		res.TPOT = newLatencyStats(tpot, r.e.targetLatencyPercentile)
	}
	res.Latency = newLatencyStats(lat, r.e.targetLatencyPercentile)
	if r.e.scenario == Server {
		res.OverLatency = res.Latency.over(r.e.targetLatencyNs)
	}
	if issued > 0 {
		switch r.e.scenario {
		case SingleStream, MultiStream:
			res.DurationNs = r.sched[issued-1] - r.start
		case Server:
			res.DurationNs = r.sched[issued-1] - r.start
		case Offline:
			res.DurationNs = res.Latency.Max
		}
	}
	return res
}

// failedAt says whether sample i of the series was completed with an error.
func (r *runState) failedAt(i int) bool {
	return r.failMask != nil && r.failMask[i/64]&(1<<(i%64)) != 0
}

func mergeAccuracy(a, b *Result) *Result {
	if a == nil {
		return b
	}
	a.QueryCount += b.QueryCount
	a.SampleCount += b.SampleCount
	a.FailedSamples += b.FailedSamples
	a.CompletedSamples += b.CompletedSamples
	a.Interrupted = a.Interrupted || b.Interrupted
	a.InvalidReasons = append(a.InvalidReasons, b.InvalidReasons...)
	return a
}

// evaluate computes the metrics and the validity checks.
func (r *Result) evaluate(e *effective) {
	if r.FailedSamples > 0 {
		why := fmt.Sprintf("the SUT reported an error for %d samples", r.FailedSamples)
		if m := r.failMsg; m != "" {
			if len(m) > 240 {
				m = m[:240] + "..."
			}
			why += " (the first: " + m + ")"
		}
		r.InvalidReasons = append(r.InvalidReasons, why)
	}
	r.otherReasons = slices.Clone(r.InvalidReasons)
	if r.accuracy {
		r.MinDurationMet, r.MinQueriesMet, r.PerfConstraintsMet, r.EarlyStoppingMet = true, true, true, true
		r.Valid = len(r.InvalidReasons) == 0
		return
	}
	n := float64(r.SampleCount)
	if r.CompletedSamples < r.SampleCount {
		// Interrupted, failed or timed-out samples are not throughput.
		n = float64(r.CompletedSamples)
	}
	secs := func(ns int64) float64 { return float64(ns) / 1e9 }
	switch e.scenario {
	case SingleStream:
		if r.DurationNs > 0 {
			r.QPSWithOverhead = (float64(r.QueryCount) - 1) / secs(r.DurationNs)
		}
		if r.Latency.Mean > 0 {
			r.QPSNoOverhead = 1e9 / float64(r.Latency.Mean)
		}
	case Server:
		if r.lastDone > 0 {
			r.CompletedPerSec = (n - 1) / secs(r.lastDone)
		}
		if r.DurationNs > 0 {
			r.ScheduledPerSec = (n - 1) / secs(r.DurationNs)
		}
	case Offline:
		if r.Latency.Max > 0 {
			r.SamplesPerSec = n / secs(r.Latency.Max)
		}
	}
	if e.req.InferTokenLatencies {
		f := float64(e.req.TokenLatencyScalingFactor)
		switch e.scenario {
		case Offline:
			r.InferredTokensPerSec = f * r.SamplesPerSec
		case Server:
			r.InferredTokensPerSec = f * r.CompletedPerSec
		}
	}
	if r.hasTokenMetrics && e.scenario == SingleStream {
		if r.DurationNs > 0 {
			r.TPSWithOverhead = float64(r.Tokens) / secs(r.DurationNs)
		}
		if r.Latency.Mean > 0 {
			r.TPSNoOverhead = float64(r.Tokens) / (secs(r.Latency.Mean) * n)
		}
	}
	if r.hasTokenMetrics {
		d := r.lastDone
		if e.scenario == Offline {
			d = r.Latency.Max
		}
		if d > 0 {
			r.TokensPerSec = float64(r.Tokens) / secs(d)
		}
	}

	minDur := int64(e.minDurationMs) * 1_000_000
	r.MinDurationMet = r.DurationNs >= minDur
	var perfRec string // LoadGen's PerfConstraintsMet recommendation
	defer func() {
		// LoadGen's summary order: performance constraints, min duration,
		// min queries (results.cc PerformanceSummary::LogSummary).
		r.Recommendations = nil
		if perfRec != "" {
			r.Recommendations = append(r.Recommendations, perfRec)
		}
		if !r.MinDurationMet {
			r.Recommendations = append(r.Recommendations, MinDurationRecommendation[e.scenario])
		}
		if !r.MinQueriesMet {
			r.Recommendations = append(r.Recommendations, minQueriesRecommendation)
		}
	}()
	if !r.MinDurationMet {
		r.InvalidReasons = append(r.InvalidReasons, fmt.Sprintf("the test ran %.3f s, under the minimum duration of %.3f s: %s", secs(r.DurationNs), secs(minDur), minDurationHint(e)))
	}
	r.MinQueriesMet = uint64(r.QueryCount) >= e.minQueryCount && uint64(r.SampleCount) >= e.minSampleCount
	if !r.MinQueriesMet {
		why := `the detail log's "Ending early" message says why`
		if i := strings.Index(r.stopReason, "Ending early"); i >= 0 {
			why = r.stopReason[i:]
		}
		r.InvalidReasons = append(r.InvalidReasons, fmt.Sprintf("%d queries (%d samples) were issued, under the minimum of %d (%d samples): the test exited early, before enough queries were issued (%s)", r.QueryCount, r.SampleCount, e.minQueryCount, e.minSampleCount, why))
	}
	r.PerfConstraintsMet = true
	r.EarlyStoppingMet = true
	pct := e.targetLatencyPercentile
	if e.scenario == Server {
		if r.hasTokenMetrics {
			ttft, tpot := r.TTFT.At(pct), r.TPOT.At(pct)
			if ttft > e.req.ServerTTFTLatencyNs {
				r.PerfConstraintsMet = false
				perfRec = "TTFT constrain not met: " + reduceQPSRecommendation
				r.InvalidReasons = append(r.InvalidReasons, fmt.Sprintf("TTFT constraint not met: the %.1fth percentile first-token latency %d ns is over %d ns: %s", pct*100, ttft, e.req.ServerTTFTLatencyNs, reduceQPSHint(e)))
			}
			if tpot > e.req.ServerTPOTLatencyNs {
				r.PerfConstraintsMet = false
				if perfRec != "" {
					perfRec += "\n * "
				}
				perfRec += "TPOT constrain not met: " + reduceQPSRecommendation
				r.InvalidReasons = append(r.InvalidReasons, fmt.Sprintf("TPOT constraint not met: the %.1fth percentile time per output token %d ns is over %d ns: %s", pct*100, tpot, e.req.ServerTPOTLatencyNs, reduceQPSHint(e)))
			}
		} else if r.Latency.Target > e.targetLatencyNs {
			r.PerfConstraintsMet = false
			perfRec = reduceQPSRecommendation
			r.InvalidReasons = append(r.InvalidReasons, fmt.Sprintf("the %.1fth percentile latency %d ns is over the target %d ns: %s", pct*100, r.Latency.Target, e.targetLatencyNs, reduceQPSHint(e)))
		}
	}
	if e.scenario == Offline {
		r.Valid = r.MinDurationMet && r.MinQueriesMet && len(r.InvalidReasons) == 0
		return
	}
	if !r.hasTokenMetrics {
		stats := r.Latency
		if e.scenario == MultiStream {
			stats = r.QueryLatency
		}
		r.EarlyStoppingMet, r.EarlyStopping = r.earlyStop(e, stats, e.targetLatencyNs, "")
	} else {
		// As LoadGen with use_token_latencies: early stopping over the time
		// per output token against the TPOT bound, then (only if that
		// passes) over the first-token latencies against the TTFT bound.
		r.EarlyStoppingMet, r.EarlyStoppingTPOT = r.earlyStop(e, r.TPOT, e.req.ServerTPOTLatencyNs, "TPOT ")
		if r.EarlyStoppingMet {
			r.EarlyStoppingMet, r.EarlyStoppingTTFT = r.earlyStop(e, r.TTFT, e.req.ServerTTFTLatencyNs, "TTFT ")
		}
	}
	r.Valid = r.MinDurationMet && r.MinQueriesMet && r.PerfConstraintsMet && r.EarlyStoppingMet && len(r.InvalidReasons) == 0
}

// earlyStop is LoadGen's PerformanceSummary::EarlyStopping over one sorted
// latency series: the sequence estimate for SingleStream and MultiStream
// (SingleStream also the 0.99 estimate), the over-target count for Server
// (target in ns). It returns whether early stopping is met and the result
// lines; what names the series in the invalid reason ("", "TTFT ", "TPOT ").
func (r *Result) earlyStop(e *effective, stats LatencyStats, target int64, what string) (bool, []string) {
	pct := e.targetLatencyPercentile
	queries := int64(r.QueryCount)
	at := func(i int64) int64 { // LoadGen indexes the series by query count
		if len(stats.sorted) == 0 {
			return 0
		}
		return stats.sorted[min(max(i, 0), int64(len(stats.sorted))-1)]
	}
	switch e.scenario {
	case SingleStream, MultiStream:
		est, ok := earlystop.Sequence(queries, pct)
		if !ok {
			r.InvalidReasons = append(r.InvalidReasons, fmt.Sprintf("%searly stopping needs at least %d queries, only %d were processed: raise min_query_count to at least %d in user.conf (or min_duration)", what, est.MinQueries, queries, est.MinQueries))
			return false, []string{
				fmt.Sprintf(" * Only processed %d queries.", queries),
				fmt.Sprintf(" * Need to process at least %d queries for early stopping.", est.MinQueries),
			}
		}
		r.EarlyStoppingNs = at(est.Index)
		lines := []string{
			fmt.Sprintf(" * Processed at least %d queries (%d).", est.MinQueries, queries),
			fmt.Sprintf(" * Would discard %d highest latency queries.", est.Discarded),
			fmt.Sprintf(" * Early stopping %.1fth percentile estimate: %d", pct*100, r.EarlyStoppingNs),
		}
		if e.scenario == MultiStream {
			r.EarlyStoppingMSNs, r.earlyStoppingMSSet = r.EarlyStoppingNs, true
			return true, lines
		}
		if est99, ok := earlystop.Sequence(queries, 0.99); ok {
			r.EarlyStoppingMSNs, r.earlyStoppingMSSet = at(est99.Index), true
			lines = append(lines, fmt.Sprintf(" * Early stopping 99.0th percentile estimate: %d", r.EarlyStoppingMSNs))
		} else {
			lines = append(lines, fmt.Sprintf(" * Not enough queries processed for 99.0th percentile\n early stopping estimate (would need to process at\n least %d total queries).", est99.MinQueries))
		}
		return true, lines
	case Server:
		over := int64(stats.over(target))
		met, need := earlystop.Server(queries, over, pct)
		if met {
			return true, []string{" * Run successful."}
		}
		r.InvalidReasons = append(r.InvalidReasons, fmt.Sprintf("%searly stopping: %d samples over the latency bound need at least %d more queries, with every additional one under the bound: reduce target_qps (now %g) so that fewer go over the bound, or run longer (min_query_count, min_duration in user.conf)", what, over, need, e.targetQPS))
		return false, []string{
			" * Run unsuccessful.",
			fmt.Sprintf(" * Processed %d queries.", queries),
			fmt.Sprintf(" * Would need to run at least %d more queries,\n with the run being successful if every additional\n query were under latency.", need),
		}
	}
	return true, nil
}

// LoadGen's recommendation texts (mlcommons/inference loadgen/results.cc,
// PerformanceSummary::MinDurationMet and PerfConstraintsMet), which the
// summary prints and the one-line reasons quote.
var MinDurationRecommendation = map[Scenario]string{
	SingleStream: "Decrease the expected latency so the loadgen pre-generates more queries.",
	MultiStream:  "Decrease the expected latency so the loadgen pre-generates more queries.",
	Server:       "Increase the target QPS so the loadgen pre-generates more queries.",
	Offline:      "Increase expected QPS so the loadgen pre-generates a larger (coalesced) query.",
}

const (
	reduceQPSRecommendation  = "Reduce target QPS to improve latency."
	minQueriesRecommendation = "The test exited early, before enough queries were issued.\n   See the detailed log for why this may have occurred."
)

// minDurationHint is the fix for a run shorter than min_duration:
// LoadGen's recommendation, then the user.conf key that says it and its
// value in this run. SingleStream and MultiStream generate min_duration /
// target_latency queries, so a lower target latency generates more;
// Server generates min_duration × target_qps queries and Offline a query
// of 1.1 × min_duration × target_qps samples, so a higher QPS does.
func minDurationHint(e *effective) string {
	rec := MinDurationRecommendation[e.scenario]
	rec = strings.TrimSuffix(rec, ".")
	switch e.scenario {
	case SingleStream, MultiStream:
		return fmt.Sprintf("%s (lower %s.target_latency in user.conf below the %g ms it is now, towards the latency the SUT achieved)", rec, e.scenario, 1e3/e.targetQPS)
	case Server:
		return fmt.Sprintf("%s (raise Server.target_qps in user.conf above the %g it is now; a run cut short by max_query_count, max_duration or Ctrl-C needs those lifted instead)", rec, e.targetQPS)
	}
	return fmt.Sprintf("%s (raise Offline.target_qps in user.conf above the %g it is now, towards the throughput the SUT achieved)", rec, e.targetQPS)
}

// reduceQPSHint is the fix for a Server run over its latency bound.
func reduceQPSHint(e *effective) string {
	return fmt.Sprintf("%s (lower Server.target_qps in user.conf below the %g it is now)", strings.TrimSuffix(reduceQPSRecommendation, "."), e.targetQPS)
}
