package loadgen

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mlperf-go/inference/internal/sysmem"
)

// ErrSettings marks settings LoadGen cannot run.
var ErrSettings = errors.New("invalid test settings")

// effective are the settings a run actually uses, derived from the
// requested Settings and the QSL's counts exactly as LoadGen's
// TestSettingsInternal does.
type effective struct {
	req                     Settings
	scenario                Scenario
	mode                    Mode
	samplesPerQuery         uint64
	targetQPS               float64
	targetLatencyNs         int64
	targetLatencyPercentile float64
	maxAsyncQueries         uint64
	targetDurationMs        uint64
	minDurationMs           uint64
	maxDurationMs           uint64
	minQueryCount           uint64
	maxQueryCount           uint64
	minSampleCount          uint64
	qslSeed, sampleSeed     uint64
	scheduleSeed            uint64
	accLogSeed              uint64
	accLogProbability       float64
	accLogSamplingTarget    uint64
	performanceSampleCount  uint64
	accuracySampleCount     uint64
	equalIssue              bool
	qslTotal                uint64   // the QSL's TotalSampleCount
	errors                  []string // error_invalid_test_settings messages
}

// deriveSettings computes the effective settings for a QSL with the given
// counts. It fails on settings LoadGen cannot run (where the C++ LoadGen
// would crash or divide by zero).
func deriveSettings(s Settings, qslTotal, qslPerf int) (*effective, error) {
	if qslTotal <= 0 {
		return nil, fmt.Errorf("loadgen: %w: the QSL reports %d samples; it must have at least one", ErrSettings, qslTotal)
	}
	e := &effective{
		req:                  s,
		scenario:             s.Scenario,
		mode:                 s.Mode,
		targetDurationMs:     s.MinDurationMs,
		minDurationMs:        s.MinDurationMs,
		maxDurationMs:        s.MaxDurationMs,
		minQueryCount:        s.MinQueryCount,
		maxQueryCount:        s.MaxQueryCount,
		qslSeed:              s.QSLRNGSeed,
		sampleSeed:           s.SampleIndexRNGSeed,
		scheduleSeed:         s.ScheduleRNGSeed,
		accLogSeed:           s.AccuracyLogRNGSeed,
		accLogProbability:    s.AccuracyLogProbability,
		accLogSamplingTarget: s.AccuracyLogSamplingTarget,
		equalIssue:           s.SampleConcatenatePermutation,
		qslTotal:             uint64(qslTotal),
	}
	if s.Scenario < SingleStream || s.Scenario > Offline {
		return nil, fmt.Errorf("loadgen: %w: unknown scenario %d", ErrSettings, int(s.Scenario))
	}
	if s.Mode < SubmissionRun || s.Mode > FindPeakPerformance {
		return nil, fmt.Errorf("loadgen: %w: unknown mode %d", ErrSettings, int(s.Mode))
	}
	if s.Mode == FindPeakPerformance && s.Scenario != Server {
		return nil, fmt.Errorf("loadgen: %w: find-peak mode is only for the Server scenario, not %s", ErrSettings, s.Scenario)
	}
	if s.Test05 {
		e.mode = PerformanceOnly
		e.qslSeed, e.sampleSeed, e.scheduleSeed = s.Test05QSLRNGSeed, s.Test05SampleIndexRNGSeed, s.Test05ScheduleRNGSeed
	}
	e.performanceSampleCount = uint64(qslPerf)
	if s.PerformanceSampleCountOverride != 0 {
		e.performanceSampleCount = s.PerformanceSampleCountOverride
	}
	e.accuracySampleCount = uint64(qslTotal)
	if s.AccuracySampleCountOverride != 0 {
		e.accuracySampleCount = s.AccuracySampleCountOverride
	}
	if e.performanceSampleCount == 0 {
		return nil, fmt.Errorf("loadgen: %w: performance_sample_count is 0 (the QSL reports 0 and no performance_sample_count_override is set)", ErrSettings)
	}
	e.samplesPerQuery = 1
	if s.Scenario == MultiStream {
		e.samplesPerQuery = s.MultiStreamSamplesPerQuery
		if e.samplesPerQuery == 0 {
			return nil, fmt.Errorf("loadgen: %w: MultiStream samples_per_query is 0", ErrSettings)
		}
	}
	switch s.Scenario {
	case SingleStream:
		if s.SingleStreamExpectedLatencyNs <= 0 {
			return nil, fmt.Errorf("loadgen: %w: SingleStream target_latency must be positive", ErrSettings)
		}
		e.targetQPS = 1e9 / s.SingleStreamExpectedLatencyNs
		e.maxAsyncQueries = 1
		e.targetLatencyPercentile = s.SingleStreamTargetLatencyPercentile
	case MultiStream:
		if s.MultiStreamExpectedLatencyNs <= 0 {
			return nil, fmt.Errorf("loadgen: %w: MultiStream target_latency must be positive", ErrSettings)
		}
		e.targetQPS = 1e9 / s.MultiStreamExpectedLatencyNs
		e.maxAsyncQueries = 1
		e.targetLatencyPercentile = s.MultiStreamTargetLatencyPercentile
	case Server:
		e.targetQPS = s.ServerTargetQPS
		if e.targetQPS <= 0 {
			e.errors = append(e.errors, fmt.Sprintf("Invalid value for server_target_qps requested. requested: %g using: 1", s.ServerTargetQPS))
			e.targetQPS = 1
		}
		e.targetLatencyNs = s.ServerTargetLatencyNs
		e.targetLatencyPercentile = s.ServerTargetLatencyPercentile
		e.maxAsyncQueries = s.ServerMaxAsyncQueries
	case Offline:
		e.targetQPS = s.OfflineExpectedQPS
		if e.targetQPS <= 0 {
			e.errors = append(e.errors, fmt.Sprintf("Invalid value for offline_expected_qps requested. requested: %g using: 1", s.OfflineExpectedQPS))
			e.targetQPS = 1
		}
		e.targetLatencyPercentile = 0.99
		e.maxAsyncQueries = 1
		if s.PerformanceIssueUnique {
			e.samplesPerQuery = e.performanceSampleCount
		} else {
			targetDurationS := float64(e.targetDurationMs) / 1000
			e.samplesPerQuery = max(s.MinQueryCount, uint64(1.1*targetDurationS*e.targetQPS))
		}
		e.minQueryCount = 1
		e.targetDurationMs = 0
	}
	if s.Scenario == SingleStream && e.equalIssue {
		e.minQueryCount = max(e.minQueryCount, uint64(2.0*float64(e.targetDurationMs)/1000*e.targetQPS))
		n := uint64(qslPerf)
		if n > 0 {
			e.minQueryCount += n - e.minQueryCount%n
		}
	}
	// performance_issue_unique changes only how many queries LoadGen
	// generates (one pass over the loaded set; see schedule.Generate),
	// not the effective min_query_count or durations: a run that needs
	// more queries than that runs out of them and is INVALID.
	if s.PerformanceIssueUnique && s.Scenario == Offline && e.mode != AccuracyOnly && e.loadedCount() < e.samplesPerQuery {
		return nil, fmt.Errorf("loadgen: %w: performance_issue_unique makes the Offline query performance_sample_count (%d) samples, but only %d can be loaded (data set %d samples, accuracy_sample_count %d), so LoadGen would generate no query (it crashes here); lower performance_sample_count_override or turn performance_issue_unique off", ErrSettings, e.samplesPerQuery, e.loadedCount(), qslTotal, e.accuracySampleCount)
	}
	if s.PerformanceIssueSame {
		// LoadGen checks the index against performance_sample_count only;
		// the set actually loaded is capped by the data set's size too.
		if loaded := e.loadedCount(); s.PerformanceIssueSameIndex >= loaded {
			return nil, fmt.Errorf("loadgen: %w: performance_issue_same_index %d is outside the loaded set of %d samples (performance_sample_count %d, data set %d samples, accuracy_sample_count %d); want an index from 0 to %d", ErrSettings, s.PerformanceIssueSameIndex, loaded, e.performanceSampleCount, qslTotal, e.accuracySampleCount, loaded-1)
		}
	}
	if s.PerformanceIssueUnique && s.PerformanceIssueSame {
		// LoadGen logs this and goes on; unique wins where both are asked.
		e.errors = append(e.errors, "Performance_issue_unique and performance_issue_same, both cannot be true at the same time. performance_issue_unique: 1 performance_issue_same: 1")
	}
	e.minSampleCount = e.minQueryCount * e.samplesPerQuery
	if s.Scenario != Offline && e.minDurationMs == 0 && e.minQueryCount == 0 && e.mode != AccuracyOnly {
		return nil, fmt.Errorf("loadgen: %w: min_duration and min_query_count are both 0 for %s, so no query would be generated (the C++ LoadGen crashes here); set one of them in user.conf", ErrSettings, s.Scenario)
	}
	if math.IsNaN(e.targetQPS) || math.IsInf(e.targetQPS, 0) {
		return nil, fmt.Errorf("loadgen: %w: target QPS %g", ErrSettings, e.targetQPS)
	}
	return e, nil
}

// accuracyLogExpected is the expected sample count the sampling target is
// divided by (LoadGen's accuracy_log_sampling_target rule).
func (e *effective) accuracyLogExpected() uint64 {
	if e.scenario == Offline {
		return max(uint64(e.targetQPS*float64(e.req.MinDurationMs)/1000), e.minSampleCount)
	}
	return max(uint64(e.targetQPS*float64(e.minDurationMs)/1000)*e.samplesPerQuery, e.minQueryCount*e.samplesPerQuery)
}

// loadedCount is the size of the performance run's loaded set:
// performance_sample_count capped by the samples that exist.
func (e *effective) loadedCount() uint64 {
	return min(e.performanceSampleCount, e.accuracySampleCount, e.qslTotal)
}

// Memory the query schedule costs per sample and per query, in bytes: the
// generated sample list, the issued Sample, the completion time and the
// sorted latency (per sample); the scheduled offset and time, the
// outstanding count and the query latency (per query). Token latencies
// add a first-token time, a token count and two latency entries.
const (
	scheduleBytesPerSample      = 8 + 24 + 8 + 8
	scheduleBytesPerQuery       = 8 + 8 + 4 + 8
	scheduleBytesPerTokenSample = 8 + 4 + 16
)

// ErrScheduleTooLarge marks settings whose query schedule would not fit
// in memory (it wraps ErrSettings).
var ErrScheduleTooLarge = fmt.Errorf("%w: query schedule too large", ErrSettings)

// ScheduleCost is what the query schedule of a run will hold before it
// starts: the queries and samples of the performance run (or of the
// largest accuracy load set) and their memory in bytes.
type ScheduleCost struct {
	Queries, Samples float64
	Bytes            float64
	// Why explains how the counts follow from the settings, for messages.
	Why string
}

// scheduleCost estimates the schedule of the run the settings describe.
// The counts are upper estimates (a Server schedule is a Poisson draw).
func (e *effective) scheduleCost() ScheduleCost {
	spq := float64(max(e.samplesPerQuery, 1))
	loaded := float64(e.loadedCount())
	var c ScheduleCost
	if e.mode == AccuracyOnly {
		c.Queries = min(float64(e.accuracySampleCount), float64(e.qslTotal), loaded) / spq
		c.Samples = c.Queries * spq
		c.Why = fmt.Sprintf("accuracy mode: %.0f loaded samples", loaded)
	} else {
		durS := float64(e.targetDurationMs) / 1000
		switch e.scenario {
		case Offline:
			c.Queries = 1
			c.Samples = spq
			if e.equalIssue && loaded > 0 {
				c.Samples = math.Ceil(spq/loaded) * loaded
			}
			c.Why = fmt.Sprintf("Offline: one query of max(min_query_count %d, 1.1 × min_duration %g s × target_qps %g) = %.0f samples", e.req.MinQueryCount, float64(e.req.MinDurationMs)/1000, e.targetQPS, spq)
		case Server:
			if e.req.PerformanceIssueUnique {
				c.Queries = math.Floor(loaded / spq)
				c.Samples = c.Queries * spq
				c.Why = fmt.Sprintf("Server with performance_issue_unique: one pass over the %.0f loaded samples", loaded)
				break
			}
			lambda := durS * e.targetQPS
			c.Queries = max(float64(e.minQueryCount), lambda+6*math.Sqrt(lambda)+16)
			c.Samples = c.Queries * spq
			c.Why = fmt.Sprintf("Server: min_duration %g s × target_qps %g = %.3g queries (min_query_count %d)", durS, e.targetQPS, lambda, e.minQueryCount)
		default:
			if e.req.PerformanceIssueUnique {
				if e.scenario == MultiStream {
					loaded += spq - 1 // the set is padded
				}
				c.Queries = math.Floor(loaded / spq)
				c.Samples = c.Queries * spq
				c.Why = fmt.Sprintf("%s with performance_issue_unique: one pass over the %.0f loaded samples", e.scenario, loaded)
				break
			}
			n := 2 * durS * e.targetQPS
			c.Queries = max(float64(e.minQueryCount), n+1)
			if e.equalIssue && loaded > 0 {
				c.Queries = math.Ceil(c.Queries/loaded)*loaded + loaded
			}
			c.Samples = c.Queries * spq
			c.Why = fmt.Sprintf("%s: 2 × min_duration %g s × %g queries/s (from the target latency) = %.3g queries (min_query_count %d)", e.scenario, durS, e.targetQPS, n, e.minQueryCount)
		}
	}
	per := float64(scheduleBytesPerSample)
	if e.req.UseTokenLatencies {
		per += scheduleBytesPerTokenSample
	}
	c.Bytes = c.Samples*per + c.Queries*scheduleBytesPerQuery
	return c
}

// defaultScheduleLimit is the schedule memory allowed when
// Settings.MaxScheduleBytes is 0: half of the machine's memory (from
// /proc/meminfo), or 8 GiB where that cannot be read.
func defaultScheduleLimit() float64 { return float64(sysmem.Budget()) }

// checkScheduleCost refuses a schedule above the memory limit, with the
// arithmetic in the message.
func (e *effective) checkScheduleCost() error {
	c := e.scheduleCost()
	limit, from := float64(e.req.MaxScheduleBytes), "Settings.MaxScheduleBytes"
	if limit <= 0 {
		limit, from = defaultScheduleLimit(), "half of this machine's memory"
	}
	if c.Bytes <= limit && c.Samples < 1<<40 {
		return nil
	}
	return fmt.Errorf("loadgen: %w: %s; that is %.3g queries and %.3g samples, about %s of memory (%d B per sample, %d B per query), over the %s allowed (%s): lower the target QPS, the duration or min_query_count",
		ErrScheduleTooLarge, c.Why, c.Queries, c.Samples, formatBytes(c.Bytes), scheduleBytesPerSample, scheduleBytesPerQuery, formatBytes(limit), from)
}

// formatBytes writes n bytes in binary units.
func formatBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if n >= 1024 {
		return fmt.Sprintf("%.3g %s", n, units[i])
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

// minCompletionTimeout is the least completion timeout derived from the
// settings.
const minCompletionTimeout = time.Minute

// completionTimeout is Settings.CompletionTimeout or, when that is 0, a
// bound derived from the scenario: 20 × the expected query latency
// (SingleStream, MultiStream), 20 × the latency bound (Server: the target
// latency, or TTFT plus 1024 × TPOT with token latencies), 4 × the
// expected duration of the query (Offline: samples per query / target
// QPS); never under a minute. The timeout is an idle timeout: it restarts
// whenever a sample completes.
func (e *effective) completionTimeout() time.Duration {
	if e.req.CompletionTimeout > 0 {
		return e.req.CompletionTimeout
	}
	var ns float64
	switch e.scenario {
	case SingleStream:
		ns = 20 * e.req.SingleStreamExpectedLatencyNs
	case MultiStream:
		ns = 20 * e.req.MultiStreamExpectedLatencyNs
	case Server:
		bound := float64(e.targetLatencyNs)
		if e.req.UseTokenLatencies {
			bound = max(bound, float64(e.req.ServerTTFTLatencyNs)+1024*float64(e.req.ServerTPOTLatencyNs))
		}
		ns = 20 * bound
	case Offline:
		ns = 4 * float64(e.samplesPerQuery) / e.targetQPS * 1e9
	}
	if !(ns < float64(math.MaxInt64)) {
		return time.Duration(math.MaxInt64)
	}
	return max(time.Duration(ns), minCompletionTimeout)
}
