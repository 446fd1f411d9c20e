package benchmark

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mlperf-go/inference/internal/hist"
	"github.com/mlperf-go/inference/loadgen"
)

// runStatus is what a progress line of a running series says: the
// line itself, a warning when the run is heading INVALID, and its
// expected length so far.
type runStatus struct {
	line, warning string
	// warnKind names the warning's reasons, so that a warning is
	// repeated when its reasons change, not its figures.
	warnKind string
	length   time.Duration // expected length of the series; 0 unknown
}

// rateWindow is how far back the current throughput looks.
const rateWindow = 5 * time.Second

// minForWarning is how many samples must be counted before a share over
// the bound is worth a warning.
const minForWarning = 100

// statusOf formats a series' progress: p from the loadgen's Monitor, lat
// the latencies counted so far (the bound's kind: latency, or time to
// first token), rate the completions per second lately (0: unknown).
func statusOf(p loadgen.Progress, lat *hist.Hist, rate float64) runStatus {
	var st runStatus
	var b strings.Builder
	el := p.Elapsed
	spq := max(p.SamplesPerQuery, 1)
	eta := time.Duration(-1)
	secs := func(n float64) time.Duration {
		if rate <= 0 || math.IsNaN(n) || n < 0 {
			return -1
		}
		return time.Duration(n / rate * 1e9)
	}
	switch {
	case p.Accuracy:
		fmt.Fprintf(&b, "running accuracy: %d/%d samples (%.0f%%)", p.Completed, p.Samples, pct(p.Completed, p.Samples))
		eta = secs(float64(p.Samples - p.Completed))
	case p.Scenario == loadgen.Server:
		fmt.Fprintf(&b, "running: %d/%d samples (%.0f%%), %s of %s", p.Completed, p.Samples, pct(p.Completed, p.Samples), short(el), short(p.ScheduleEnd))
		eta = max(p.ScheduleEnd-el, 0)
		st.length = p.ScheduleEnd
	case p.Scenario == loadgen.Offline:
		fmt.Fprintf(&b, "running: %d/%d samples (%.0f%%)", p.Completed, p.Samples, pct(p.Completed, p.Samples))
		eta = secs(float64(p.Samples - p.Completed))
		if eta >= 0 {
			st.length = el + eta
		}
	default: // SingleStream, MultiStream: until min queries and min duration
		q := p.Completed / spq
		fmt.Fprintf(&b, "running: %d queries (of at least %d), %s (of at least %s)", q, p.MinQueries, short(el), short(p.MinDuration))
		qrate := rate / float64(spq)
		if qrate > 0 {
			byCount := time.Duration(float64(max(p.MinQueries-q, 0)) / qrate * 1e9)
			eta = max(byCount, p.MinDuration-el, 0)
			// The generated queries end the run early if they run out.
			if left := time.Duration(float64(p.Queries-q) / qrate * 1e9); left < eta {
				eta = left
			}
			st.length = el + eta
		}
	}
	if eta >= 0 {
		fmt.Fprintf(&b, ", ETA %s", short(eta))
	}
	if rate > 0 {
		if (p.Scenario == loadgen.SingleStream || p.Scenario == loadgen.MultiStream) && !p.Accuracy {
			fmt.Fprintf(&b, ", %.3g queries/s", rate/float64(spq))
		} else {
			fmt.Fprintf(&b, ", %.4g samples/s", rate)
		}
	}
	target := p.Percentile
	if target == 0 {
		target = 0.99
		if p.Scenario == loadgen.SingleStream {
			target = 0.9
		}
	}
	what := p.BoundWhat
	if what == "" || what == "latency" {
		what = ""
	} else {
		what = " " + what
	}
	// Offline's latency is the time since its one query went out: no
	// figure for a progress line.
	if lat != nil && lat.Count() > 0 && !p.Accuracy && p.Scenario != loadgen.Offline {
		d := lat.Dist()
		v := d.P99
		if target < 0.95 {
			v = d.P90
		}
		fmt.Fprintf(&b, ", p%g%s %s so far", target*100, what, usShort(v))
		if p.Bound > 0 {
			fmt.Fprintf(&b, " (bound %s)", usShort(int64(p.Bound)))
		}
	}
	if p.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed", p.Failed)
	}
	st.line = b.String()
	st.warning, st.warnKind = warningOf(p, rate)
	return st
}

// warningOf says why a running series is heading INVALID, or "", and
// the kinds of reason it gives.
func warningOf(p loadgen.Progress, rate float64) (string, string) {
	if p.Accuracy {
		if p.Failed > 0 {
			return fmt.Sprintf("%d samples failed so far: the accuracy log lacks their responses", p.Failed), "failed"
		}
		return "", ""
	}
	var why, kinds []string
	if p.Failed > 0 {
		why = append(why, fmt.Sprintf("%d samples failed (a failed sample makes the run INVALID)", p.Failed))
		kinds = append(kinds, "failed")
	}
	spq := max(p.SamplesPerQuery, 1)
	switch p.Scenario {
	case loadgen.Server:
		over := p.OverBound + p.OutstandingOver
		n := p.Counted + p.OutstandingOver
		allowed := 1 - p.Percentile
		if p.Bound > 0 && n >= minForWarning && float64(over) > allowed*float64(n) {
			what := p.BoundWhat
			if what == "" {
				what = "latency"
			}
			why = append(why, fmt.Sprintf("%.1f%% of samples so far are over the %s bound of %s (p%g allows %.1f%%): lower target_qps",
				100*float64(over)/float64(n), what, usShort(int64(p.Bound)), p.Percentile*100, allowed*100))
			kinds = append(kinds, "over")
		}
	case loadgen.Offline:
		if rate > 0 && p.Completed*20 >= p.Samples {
			end := p.Elapsed + time.Duration(float64(p.Samples-p.Completed)/rate*1e9)
			if end < p.MinDuration {
				why = append(why, fmt.Sprintf("at this rate the query's %d samples are done at about %s, before min_duration %s: raise Offline.target_qps (so that the query holds more samples)",
					p.Samples, short(end), short(p.MinDuration)))
				kinds = append(kinds, "short")
			}
		}
	case loadgen.SingleStream, loadgen.MultiStream:
		q := p.Completed / spq
		qrate := rate / float64(spq)
		if qrate > 0 && q >= 10 {
			runOut := p.Elapsed + time.Duration(float64(p.Queries-q)/qrate*1e9)
			if runOut < p.MinDuration {
				why = append(why, fmt.Sprintf("at this rate the %d generated queries run out at about %s, before min_duration %s: lower %s.target_latency (so that more queries are generated)",
					p.Queries, short(runOut), short(p.MinDuration), p.Scenario))
				kinds = append(kinds, "runout")
			}
		}
	}
	if len(why) == 0 {
		return "", ""
	}
	return "heading INVALID: " + strings.Join(why, "; "), strings.Join(kinds, ",")
}

func pct(a, b int) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// short writes a duration for a progress line: "42s", "12m05s", "3h20m".
func short(d time.Duration) string {
	switch {
	case d < 0:
		return "?"
	case d < time.Minute:
		return fmt.Sprintf("%.0fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// usShort writes a latency in ns for a progress line: "812µs", "20.3ms",
// "3.21s".
func usShort(ns int64) string {
	switch v := float64(ns); {
	case v < 1e6:
		return fmt.Sprintf("%.3gµs", v/1e3)
	case v < 1e9:
		return fmt.Sprintf("%.3gms", v/1e6)
	}
	return fmt.Sprintf("%.3gs", float64(ns)/1e9)
}

// lengthNote is the one-time note when a run, at the rate so far, lasts
// much longer than the --duration asked (0: none asked), or "".
func lengthNote(length, elapsed, asked time.Duration) string {
	if asked <= 0 || length <= 0 || elapsed < 3*time.Second {
		return ""
	}
	if length > 2*asked && length-asked > 30*time.Second {
		return fmt.Sprintf("note: at the rate so far this run lasts about %s, not the %s of --duration, which is a minimum (the note before the run says what sets the length)", short(length), short(asked))
	}
	return ""
}
