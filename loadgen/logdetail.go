package loadgen

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mlperf-go/inference/loadgen/schedule"
)

// header writes the version, SUT/QSL and settings lines.
func (lw *logWriter) header(sut SUT, qsl QSL, e *effective) {
	lw.log("loadgen_version", Version)
	lw.log("loadgen_build_date_local", "")
	lw.log("loadgen_build_date_utc", "")
	lw.log("loadgen_git_commit_date", "")
	lw.log("loadgen_git_log_message", "")
	lw.log("loadgen_git_status_message", "")
	lw.log("loadgen_file_sha1", rawJSON("{}"))
	lw.log("test_datetime", lw.wall.Format("2006-01-02T15:04:05Z"))
	// LoadGen times the SUT's Name call (loadgen.cc): the Network
	// division's Name makes a network round trip, and this shows it.
	t0 := time.Now()
	lw.sutName = name(sut, "GoSUT")
	nameNs := time.Since(t0).Nanoseconds()
	lw.log("sut_name", lw.sutName)
	lw.log("get_sut_name_duration_ns", nameNs)
	lw.log("qsl_name", name(qsl, "GoQSL"))
	lw.log("qsl_reported_total_count", qsl.TotalSampleCount())
	lw.log("qsl_reported_performance_count", qsl.PerformanceSampleCount())
	for _, w := range e.req.warnings {
		if msg, ok := strings.CutPrefix(w, "error:"); ok {
			lw.entry("error_invalid_config", msg, true, false)
		} else {
			lw.entry("warning_generic_message", w, false, true)
		}
	}
	s := e.req
	lw.log("requested_scenario", s.Scenario.String())
	lw.log("requested_test_mode", s.Mode.String())
	switch s.Scenario {
	case SingleStream:
		lw.log("requested_single_stream_expected_latency_ns", s.SingleStreamExpectedLatencyNs)
		lw.log("requested_single_stream_target_latency_percentile", s.SingleStreamTargetLatencyPercentile)
	case MultiStream:
		lw.log("requested_multi_stream_expected_latency_ns", s.MultiStreamExpectedLatencyNs)
		lw.log("requested_multi_stream_target_latency_percentile", s.MultiStreamTargetLatencyPercentile)
		lw.log("requested_multi_stream_samples_per_query", s.MultiStreamSamplesPerQuery)
	case Server:
		lw.log("requested_server_target_qps", s.ServerTargetQPS)
		lw.log("requested_server_target_latency_ns", s.ServerTargetLatencyNs)
		lw.log("requested_server_target_latency_percentile", s.ServerTargetLatencyPercentile)
		lw.log("requested_server_coalesce_queries", s.ServerCoalesceQueries)
		lw.log("requested_server_find_peak_qps_decimals_of_precision", s.ServerFindPeakQPSDecimalsOfPrecision)
		lw.log("requested_server_find_peak_qps_boundary_step_size", s.ServerFindPeakQPSBoundaryStepSize)
		lw.log("requested_server_max_async_queries", s.ServerMaxAsyncQueries)
		lw.log("requested_server_num_issue_query_threads", s.ServerNumIssueQueryThreads)
	case Offline:
		lw.log("requested_offline_expected_qps", s.OfflineExpectedQPS)
	}
	lw.log("requested_min_duration_ms", s.MinDurationMs)
	lw.log("requested_max_duration_ms", s.MaxDurationMs)
	lw.log("requested_min_query_count", s.MinQueryCount)
	lw.log("requested_max_query_count", s.MaxQueryCount)
	lw.log("requested_qsl_rng_seed", s.QSLRNGSeed)
	lw.log("requested_sample_index_rng_seed", s.SampleIndexRNGSeed)
	lw.log("requested_schedule_rng_seed", s.ScheduleRNGSeed)
	lw.log("requested_accuracy_log_rng_seed", s.AccuracyLogRNGSeed)
	lw.log("requested_accuracy_log_probability", s.AccuracyLogProbability)
	lw.log("requested_accuracy_log_sampling_target", s.AccuracyLogSamplingTarget)
	lw.log("requested_print_timestamps", s.PrintTimestamps)
	lw.log("requested_performance_issue_unique", s.PerformanceIssueUnique)
	lw.log("requested_performance_issue_same", s.PerformanceIssueSame)
	lw.log("requested_performance_issue_same_index", s.PerformanceIssueSameIndex)
	lw.log("requested_performance_sample_count_override", s.PerformanceSampleCountOverride)
	lw.log("requested_accuracy_sample_count_override", s.AccuracySampleCountOverride)
	lw.log("requested_sample_concatenate_permutation", s.SampleConcatenatePermutation)
	if s.UseTokenLatencies {
		lw.log("requested_use_token_latencies", s.UseTokenLatencies)
		// LoadGen logs the TTFT/TPOT bounds for every scenario but Offline.
		if s.Scenario != Offline {
			lw.log("requested_server_ttft_latency", s.ServerTTFTLatencyNs)
			lw.log("requested_server_tpot_latency", s.ServerTPOTLatencyNs)
		}
	}
	for _, msg := range e.errors {
		lw.entry("error_invalid_test_settings", msg, true, false)
	}
	lw.log("effective_scenario", e.scenario.String())
	lw.log("effective_test_mode", e.mode.String())
	lw.log("effective_samples_per_query", e.samplesPerQuery)
	lw.log("effective_target_qps", e.targetQPS)
	lw.log("effective_target_latency_ns", e.targetLatencyNs)
	lw.log("effective_target_latency_percentile", e.targetLatencyPercentile)
	lw.log("effective_max_async_queries", e.maxAsyncQueries)
	lw.log("effective_target_duration_ms", e.targetDurationMs)
	lw.log("effective_min_duration_ms", e.minDurationMs)
	lw.log("effective_max_duration_ms", e.maxDurationMs)
	lw.log("effective_min_query_count", e.minQueryCount)
	lw.log("effective_max_query_count", e.maxQueryCount)
	lw.log("effective_min_sample_count", e.minSampleCount)
	lw.log("effective_qsl_rng_seed", e.qslSeed)
	lw.log("effective_sample_index_rng_seed", e.sampleSeed)
	lw.log("effective_schedule_rng_seed", e.scheduleSeed)
	lw.log("effective_accuracy_log_rng_seed", e.accLogSeed)
	lw.log("effective_accuracy_log_probability", e.accLogProbability)
	lw.log("effective_accuracy_log_sampling_target", e.accLogSamplingTarget)
	lw.log("effective_print_timestamps", s.PrintTimestamps)
	lw.log("effective_performance_issue_unique", s.PerformanceIssueUnique)
	lw.log("effective_performance_issue_same", s.PerformanceIssueSame)
	lw.log("effective_performance_issue_same_index", s.PerformanceIssueSameIndex)
	lw.log("effective_performance_sample_count", e.performanceSampleCount)
	lw.log("effective_accuracy_sample_count", e.accuracySampleCount)
	lw.log("effective_sample_concatenate_permutation", e.equalIssue)
}

// LoadGen's texts for how a series of queries ended
// (loadgen/issue_query_controller.cc IssueQueriesInternal and
// loadgen/loadgen.cc IssueQueries).
const (
	endNaturally = "Ending naturally: Minimum query count and test duration met."
	endRanOut    = "Ending early: Ran out of generated queries to issue before the minimum query count and test duration were reached. Please update the relevant expected latency or target qps in the TestSettings so they are more accurate."
)

func endMaxQueries(issued int) string {
	return fmt.Sprintf("IssueQueryThread 0 Ending early: Max query count reached. query_count %d", issued)
}

func endMaxDuration(ns int64) string {
	return fmt.Sprintf("IssueQueryThread 0 Ending early: Max test duration reached. duration_ns %d", ns)
}

func endTooManyOutstanding(issued int, outstanding int64) string {
	return fmt.Sprintf("IssueQueryThread 0 Ending early: Too many outstanding queries. issued %d outstanding %d", issued, outstanding)
}

// endSeries logs how a series ended as LoadGen does: a natural end as a
// generic_message, an early end as an error_runtime (the checker counts
// those), and nothing for "" (accuracy mode, a Server series that issued
// every query).
func (lw *logWriter) endSeries(reason string) {
	switch {
	case reason == "":
	case strings.HasPrefix(reason, "Ending naturally"):
		lw.message(reason)
	default:
		lw.errorf("%s", reason)
	}
}

func (lw *logWriter) loadedSet(set []uint64) { lw.log("loaded_qsl_set", set) }

func (lw *logWriter) generated(q schedule.Queries, e *effective) {
	spq := max(q.SamplesPerQuery, 1)
	n := len(q.Samples) / spq
	lw.log("generated_query_count", n)
	lw.log("generated_samples_per_query", spq)
	lw.log("generated_query_duration", q.Duration)
}

// seriesDone writes the lines LoadGen ends every series of queries with
// (accuracy sets and performance runs alike): its logger's contention
// counters, always 0 here, and the power interval, from the first issue
// to the last completion (beginNs, endNs: ns since the run's base time).
func (lw *logWriter) seriesDone(beginNs, endNs int64) {
	for _, k := range []string{"logger_swap_request_slots_retry_count", "logger_swap_request_slots_retry_retry_count", "logger_swap_request_slots_retry_reencounter_count", "logger_start_reading_entries_retry_count", "logger_tls_total_log_cas_fail_count", "logger_tls_total_swap_buffers_slot_retry_count"} {
		lw.log(k, 0)
	}
	const power = "01-02-2006 15:04:05.000"
	lw.log("power_begin", lw.wall.Add(time.Duration(beginNs)).Format(power))
	lw.log("power_end", lw.wall.Add(time.Duration(max(endNs, beginNs))).Format(power))
}

// results writes the result lines of the detail log and the summary.
func (lw *logWriter) results(r *Result, e *effective) {
	if r.accuracy {
		lw.writeSummary(r, e)
		return
	}
	validity := "INVALID"
	if r.Valid {
		validity = "VALID"
	}
	lw.log("result_validity", validity)
	if e.scenario == Server {
		lw.log("result_perf_constraints_met", r.PerfConstraintsMet)
	}
	lw.log("result_min_duration_met", r.MinDurationMet)
	lw.log("result_min_queries_met", r.MinQueriesMet)
	lw.log("early_stopping_met", r.EarlyStoppingMet)
	if !r.Valid {
		lw.log("result_invalid_reason", invalidReason(r))
	}
	// LoadGen replaces the recommendation's line breaks by spaces here.
	oneLine := func(lines []string) string { return strings.ReplaceAll(strings.Join(lines, "\n"), "\n", " ") }
	// LoadGen writes these for Offline too, empty.
	switch {
	case r.hasTokenMetrics:
		lw.log("early_stopping_ttft_result", oneLine(r.EarlyStoppingTTFT))
		lw.log("early_stopping_tpot_result", oneLine(r.EarlyStoppingTPOT))
	default:
		lw.log("early_stopping_result", oneLine(r.EarlyStopping))
	}
	lw.log("result_query_count", r.QueryCount)
	switch e.scenario {
	case SingleStream:
		lw.log("result_qps_with_loadgen_overhead", r.QPSWithOverhead)
		lw.log("result_qps_without_loadgen_overhead", r.QPSNoOverhead)
		lw.log("early_stopping_latency_ss", r.EarlyStoppingNs)
		lw.log("early_stopping_latency_ms", r.EarlyStoppingMSNs)
	case MultiStream:
		q := r.QueryLatency
		lw.log("result_min_query_latency_ns", q.Min)
		lw.log("result_max_query_latency_ns", q.Max)
		lw.log("result_mean_query_latency_ns", q.Mean)
		for i, p := range ReportedPercentiles {
			lw.log(fmt.Sprintf("result_%.2f_percentile_per_query_latency_ns", p*100), q.Percentiles[i])
		}
		lw.log("early_stopping_latency_ms", r.EarlyStoppingMSNs)
	case Server:
		lw.log("result_overlatency_query_count", r.OverLatency)
		lw.log("result_scheduled_samples_per_sec", r.ScheduledPerSec)
		lw.log("result_completed_samples_per_sec", r.CompletedPerSec)
	case Offline:
		lw.log("result_samples_per_second", r.SamplesPerSec)
	}
	l := r.Latency
	lw.log("result_min_latency_ns", l.Min)
	lw.log("result_max_latency_ns", l.Max)
	lw.log("result_mean_latency_ns", l.Mean)
	for i, p := range ReportedPercentiles {
		lw.log(fmt.Sprintf("result_%.2f_percentile_latency_ns", p*100), l.Percentiles[i])
	}
	if r.hasTokenMetrics {
		if e.scenario == Offline {
			lw.log("result_tokens_per_second", r.TokensPerSec)
		} else {
			// As LoadGen 6.0 (results.cc PerformanceSummary::LogDetail),
			// keys and units included: result_token_throughput divides by
			// the mean latency in ns, not s.
			t := r.TTFT
			lw.log("result_first_token_min_latency_ns", t.Min)
			lw.log("result_first_token_max_latency_ns", t.Max)
			lw.log("result_first_token_mean_latency_ns", t.Mean)
			for i, p := range ReportedPercentiles {
				lw.log(fmt.Sprintf("result_first_token_%.2f_percentile_latency_ns", p*100), t.Percentiles[i])
			}
			var withOverhead, perNs float64
			if r.lastIssued > 0 {
				withOverhead = float64(r.Tokens) / (float64(r.lastIssued) / 1e9)
			}
			if r.Latency.Mean > 0 && r.SampleCount > 0 {
				perNs = float64(r.Tokens) / (float64(r.Latency.Mean) * float64(r.SampleCount))
			}
			lw.log("result_token_throughput_with_loadgen_overhead", withOverhead)
			lw.log("result_token_throughput", perNs)
			for i, p := range ReportedPercentiles {
				lw.log(fmt.Sprintf("result_time_per_output_token_%.2f_percentile_ns", p*100), r.TPOT.Percentiles[i])
			}
			lw.log("result_time_to_output_token_min", r.TPOT.Min)
			lw.log("result_time_to_output_token_max", r.TPOT.Max)
			lw.log("result_time_to_output_token_mean", r.TPOT.Mean)
			lw.log("result_completed_tokens_per_second", r.TokensPerSec)
		}
	}
	if e.req.InferTokenLatencies {
		switch e.scenario {
		case Server:
			lw.log("result_inferred_completed_tokens_per_second", r.InferredTokensPerSec)
		case Offline:
			lw.log("result_inferred_tokens_per_second", r.InferredTokensPerSec)
		}
	}
	if lw.settings.Extra != nil {
		lw.extra(lw.settings.Extra(r))
	}
	lw.log("num_errors", lw.errors)
	lw.writeSummary(r, e)
}

// extra writes the caller's extra entries (LogSettings.Extra), each under
// ExtraKeyPrefix; a value JSON cannot encode becomes an error entry.
func (lw *logWriter) extra(entries []DetailEntry) {
	for _, x := range entries {
		key := ExtraKeyPrefix + x.Name
		switch v := x.Value.(type) {
		case string, bool, float64, float32, int, int64, uint64:
			lw.log(key, v)
		default:
			js, err := json.Marshal(v)
			if err != nil {
				lw.errorf("loadgen: extra detail log entry %s: %v", key, err)
				continue
			}
			lw.log(key, rawJSON(js))
		}
	}
}
