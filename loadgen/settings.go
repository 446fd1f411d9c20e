package loadgen

import (
	"fmt"
	"strings"
	"time"
)

// Scenario is an MLPerf scenario.
type Scenario int

// The four MLPerf Inference scenarios.
const (
	SingleStream Scenario = iota
	MultiStream
	Server
	Offline
)

var scenarioNames = [...]string{"SingleStream", "MultiStream", "Server", "Offline"}

// String returns LoadGen's name of the scenario.
func (s Scenario) String() string {
	if s >= 0 && int(s) < len(scenarioNames) {
		return scenarioNames[s]
	}
	return fmt.Sprintf("Scenario(%d)", int(s))
}

// ParseScenario accepts LoadGen's scenario names, case-insensitively.
func ParseScenario(name string) (Scenario, error) {
	for i, n := range scenarioNames {
		if strings.EqualFold(n, name) {
			return Scenario(i), nil
		}
	}
	return 0, fmt.Errorf("loadgen: unknown scenario %q (want SingleStream, MultiStream, Server or Offline)", name)
}

// Mode is a LoadGen test mode. The numeric values are those of the conf
// key `mode`.
type Mode int

// The LoadGen test modes.
const (
	SubmissionRun       Mode = 0 // accuracy, then performance
	AccuracyOnly        Mode = 1
	PerformanceOnly     Mode = 2
	FindPeakPerformance Mode = 3 // Server only: search the highest valid QPS
)

// String returns LoadGen's name of the mode.
func (m Mode) String() string {
	switch m {
	case SubmissionRun:
		return "SubmissionRun"
	case AccuracyOnly:
		return "AccuracyOnly"
	case PerformanceOnly:
		return "PerformanceOnly"
	case FindPeakPerformance:
		return "FindPeakPerformance"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode accepts LoadGen's mode names and the short forms performance,
// accuracy, submission and find-peak, case-insensitively.
func ParseMode(name string) (Mode, error) {
	switch strings.ToLower(name) {
	case "submissionrun", "submission":
		return SubmissionRun, nil
	case "accuracyonly", "accuracy":
		return AccuracyOnly, nil
	case "performanceonly", "performance":
		return PerformanceOnly, nil
	case "findpeakperformance", "find-peak", "findpeak":
		return FindPeakPerformance, nil
	}
	return 0, fmt.Errorf("loadgen: unknown mode %q (want performance, accuracy, submission or find-peak)", name)
}

// Settings are LoadGen's TestSettings: every field, with LoadGen's
// defaults from DefaultSettings. Durations and latencies are in
// nanoseconds or milliseconds as their names say, like the C++ fields.
type Settings struct {
	Scenario Scenario
	Mode     Mode

	SingleStreamExpectedLatencyNs        float64
	SingleStreamTargetLatencyPercentile  float64
	MultiStreamExpectedLatencyNs         float64
	MultiStreamTargetLatencyPercentile   float64
	MultiStreamSamplesPerQuery           uint64
	ServerTargetQPS                      float64
	ServerTargetLatencyNs                int64
	ServerTargetLatencyPercentile        float64
	ServerCoalesceQueries                bool
	ServerFindPeakQPSDecimalsOfPrecision int
	ServerFindPeakQPSBoundaryStepSize    float64
	ServerMaxAsyncQueries                uint64
	ServerNumIssueQueryThreads           uint64
	OfflineExpectedQPS                   float64
	SampleConcatenatePermutation         bool

	MinDurationMs uint64
	MaxDurationMs uint64
	MinQueryCount uint64
	MaxQueryCount uint64

	QSLRNGSeed                uint64
	SampleIndexRNGSeed        uint64
	ScheduleRNGSeed           uint64
	AccuracyLogRNGSeed        uint64
	AccuracyLogProbability    float64
	AccuracyLogSamplingTarget uint64

	Test05                   bool
	Test05QSLRNGSeed         uint64
	Test05SampleIndexRNGSeed uint64
	Test05ScheduleRNGSeed    uint64

	PrintTimestamps           bool
	PerformanceIssueUnique    bool
	PerformanceIssueSame      bool
	PerformanceIssueSameIndex uint64

	PerformanceSampleCountOverride uint64
	AccuracySampleCountOverride    uint64

	UseTokenLatencies         bool
	ServerTTFTLatencyNs       int64
	ServerTPOTLatencyNs       int64
	InferTokenLatencies       bool
	TokenLatencyScalingFactor uint64

	// CompletionTimeout bounds how long the loadgen waits without any
	// sample completing, for a query (SingleStream, MultiStream) or, after
	// the last query is issued, for what is outstanding; a SUT that stops
	// completing then ends the run INVALID instead of hanging it. Not a
	// LoadGen setting. Zero derives it from the scenario's bounds: 20 × the
	// expected or target latency, 4 × the expected Offline query duration,
	// at least one minute.
	CompletionTimeout time.Duration

	// MaxScheduleBytes bounds the memory the query schedule may take
	// (estimated before it is built; see ScheduleCost). Not a LoadGen
	// setting. Zero means half of the machine's memory.
	MaxScheduleBytes uint64

	// warnings collects conf-file warnings for the detail log.
	warnings []string
	// userConfLoaded is set by the first user conf, as LoadGen's static counter.
	userConfLoaded bool
}

// DefaultSettings returns LoadGen's TestSettings defaults. The seeds are 0
// there: they arrive through mlperf.conf (see LoadConfigs).
func DefaultSettings() Settings {
	return Settings{
		Scenario:                             SingleStream,
		Mode:                                 PerformanceOnly,
		SingleStreamExpectedLatencyNs:        1_000_000,
		SingleStreamTargetLatencyPercentile:  0.90,
		MultiStreamExpectedLatencyNs:         8_000_000,
		MultiStreamTargetLatencyPercentile:   0.99,
		MultiStreamSamplesPerQuery:           8,
		ServerTargetQPS:                      1,
		ServerTargetLatencyNs:                100_000_000,
		ServerTargetLatencyPercentile:        0.99,
		ServerFindPeakQPSDecimalsOfPrecision: 1,
		ServerFindPeakQPSBoundaryStepSize:    1,
		OfflineExpectedQPS:                   1,
		MinDurationMs:                        10000,
		MinQueryCount:                        100,
		ServerTTFTLatencyNs:                  100_000_000,
		ServerTPOTLatencyNs:                  100_000_000,
	}
}

// LogSettings say where and how the logs are written.
type LogSettings struct {
	OutDir              string // default "."
	Prefix              string // default "mlperf_log_"
	Suffix              string
	PrefixWithDatetime  bool
	CopyDetailToStdout  bool
	CopySummaryToStdout bool
	EnableTrace         bool // write mlperf_log_trace.json
	// QueryRecord writes the per-query record of every performance series,
	// mlperf_log_queries.bin (package querylog), after the series: no cost
	// on the timed path, 16 bytes a query and 16 a sample (32 with token
	// latencies) on disk. DefaultLogSettings turns it on.
	QueryRecord bool
	// Endpoints, for a remote run, names the serving endpoints (at most
	// querylog.MaxEndpoints), and EndpointOf says which served a sample
	// (querylog.NoEndpoint: unknown); the per-query record carries it.
	// EndpointOf is called after each series, never on the timed path.
	Endpoints  []string
	EndpointOf func(ResponseID) uint8

	// OnIssue, when set, is called on the issuing goroutine just before
	// each IssueQuery with the query's number in its series, its scheduled
	// time in ns from the series' first query, and its samples (valid only
	// during the call). It is for tools that record issue order; it adds
	// its own cost to the timed path.
	OnIssue func(query int, scheduledNs int64, samples []Sample)

	// OnSeries, when set, is called on the run goroutine before each
	// series of queries is issued (accuracy set or performance run), with
	// whether it is an accuracy series: a caller that measures its own
	// per-request figures resets them here so that the figures it hands
	// to Extra cover the performance run alone.
	OnSeries func(accuracy bool)

	// Extra, when set, is called once on the run goroutine after a
	// performance (or FindPeakPerformance) result is known, once the run
	// has waited for its samples (all of them, unless the completion
	// timeout ran out or the run was interrupted); the entries it returns are written
	// to the detail log after LoadGen's result keys, before num_errors,
	// each under ExtraKeyPrefix + Name so that no key can collide with
	// the C++ LoadGen's. Left nil, the detail log holds LoadGen's keys
	// only. ExtraIssueLag gives the loadgen's own issue-lag entry.
	Extra func(r *Result) []DetailEntry

	// Monitor, when set, is handed each series while it runs, for
	// progress lines (see Monitor.Poll).
	Monitor *Monitor
}

// ExtraKeyPrefix starts every detail log key that this implementation
// writes and the C++ LoadGen does not (see LogSettings.Extra).
const ExtraKeyPrefix = "mlperfgo_"

// DetailEntry is one extra detail log entry: the key is ExtraKeyPrefix +
// Name. Value is a number, a string, a bool, a Dist or a map of those
// (written as a JSON object with sorted keys).
type DetailEntry struct {
	Name  string
	Value any
}

// Dist summarises a distribution of durations in ns, as an extra detail
// log entry writes it (a JSON object). Count is the number of values; the
// percentiles are the value at floor(Count*p) of the ascending sort, as
// LoadGen's, or an estimate of it where the source is a histogram.
type Dist struct {
	Count int64 `json:"count"`
	Min   int64 `json:"min"`
	Mean  int64 `json:"mean"`
	P50   int64 `json:"p50"`
	P90   int64 `json:"p90"`
	P99   int64 `json:"p99"`
	P999  int64 `json:"p99.9"`
	Max   int64 `json:"max"`
}

// DefaultLogSettings returns LoadGen's defaults, except that the trace is
// off (it costs memory and time; ask for it), with this suite's per-query
// record on.
func DefaultLogSettings() LogSettings {
	return LogSettings{OutDir: ".", Prefix: "mlperf_log_", QueryRecord: true}
}
