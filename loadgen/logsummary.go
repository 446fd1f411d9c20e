package loadgen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// invalidReason is the detail log's result_invalid_reason: LoadGen's
// recommendations, each followed by a space (line breaks as spaces), then
// the reasons LoadGen has no text for.
func invalidReason(r *Result) string {
	var b strings.Builder
	for _, rec := range r.Recommendations {
		if strings.HasPrefix(rec, "The test exited early") {
			// LoadGen's detail has only the first sentence, no space after.
			b.WriteString("The test exited early, before enough queries were issued.")
			continue
		}
		b.WriteString(strings.ReplaceAll(rec, "\n", " ") + " ")
	}
	if len(r.otherReasons) > 0 {
		b.WriteString(strings.Join(r.otherReasons, "; "))
	}
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "NO"
}

// writeSummary writes mlperf_log_summary.txt; a failed create, write or
// close is kept in lw.closeErr, naming the file.
func (lw *logWriter) writeSummary(r *Result, e *effective) {
	lw.wroteSum = true
	name := lw.names["summary"]
	f, err := os.Create(name)
	if err != nil {
		lw.closeErr = fmt.Errorf("loadgen: cannot write the summary log: %w", err)
		return
	}
	var out io.Writer = f
	if lw.settings.CopySummaryToStdout {
		out = io.MultiWriter(f, os.Stdout)
	}
	w := bufio.NewWriter(out)
	lw.summaryBody(w, r, e)
	// bufio keeps the first write error: Flush reports it.
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		lw.closeErr = errors.Join(lw.closeErr, fileError(name, err))
	}
}

// fileError says which log could not be written, and the likely fix.
func fileError(name string, err error) error {
	return fmt.Errorf("writing %s: %w (is the disk full? free space or choose another output folder)", name, err)
}

// summaryBody writes the summary's text to w.
func (lw *logWriter) summaryBody(w io.Writer, r *Result, e *effective) {
	rule := "================================================\n"
	if r != nil && !r.accuracy {
		fmt.Fprint(w, rule+"MLPerf Results Summary\n"+rule)
		fmt.Fprintf(w, "SUT name : %s\n", lw.sutName)
		fmt.Fprintf(w, "Scenario : %s\n", e.scenario)
		fmt.Fprintf(w, "Mode     : %s\n", e.mode)
		if r.Interrupted {
			fmt.Fprintf(w, "Run was interrupted: INVALID; only the %d samples completed before it stopped are counted\n", r.CompletedSamples)
		}
		writeResultSummary(w, r, e)
		fmt.Fprintln(w)
		fmt.Fprint(w, rule+"Test Parameters Used\n"+rule)
		writeParams(w, e)
	}
	fmt.Fprintln(w)
	switch lw.warnings {
	case 0:
		fmt.Fprintln(w, "No warnings encountered during test.")
	default:
		fmt.Fprintf(w, "%d warning%s encountered. See detailed log.\n", lw.warnings, plural(lw.warnings))
	}
	fmt.Fprintln(w)
	switch lw.errors {
	case 0:
		fmt.Fprintln(w, "No errors encountered during test.")
	default:
		fmt.Fprintf(w, "%d ERROR%s encountered. See detailed log.\n", lw.errors, strings.ToUpper(plural(lw.errors)))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func writeResultSummary(w io.Writer, r *Result, e *effective) {
	switch e.scenario {
	case SingleStream:
		fmt.Fprintf(w, "%.1fth percentile latency (ns) : %d\n", e.targetLatencyPercentile*100, r.Latency.Target)
		if r.hasTokenMetrics {
			fmt.Fprintf(w, "%.1fth first token percentile latency (ns) : %d\n", e.targetLatencyPercentile*100, r.TTFT.Target)
		}
	case MultiStream:
		fmt.Fprintf(w, "%.1fth percentile latency (ns) : %d\n", e.targetLatencyPercentile*100, r.QueryLatency.Target)
		if r.hasTokenMetrics {
			fmt.Fprintf(w, "%.1fth first token percentile latency (ns) : %d\n", e.targetLatencyPercentile*100, r.TTFT.Target)
		}
	case Server:
		fmt.Fprintf(w, "Completed samples per second    : %.2f\n", r.CompletedPerSec)
		if r.hasTokenMetrics {
			fmt.Fprintf(w, "Completed tokens per second: %.2f\n", r.TokensPerSec)
		}
	case Offline:
		fmt.Fprintf(w, "Samples per second: %s\n", formatDouble(r.SamplesPerSec))
		if r.hasTokenMetrics {
			fmt.Fprintf(w, "Tokens per second: %s\n", formatDouble(r.TokensPerSec))
		}
	}
	if e.req.InferTokenLatencies {
		switch e.scenario {
		case Offline:
			fmt.Fprintf(w, "Tokens per second (inferred): %s\n", formatDouble(r.InferredTokensPerSec))
		case Server:
			fmt.Fprintf(w, "Completed tokens per second (inferred): %.2f\n", r.InferredTokensPerSec)
		}
	}
	validity := "INVALID"
	if r.Valid {
		validity = "VALID"
	}
	fmt.Fprintf(w, "Result is : %s\n", validity)
	if e.scenario == Server {
		fmt.Fprintf(w, "  Performance constraints satisfied : %s\n", yesNo(r.PerfConstraintsMet))
	}
	fmt.Fprintf(w, "  Min duration satisfied : %s\n", yesNo(r.MinDurationMet))
	fmt.Fprintf(w, "  Min queries satisfied : %s\n", yesNo(r.MinQueriesMet))
	fmt.Fprintf(w, "  Early stopping satisfied: %s\n", yesNo(r.EarlyStoppingMet))
	if !r.Valid {
		fmt.Fprintln(w, "Recommendations:")
		for _, why := range r.Recommendations {
			fmt.Fprintf(w, " * %s\n", why)
		}
		for _, why := range r.otherReasons {
			fmt.Fprintf(w, " * %s\n", why)
		}
	}
	writeLines := func(head string, lines []string) {
		fmt.Fprintln(w, head)
		if len(lines) == 0 { // LoadGen prints the empty recommendation as a blank line
			fmt.Fprintln(w)
		}
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
	switch {
	case e.scenario == Offline:
	case r.hasTokenMetrics:
		writeLines("TTFT Early Stopping Result:", r.EarlyStoppingTTFT)
		writeLines("TPOT Early Stopping Result:", r.EarlyStoppingTPOT)
	default:
		writeLines("Early Stopping Result:", r.EarlyStopping)
	}
	fmt.Fprintln(w)
	rule := "================================================\n"
	fmt.Fprint(w, rule+"Additional Stats\n"+rule)
	switch e.scenario {
	case SingleStream:
		fmt.Fprintf(w, "QPS w/ loadgen overhead         : %.2f\n", r.QPSWithOverhead)
		fmt.Fprintf(w, "QPS w/o loadgen overhead        : %.2f\n\n", r.QPSNoOverhead)
	case MultiStream:
		// LoadGen 6.0 reports the per-query statistics only.
		fmt.Fprintln(w, "Per-query latency:  ")
		writeStats(w, r.QueryLatency, "")
	case Server:
		fmt.Fprintf(w, "Scheduled samples per second : %.2f\n", r.ScheduledPerSec)
	}
	if e.scenario != MultiStream {
		writeStats(w, r.Latency, "")
	}
	if r.hasTokenMetrics {
		fmt.Fprintln(w)
		switch e.scenario {
		case SingleStream:
			fmt.Fprintf(w, "TPS w/ loadgen overhead         : %.2f\n", r.TPSWithOverhead)
			fmt.Fprintf(w, "TPS w/o loadgen overhead        : %.2f\n", r.TPSNoOverhead)
		case Server:
			fmt.Fprintf(w, "Completed tokens per second                 : %.2f\n", r.TokensPerSec)
		}
		if e.scenario == Offline {
			return
		}
		writeStats(w, r.TTFT, "First Token")
		fmt.Fprintln(w)
		writeStats(w, r.TPOT, "Time per Output Token")
	}
}

func writeStats(w io.Writer, s LatencyStats, what string) {
	if what == "" {
		fmt.Fprintf(w, "Min latency (ns)                : %d\n", s.Min)
		fmt.Fprintf(w, "Max latency (ns)                : %d\n", s.Max)
		fmt.Fprintf(w, "Mean latency (ns)               : %d\n", s.Mean)
		for i, p := range ReportedPercentiles {
			fmt.Fprintf(w, "%.2f percentile latency (ns)   : %d\n", p*100, s.Percentiles[i])
		}
		return
	}
	// LoadGen 6.0's labels: "Min First Token latency (ns)" and "50.00
	// percentile first token latency (ns)", but "Min Time per Output Token
	// (ns)" and "50.00 percentile time to output token (ns)".
	label, plabel := what+" latency", strings.ToLower(what+" latency")
	if what == "Time per Output Token" {
		label, plabel = what, "time to output token"
	}
	fmt.Fprintf(w, "Min %s (ns)                : %d\n", label, s.Min)
	fmt.Fprintf(w, "Max %s (ns)                : %d\n", label, s.Max)
	fmt.Fprintf(w, "Mean %s (ns)               : %d\n", label, s.Mean)
	for i, p := range ReportedPercentiles {
		fmt.Fprintf(w, "%.2f percentile %s (ns)   : %d\n", p*100, plabel, s.Percentiles[i])
	}
}

func b01(b bool) int {
	if b {
		return 1
	}
	return 0
}

func writeParams(w io.Writer, e *effective) {
	s := e.req
	fmt.Fprintf(w, "samples_per_query : %d\n", e.samplesPerQuery)
	fmt.Fprintf(w, "target_qps : %s\n", formatDouble(e.targetQPS))
	if s.UseTokenLatencies {
		fmt.Fprintf(w, "ttft_latency (ns): %d\n", s.ServerTTFTLatencyNs)
		fmt.Fprintf(w, "tpot_latency (ns): %d\n", s.ServerTPOTLatencyNs)
	} else {
		fmt.Fprintf(w, "target_latency (ns): %d\n", e.targetLatencyNs)
	}
	fmt.Fprintf(w, "max_async_queries : %d\n", e.maxAsyncQueries)
	fmt.Fprintf(w, "min_duration (ms): %d\n", e.minDurationMs)
	fmt.Fprintf(w, "max_duration (ms): %d\n", e.maxDurationMs)
	fmt.Fprintf(w, "min_query_count : %d\n", e.minQueryCount)
	fmt.Fprintf(w, "max_query_count : %d\n", e.maxQueryCount)
	fmt.Fprintf(w, "qsl_rng_seed : %d\n", e.qslSeed)
	fmt.Fprintf(w, "sample_index_rng_seed : %d\n", e.sampleSeed)
	fmt.Fprintf(w, "schedule_rng_seed : %d\n", e.scheduleSeed)
	fmt.Fprintf(w, "accuracy_log_rng_seed : %d\n", e.accLogSeed)
	fmt.Fprintf(w, "accuracy_log_probability : %s\n", formatDouble(e.accLogProbability))
	fmt.Fprintf(w, "accuracy_log_sampling_target : %d\n", e.accLogSamplingTarget)
	fmt.Fprintf(w, "print_timestamps : %d\n", b01(s.PrintTimestamps))
	fmt.Fprintf(w, "performance_issue_unique : %d\n", b01(s.PerformanceIssueUnique))
	fmt.Fprintf(w, "performance_issue_same : %d\n", b01(s.PerformanceIssueSame))
	fmt.Fprintf(w, "performance_issue_same_index : %d\n", s.PerformanceIssueSameIndex)
	fmt.Fprintf(w, "performance_sample_count : %d\n", e.performanceSampleCount)
	fmt.Fprintf(w, "accuracy_sample_count : %d\n", e.accuracySampleCount)
	if e.equalIssue {
		fmt.Fprintln(w, "WARNING: sample_concatenate_permutation was set to true. ")
		fmt.Fprintln(w, "Generated samples per query might be different as the one in the setting.")
		fmt.Fprintln(w, "Check the generated_samples_per_query line in the detailed log for the real")
		fmt.Fprintln(w, "samples_per_query value")
	}
}
