package loadgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synthRun is a series built in the test: nq queries of spq samples, query
// q scheduled at sched(q) ns from the start, sample i completing lat(i) ns
// after its query's schedule; with ttft set, its first token ttft(i) ns
// after the schedule and 11 tokens.
type synthRun struct {
	s     Settings
	nq    int
	sched func(q int) int64
	lat   func(i int) int64
	ttft  func(i int) int64
	spq   int // samples per query when not the effective one (Offline)
}

// evaluateSynth computes the result of the series and writes its logs,
// returning the result, the summary and the detail's result entries.
func evaluateSynth(t *testing.T, sr synthRun) (*Result, string, []detailEntry) {
	t.Helper()
	e, err := deriveSettings(sr.s, 1024, 1024)
	if err != nil {
		t.Fatal(err)
	}
	spq := int(e.samplesPerQuery)
	if sr.spq > 0 {
		spq = sr.spq
	}
	const base = 1_000_000
	r := &runState{e: e, spq: spq, start: base, sched: make([]int64, sr.nq), done: make([]int64, sr.nq*spq)}
	if sr.ttft != nil {
		r.first = make([]int64, len(r.done))
		r.tokens = make([]int32, len(r.done))
	}
	for q := 0; q < sr.nq; q++ {
		r.sched[q] = base + sr.sched(q)
		for i := q * spq; i < (q+1)*spq; i++ {
			r.done[i] = r.sched[q] + sr.lat(i)
			if r.first != nil {
				r.first[i] = r.sched[q] + sr.ttft(i)
				r.tokens[i] = 11
			}
		}
	}
	res := r.measure(sr.nq, false)
	res.evaluate(e)
	dir := t.TempDir()
	lw, err := openLogs(LogSettings{OutDir: dir}, sr.s.UseTokenLatencies, sr.s.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	lw.sutName = "Synth"
	lw.results(res, e)
	if err := lw.close(); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return res, string(sum), readDetail(t, filepath.Join(dir, "mlperf_log_detail.txt"))
}

// TestValidityChecks makes each of LoadGen's validity checks fail on its
// own and asserts the summary's verdict lines and recommendations and the
// detail's result_validity and result_invalid_reason, with LoadGen's texts
// (results.cc; the same texts the oracle test compares with real logs).
func TestValidityChecks(t *testing.T) {
	every := func(ns int64) func(int) int64 { return func(q int) int64 { return int64(q) * ns } }
	flat := func(ns int64) func(int) int64 { return func(int) int64 { return ns } }
	// tail returns ns for all samples but every k-th, which gets slow.
	tail := func(ns, slow int64, k int) func(int) int64 {
		return func(i int) int64 {
			if i%k == k-1 {
				return slow
			}
			return ns
		}
	}
	server := func() Settings {
		s := DefaultSettings()
		s.Scenario, s.ServerTargetQPS, s.ServerTargetLatencyNs = Server, 1000, 10_000_000
		s.MinDurationMs, s.MinQueryCount = 1000, 100
		return s
	}
	tokenServer := func() Settings {
		s := server()
		s.UseTokenLatencies, s.ServerTTFTLatencyNs, s.ServerTPOTLatencyNs = true, 2_000_000, 500_000
		return s
	}
	singleStream := func() Settings {
		s := DefaultSettings()
		s.MinDurationMs, s.MinQueryCount = 100, 100
		return s
	}
	offline := func() Settings {
		s := DefaultSettings()
		s.Scenario, s.OfflineExpectedQPS, s.MinDurationMs, s.MinQueryCount = Offline, 1000, 1000, 1
		return s
	}
	const ms = 1_000_000
	tests := []struct {
		name  string
		run   synthRun
		valid bool
		// the verdict lines of the summary, from "Result is" to the line
		// before the early stopping result
		verdict string
		reason  string // result_invalid_reason's value, "" when valid
	}{
		{
			name:    "server valid",
			run:     synthRun{s: server(), nq: 2000, sched: every(ms), lat: flat(ms)},
			valid:   true,
			verdict: "Result is : VALID\n  Performance constraints satisfied : Yes\n  Min duration satisfied : Yes\n  Min queries satisfied : Yes\n  Early stopping satisfied: Yes\n",
		},
		{
			// 2% of the samples over the 10 ms bound: p99 over it; early
			// stopping fails with it (it cannot pass while p99 is over).
			name:    "server latency bound",
			run:     synthRun{s: server(), nq: 2000, sched: every(ms), lat: tail(ms, 20*ms, 50)},
			verdict: "Result is : INVALID\n  Performance constraints satisfied : NO\n  Min duration satisfied : Yes\n  Min queries satisfied : Yes\n  Early stopping satisfied: NO\nRecommendations:\n * Reduce target QPS to improve latency.\n",
			reason:  `"Reduce target QPS to improve latency. "`,
		},
		{
			// 0.5% over the bound: p99 under it, but 2000 queries are too
			// few for early stopping to pass with 10 over.
			name:    "server early stopping",
			run:     synthRun{s: server(), nq: 2000, sched: every(ms), lat: tail(ms, 20*ms, 200)},
			verdict: "Result is : INVALID\n  Performance constraints satisfied : Yes\n  Min duration satisfied : Yes\n  Min queries satisfied : Yes\n  Early stopping satisfied: NO\nRecommendations:\n",
			reason:  `""`,
		},
		{
			name:    "server min duration",
			run:     synthRun{s: server(), nq: 2000, sched: every(ms / 4), lat: flat(ms)},
			verdict: "Result is : INVALID\n  Performance constraints satisfied : Yes\n  Min duration satisfied : NO\n  Min queries satisfied : Yes\n  Early stopping satisfied: Yes\nRecommendations:\n * Increase the target QPS so the loadgen pre-generates more queries.\n",
			reason:  `"Increase the target QPS so the loadgen pre-generates more queries. "`,
		},
		{
			name: "server min queries",
			run: synthRun{s: func() Settings { s := server(); s.MinQueryCount = 5000; return s }(),
				nq: 2000, sched: every(ms), lat: flat(ms)},
			verdict: "Result is : INVALID\n  Performance constraints satisfied : Yes\n  Min duration satisfied : Yes\n  Min queries satisfied : NO\n  Early stopping satisfied: Yes\nRecommendations:\n * The test exited early, before enough queries were issued.\n   See the detailed log for why this may have occurred.\n",
			reason:  `"The test exited early, before enough queries were issued."`,
		},
		{
			name:    "server TTFT",
			run:     synthRun{s: tokenServer(), nq: 2000, sched: every(ms), lat: flat(4 * ms), ttft: tail(ms, 3*ms, 50)},
			verdict: "Result is : INVALID\n  Performance constraints satisfied : NO\n  Min duration satisfied : Yes\n  Min queries satisfied : Yes\n  Early stopping satisfied: NO\nRecommendations:\n * TTFT constrain not met: Reduce target QPS to improve latency.\n",
			reason:  `"TTFT constrain not met: Reduce target QPS to improve latency. "`,
		},
		{
			// TPOT = (4 ms - 1 ms) / 10 = 300 us, under 500 us; every 50th
			// sample takes 9 ms: 800 us per token.
			name:    "server TPOT",
			run:     synthRun{s: tokenServer(), nq: 2000, sched: every(ms), lat: tail(4*ms, 9*ms, 50), ttft: flat(ms)},
			verdict: "Result is : INVALID\n  Performance constraints satisfied : NO\n  Min duration satisfied : Yes\n  Min queries satisfied : Yes\n  Early stopping satisfied: NO\nRecommendations:\n * TPOT constrain not met: Reduce target QPS to improve latency.\n",
			reason:  `"TPOT constrain not met: Reduce target QPS to improve latency. "`,
		},
		{
			name:    "server TTFT and TPOT",
			run:     synthRun{s: tokenServer(), nq: 2000, sched: every(ms), lat: tail(4*ms, 12*ms, 50), ttft: tail(ms, 3*ms, 50)},
			verdict: "Result is : INVALID\n  Performance constraints satisfied : NO\n  Min duration satisfied : Yes\n  Min queries satisfied : Yes\n  Early stopping satisfied: NO\nRecommendations:\n * TTFT constrain not met: Reduce target QPS to improve latency.\n * TPOT constrain not met: Reduce target QPS to improve latency.\n",
			reason:  `"TTFT constrain not met: Reduce target QPS to improve latency.  * TPOT constrain not met: Reduce target QPS to improve latency. "`,
		},
		{
			// 40 queries meet a min_query_count of 40, but early stopping
			// at p90 needs 64.
			name: "singlestream early stopping",
			run: synthRun{s: func() Settings { s := singleStream(); s.MinQueryCount = 40; return s }(),
				nq: 40, sched: every(10 * ms), lat: flat(ms)},
			verdict: "Result is : INVALID\n  Min duration satisfied : Yes\n  Min queries satisfied : Yes\n  Early stopping satisfied: NO\nRecommendations:\n",
			reason:  `""`,
		},
		{
			name:    "singlestream min duration",
			run:     synthRun{s: singleStream(), nq: 200, sched: every(ms / 4), lat: flat(ms / 4)},
			verdict: "Result is : INVALID\n  Min duration satisfied : NO\n  Min queries satisfied : Yes\n  Early stopping satisfied: Yes\nRecommendations:\n * Decrease the expected latency so the loadgen pre-generates more queries.\n",
			reason:  `"Decrease the expected latency so the loadgen pre-generates more queries. "`,
		},
		{
			// Offline issues one query; with fewer samples than the
			// minimum sample count (1000 QPS x 1 s), here 500, min queries
			// fails.
			name:    "offline sample count",
			run:     synthRun{s: offline(), nq: 1, spq: 500, sched: every(0), lat: func(i int) int64 { return 1000*ms + int64(i) }},
			verdict: "Result is : INVALID\n  Min duration satisfied : Yes\n  Min queries satisfied : NO\n  Early stopping satisfied: Yes\nRecommendations:\n * The test exited early, before enough queries were issued.\n   See the detailed log for why this may have occurred.\n",
			reason:  `"The test exited early, before enough queries were issued."`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, sum, entries := evaluateSynth(t, tc.run)
			detail := map[string]string{}
			for _, en := range entries {
				detail[en.key] = en.value
			}
			if res.Valid != tc.valid {
				t.Errorf("valid %v, want %v (%v)", res.Valid, tc.valid, res.InvalidReasons)
			}
			i := strings.Index(sum, "Result is : ")
			j := strings.Index(sum, "TTFT Early Stopping Result:")
			if j < 0 {
				j = strings.Index(sum, "Early Stopping Result:")
			}
			if j < 0 {
				j = strings.Index(sum, "\n\n=====")
				j++
			}
			if i < 0 || j < i {
				t.Fatalf("summary has no verdict:\n%s", sum)
			}
			if got := sum[i:j]; got != tc.verdict {
				t.Errorf("verdict:\n%s\nwant:\n%s", got, tc.verdict)
			}
			want := `"INVALID"`
			if tc.valid {
				want = `"VALID"`
			}
			if detail["result_validity"] != want {
				t.Errorf("result_validity %s, want %s", detail["result_validity"], want)
			}
			if got, ok := detail["result_invalid_reason"]; ok != !tc.valid || got != tc.reason {
				t.Errorf("result_invalid_reason %q (present %v), want %q", got, ok, tc.reason)
			}
		})
	}
}
