package benchmark

import (
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/internal/hist"
	"github.com/mlperf-go/inference/loadgen"
)

// The progress line says done/total (or the time bound), percentage, ETA,
// the current rate and the latency so far against the bound, per
// scenario.
func TestStatusLines(t *testing.T) {
	var h hist.Hist
	for range 990 {
		h.Record(int64(4 * time.Millisecond))
	}
	for range 10 {
		h.Record(int64(30 * time.Millisecond))
	}
	for _, c := range []struct {
		name   string
		p      loadgen.Progress
		rate   float64
		want   []string
		length time.Duration
	}{
		{"server", loadgen.Progress{Scenario: loadgen.Server, Elapsed: 30 * time.Second, ScheduleEnd: 600 * time.Second, Samples: 60000, Completed: 3000, SamplesPerQuery: 1,
			Bound: 15 * time.Millisecond, Percentile: 0.99, BoundWhat: "latency", Counted: 1000},
			100, []string{"running: 3000/60000 samples (5%), 30s of 10m00s, ETA 9m30s, 100 samples/s, p99 ", "ms so far (bound 15ms)"}, 600 * time.Second},
		{"offline", loadgen.Progress{Scenario: loadgen.Offline, Elapsed: 10 * time.Second, Samples: 24576, Completed: 4096, SamplesPerQuery: 24576},
			409.6, []string{"running: 4096/24576 samples (17%), ETA 50s, 409.6 samples/s"}, 60 * time.Second},
		{"singlestream", loadgen.Progress{Scenario: loadgen.SingleStream, Elapsed: 20 * time.Second, MinDuration: 600 * time.Second, MinQueries: 1024, Queries: 100000, Completed: 200, SamplesPerQuery: 1, Percentile: 0.9},
			10, []string{"running: 200 queries (of at least 1024), 20s (of at least 10m00s), ETA 9m40s, 10 queries/s, p90 "}, 600 * time.Second},
		{"accuracy", loadgen.Progress{Scenario: loadgen.Server, Accuracy: true, Elapsed: 5 * time.Second, Samples: 1000, Completed: 250},
			50, []string{"running accuracy: 250/1000 samples (25%), ETA 15s, 50 samples/s"}, 0},
	} {
		st := statusOf(c.p, &h, c.rate)
		for _, w := range c.want {
			if !strings.Contains(st.line, w) {
				t.Errorf("%s: line %q lacks %q", c.name, st.line, w)
			}
		}
		if st.length != c.length {
			t.Errorf("%s: expected length %v, want %v", c.name, st.length, c.length)
		}
		if st.warning != "" {
			t.Errorf("%s: a warning for a run on course: %s", c.name, st.warning)
		}
		if c.p.Accuracy && strings.Contains(st.line, "so far") {
			t.Errorf("%s: an accuracy series with a latency: %s", c.name, st.line)
		}
	}
}

// A run heading INVALID is warned about, on both sides of each limit:
// Server over its bound beyond the percentile's allowance (samples
// still outstanding past the bound count), SingleStream running out of
// generated queries before min_duration, Offline finishing its query
// before min_duration; a failed sample always.
func TestWarningsWhenHeadingInvalid(t *testing.T) {
	server := func(counted, over, outstanding int) loadgen.Progress {
		return loadgen.Progress{Scenario: loadgen.Server, Bound: 10 * time.Millisecond, Percentile: 0.99, BoundWhat: "latency", SamplesPerQuery: 1,
			Counted: counted, OverBound: over, OutstandingOver: outstanding, Samples: 100000}
	}
	ss := func(elapsed time.Duration, q int) loadgen.Progress {
		return loadgen.Progress{Scenario: loadgen.SingleStream, Elapsed: elapsed, MinDuration: 60 * time.Second, Queries: 1000, Completed: q, SamplesPerQuery: 1}
	}
	off := func(elapsed time.Duration, done int) loadgen.Progress {
		return loadgen.Progress{Scenario: loadgen.Offline, Elapsed: elapsed, MinDuration: 60 * time.Second, Samples: 10000, Completed: done, SamplesPerQuery: 10000}
	}
	for _, c := range []struct {
		name string
		p    loadgen.Progress
		rate float64
		want string // "" no warning
	}{
		{"server at the allowance", server(1000, 10, 0), 0, ""},
		{"server over it", server(1000, 11, 0), 0, "1.1% of samples so far are over the latency bound of 10ms (p99 allows 1.0%): lower target_qps"},
		{"server stalled samples", server(1000, 0, 20), 0, "2.0% of samples so far are over"},
		{"server too few to tell", server(50, 5, 0), 0, ""},
		{"singlestream on course", ss(10*time.Second, 200), 13, ""},                    // 800 left at 13/s: out at 71.5 s
		{"singlestream runs out", ss(10*time.Second, 200), 40, "run out at about 30s"}, // 800 left at 40/s
		{"offline long enough", off(6*time.Second, 1000), 166, ""},
		{"offline too short", off(6*time.Second, 1000), 1000, "are done at about 15s, before min_duration 1m00s: raise Offline.target_qps"},
		{"failed", loadgen.Progress{Scenario: loadgen.Offline, Failed: 3, Samples: 10}, 0, "3 samples failed"},
	} {
		got, _ := warningOf(c.p, c.rate)
		switch {
		case c.want == "" && got != "":
			t.Errorf("%s: unexpected warning %q", c.name, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: warning %q, want %q", c.name, got, c.want)
		case c.want != "" && !strings.HasPrefix(got, "heading INVALID: "):
			t.Errorf("%s: %q does not say the run is heading INVALID", c.name, got)
		}
	}
}

// The mid-run note comes when the rate so far makes the run much longer
// than --duration asked, and not for a run close to it or without one.
func TestLengthNote(t *testing.T) {
	for _, c := range []struct {
		length, elapsed, asked time.Duration
		note                   bool
	}{
		{20 * time.Minute, 5 * time.Second, 2 * time.Second, true},
		{3 * time.Second, 5 * time.Second, 2 * time.Second, false},   // close to it
		{50 * time.Second, 5 * time.Second, 30 * time.Second, false}, // under twice
		{20 * time.Minute, 5 * time.Second, 0, false},                // none asked
		{20 * time.Minute, time.Second, 2 * time.Second, false},      // too early to tell
	} {
		n := lengthNote(c.length, c.elapsed, c.asked)
		if (n != "") != c.note {
			t.Errorf("%+v: note %q", c, n)
		}
		if n != "" && !strings.Contains(n, "about 20m00s") {
			t.Errorf("note %q lacks the length", n)
		}
	}
}
