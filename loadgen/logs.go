package loadgen

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mlperf-go/inference/loadgen/rng"
	"github.com/mlperf-go/inference/loadgen/schedule"
)

// Version is the LoadGen version whose behaviour and logs this package
// reproduces, as written in the detail log's loadgen_version.
const Version = "6.0.17 @ mlperf-go"

// auditConfigWarning is LoadGen's warning_generic_message when an
// audit.config overrides the settings (loadgen/loadgen.cc StartTest);
// reviewers look for it in compliance logs.
const auditConfigWarning = "Found Audit Config file (audit.config). Overriding TestSettings from audit.config file."

// Namer is implemented by SUTs and QSLs that have a name for the logs.
type Namer interface {
	Name() string
}

// logWriter owns the files of one run. Detail and summary writes happen on
// the run goroutine; accuracy entries come from completers and are
// serialised by accMu.
type logWriter struct {
	base     time.Time
	wall     time.Time
	dir      string
	names    map[string]string
	detail   *bufio.Writer
	detailF  *os.File
	tokens   bool
	scenario Scenario
	settings LogSettings
	pid      int

	warnings, errors int
	nextSeq          uint64

	accMu     sync.Mutex
	accuracy  *bufio.Writer
	accF      *os.File
	accCount  int
	accHexBuf []byte
	firstTok  map[uint64][]byte

	// accuracy-log sampling: one uniform draw per sample, in seq order,
	// from a default-seeded mt19937 (LoadGen never seeds it).
	accRNG      *rng.MT19937
	accRNGDrawn uint64

	sutName  string
	trace    *bufio.Writer // Chrome trace, when enabled
	traceF   *os.File
	closed   bool
	closeErr error
	wroteSum bool
}

func (s LogSettings) path(kind, ext string, now time.Time) string {
	prefix := s.Prefix
	if s.PrefixWithDatetime {
		prefix += now.Format("2006-01-02T15:04:05Z") + "_"
	}
	dir := s.OutDir
	if dir == "" {
		dir = "."
	}
	return filepath.Join(dir, prefix+kind+s.Suffix+ext)
}

// openLogs creates the output folder and the detail and accuracy logs.
func openLogs(s LogSettings, tokens bool, sc Scenario) (*logWriter, error) {
	if s.Prefix == "" && s.Suffix == "" {
		s.Prefix = "mlperf_log_"
	}
	if s.OutDir == "" {
		s.OutDir = "."
	}
	if err := os.MkdirAll(s.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("loadgen: cannot create the log folder %s: %w (choose a writable output folder)", s.OutDir, err)
	}
	now := time.Now()
	lw := &logWriter{base: now, wall: now.UTC(), dir: s.OutDir, tokens: tokens, scenario: sc, settings: s, pid: os.Getpid(), firstTok: map[uint64][]byte{}}
	lw.names = map[string]string{
		"detail":   s.path("detail", ".txt", now),
		"summary":  s.path("summary", ".txt", now),
		"accuracy": s.path("accuracy", ".json", now),
		"trace":    s.path("trace", ".json", now),
	}
	var err error
	if lw.detailF, err = os.Create(lw.names["detail"]); err != nil {
		return nil, fmt.Errorf("loadgen: cannot write the detail log: %w (choose a writable output folder)", err)
	}
	lw.detail = bufio.NewWriterSize(lw.detailF, 1<<16)
	if lw.accF, err = os.Create(lw.names["accuracy"]); err != nil {
		lw.detailF.Close()
		return nil, fmt.Errorf("loadgen: cannot write the accuracy log: %w (choose a writable output folder)", err)
	}
	lw.accuracy = bufio.NewWriterSize(lw.accF, 1<<16)
	lw.accuracy.WriteString("[")
	if s.EnableTrace {
		f, err := os.Create(lw.names["trace"])
		if err != nil {
			lw.detailF.Close()
			lw.accF.Close()
			return nil, fmt.Errorf("loadgen: cannot write the trace: %w (choose a writable output folder)", err)
		}
		lw.traceF, lw.trace = f, bufio.NewWriterSize(f, 1<<20)
		lw.trace.WriteString("{\"traceEvents\":[\n")
	}
	return lw, nil
}

// jsonString quotes s as JSON without HTML escaping, as LoadGen writes it.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// formatDouble prints v as C++'s default ostream (6 significant digits).
func formatDouble(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return jsonString(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return formatDouble(x)
	case float32:
		return formatDouble(float64(x))
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case []uint64:
		var b strings.Builder
		b.WriteByte('[')
		for i, u := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatUint(u, 10))
		}
		b.WriteByte(']')
		return b.String()
	case rawJSON:
		return string(x)
	}
	rv := reflect.ValueOf(v)
	if rv.CanInt() {
		return strconv.FormatInt(rv.Int(), 10)
	}
	if rv.CanUint() {
		return strconv.FormatUint(rv.Uint(), 10)
	}
	return jsonString(fmt.Sprint(v))
}

type rawJSON string

func (lw *logWriter) entry(key string, value any, isErr, isWarn bool) {
	if isErr {
		lw.errors++
	}
	if isWarn {
		lw.warnings++
	}
	_, file, line, _ := runtime.Caller(2)
	ms := float64(time.Since(lw.base).Nanoseconds()) / 1e6
	fmt.Fprintf(lw.detail, `:::MLLOG {"key": %s, "value": %s, "time_ms": %.6f, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": %t, "is_warning": %t, "file": %s, "line_no": %d, "pid": %d, "tid": %d}}`+"\n",
		jsonString(key), formatValue(value), ms, isErr, isWarn, jsonString(filepath.Base(file)), line, lw.pid, lw.pid)
	if lw.settings.CopyDetailToStdout {
		lw.detail.Flush()
	}
}

func (lw *logWriter) log(key string, value any) { lw.entry(key, value, false, false) }

func (lw *logWriter) message(msg string) { lw.entry("generic_message", msg, false, false) }

func (lw *logWriter) errorf(format string, a ...any) {
	lw.entry("error_runtime", fmt.Sprintf(format, a...), true, false)
}

func name(x any, def string) string {
	if n, ok := x.(Namer); ok {
		return n.Name()
	}
	return def
}

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

// sampleMask draws the accuracy-log sampling decision of the next n
// samples (performance mode). It returns nil when nothing is sampled.
func (lw *logWriter) sampleMask(e *effective, n int) []uint64 {
	prob := e.accLogProbability
	if e.accLogSamplingTarget > 0 {
		if exp := e.accuracyLogExpected(); exp > 0 {
			prob = float64(e.accLogSamplingTarget) / float64(exp)
		}
	}
	first := lw.nextSeq - uint64(n)
	if prob <= 0 {
		return nil
	}
	if lw.accRNG == nil {
		lw.accRNG = rng.New(5489)
	}
	for lw.accRNGDrawn < first { // samples of earlier series consumed values too
		lw.accRNG.Canonical()
		lw.accRNGDrawn++
	}
	offset := rng.New(e.accLogSeed).Canonical()
	mask := make([]uint64, (n+63)/64)
	for i := 0; i < n; i++ {
		v := lw.accRNG.Canonical() + offset
		if v >= 1 {
			v -= 1
		}
		if v <= prob {
			mask[i/64] |= 1 << (i % 64)
		}
	}
	lw.accRNGDrawn += uint64(n)
	return mask
}

// keepFirstToken stores a sample's first-token data for token_data.
func (lw *logWriter) keepFirstToken(seq uint64, data []byte) {
	lw.accMu.Lock()
	lw.firstTok[seq] = append([]byte(nil), data...)
	lw.accMu.Unlock()
}

func (lw *logWriter) firstTokenData(seq uint64) []byte {
	lw.accMu.Lock()
	defer lw.accMu.Unlock()
	d := lw.firstTok[seq]
	delete(lw.firstTok, seq)
	return d
}

// accuracyEntry appends one entry to mlperf_log_accuracy.json.
func (lw *logWriter) accuracyEntry(seq, qslIdx uint64, data, tokenData []byte, nTokens int, tokens, offline bool) {
	lw.accMu.Lock()
	defer lw.accMu.Unlock()
	if lw.accuracy == nil {
		return
	}
	w := lw.accuracy
	if lw.accCount == 0 {
		w.WriteString("\n")
	} else {
		w.WriteString(",\n")
	}
	lw.accCount++
	fmt.Fprintf(w, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "`, seq, qslIdx)
	w.Write(upperHex(&lw.accHexBuf, data))
	w.WriteString(`"`)
	if tokens {
		if !offline {
			w.WriteString(`, "token_data" : "`)
			w.Write(upperHex(&lw.accHexBuf, tokenData))
			w.WriteString(`"`)
		}
		fmt.Fprintf(w, `, "token_count" : %d`, nTokens)
	}
	w.WriteString(" }")
}

func upperHex(buf *[]byte, data []byte) []byte {
	n := hex.EncodedLen(len(data))
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	const digits = "0123456789ABCDEF"
	for i, c := range data {
		b[2*i] = digits[c>>4]
		b[2*i+1] = digits[c&15]
	}
	return b
}

func (lw *logWriter) resetAccuracyCount() {}

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

// writeSummary writes mlperf_log_summary.txt.
func (lw *logWriter) writeSummary(r *Result, e *effective) {
	lw.wroteSum = true
	f, err := os.Create(lw.names["summary"])
	if err != nil {
		lw.closeErr = fmt.Errorf("loadgen: cannot write the summary log: %w", err)
		return
	}
	defer f.Close()
	var out io.Writer = f
	if lw.settings.CopySummaryToStdout {
		out = io.MultiWriter(f, os.Stdout)
	}
	w := bufio.NewWriter(out)
	defer w.Flush()
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

// close flushes and closes every file; it is safe to call twice.
func (lw *logWriter) close() error {
	if lw.closed {
		return lw.closeErr
	}
	lw.closed = true
	if !lw.wroteSum {
		lw.writeSummary(nil, nil)
	}
	var errs []error
	lw.accMu.Lock()
	if lw.accuracy != nil {
		lw.accuracy.WriteString("\n]\n")
		errs = append(errs, lw.accuracy.Flush(), lw.accF.Close())
		lw.accuracy = nil
	}
	lw.accMu.Unlock()
	if lw.trace != nil {
		fmt.Fprintf(lw.trace, "{\"name\":\"LastTrace\"}\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"ts\":%d,\"version\":\"MLPerf LoadGen v1.0\"}}\n", lw.base.UnixNano())
		errs = append(errs, lw.trace.Flush(), lw.traceF.Close())
	}
	errs = append(errs, lw.detail.Flush(), lw.detailF.Close(), lw.closeErr)
	if err := errors.Join(errs...); err != nil {
		lw.closeErr = fmt.Errorf("loadgen: writing logs in %s: %w", lw.dir, err)
	}
	return lw.closeErr
}

// traceSamples writes one async "Sample" begin/end pair per completed
// sample of a series to the Chrome trace: begin at the scheduled time, end
// at completion, timestamps in µs from the start of the run.
func (lw *logWriter) traceSamples(r *runState, issued int) {
	if lw.trace == nil {
		return
	}
	us := func(ns int64) string { return strconv.FormatFloat(float64(ns-1)/1e3, 'f', 3, 64) }
	for i := 0; i < issued*r.spq; i++ {
		done := r.done[i]
		if done == 0 {
			continue
		}
		q := i / r.spq
		seq := r.seqBase + uint64(i)
		fmt.Fprintf(lw.trace, `{"name":"Sample","ph":"b","cat":"default","id":%d,"ts":%s,"pid":%d,"tid":%d,"args":{"sample_seq":%d,"query_seq":%d,"sample_idx":%d,"issue_start_ns":%d,"complete_ns":%d}},`+"\n",
			seq, us(r.sched[q]), lw.pid, lw.pid, seq, q, r.q.Samples[i], r.sched[q]-1, done-1)
		fmt.Fprintf(lw.trace, `{"name":"Sample","ph":"e","cat":"default","id":%d,"ts":%s,"pid":%d,"tid":%d},`+"\n", seq, us(done), lw.pid, lw.pid)
	}
}
