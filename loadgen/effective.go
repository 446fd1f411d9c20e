package loadgen

import (
	"errors"
	"fmt"
	"math"
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
	if s.PerformanceIssueUnique && s.Scenario != Offline {
		e.minQueryCount = e.performanceSampleCount / e.samplesPerQuery
		e.targetDurationMs = 0
		e.minDurationMs = 0
	}
	if s.PerformanceIssueSame && s.PerformanceIssueSameIndex >= e.performanceSampleCount {
		return nil, fmt.Errorf("loadgen: %w: performance_issue_same_index %d is outside the loaded set of %d samples", ErrSettings, s.PerformanceIssueSameIndex, e.performanceSampleCount)
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
