package loadgen

import (
	"fmt"
	"math"
	"time"
)

// LongRunLimit is the expected run length above which commands print a
// note before the run (see LongRunNote). mlperf.conf asks 10 minutes of
// every performance run; Offline plans 1.1 × that, and equal-issue
// SingleStream runs (sample_concatenate_permutation, GPT-J and 3D-UNet)
// issue 2 × min_duration worth of queries, about 20 minutes; so ordinary
// runs stay under 30 minutes and get no note.
const LongRunLimit = 30 * time.Minute

// RunEstimate is how long the performance run that a Settings describes is
// expected to last, from the settings alone.
type RunEstimate struct {
	// Duration is the expected length (0: the settings do not say, as in
	// accuracy mode, where the queries go out as fast as the SUT takes
	// them). It is capped by max_duration and max_query_count where set.
	Duration time.Duration
	// Why is the arithmetic behind Duration, for messages: for example
	// "Server at 0.0001 QPS needs min_query_count 100 queries".
	Why string
	// Paced reports that the query schedule sets the length whatever the
	// SUT's speed (Server); otherwise it assumes the SUT runs at the
	// expected latency or QPS of the settings.
	Paced bool
}

// EstimateRun derives the effective settings of s for a QSL of
// totalSamples samples, performanceSamples of which fit in memory, and
// returns how long its performance run is expected to last, as LoadGen
// would run it:
//
//   - Server issues on a Poisson schedule at target_qps until both
//     min_duration and min_query_count are reached:
//     max(min_duration, min_query_count / target_qps).
//   - SingleStream and MultiStream issue each query when the last one
//     completes, until both are reached; with the target latency as the
//     expected query latency: max(min_duration, min_query_count ×
//     target_latency).
//   - Offline issues one query that the SUT finishes at its own speed;
//     when its sample count comes from min_duration (1.1 × min_duration ×
//     target_qps, above min_query_count) it lasts 1.1 × min_duration at
//     the expected target_qps, and otherwise the settings do not say.
//
// It returns an error wrapping ErrSettings for settings LoadGen cannot
// run (Run reports the same).
func EstimateRun(s Settings, totalSamples, performanceSamples int) (RunEstimate, error) {
	e, err := deriveSettings(s, totalSamples, performanceSamples)
	if err != nil {
		return RunEstimate{}, err
	}
	return e.estimate(), nil
}

func (e *effective) estimate() RunEstimate {
	if e.mode == AccuracyOnly || e.targetQPS <= 0 {
		return RunEstimate{}
	}
	durS := float64(e.minDurationMs) / 1000
	var secs float64
	var why string
	paced := false
	switch e.scenario {
	case Server:
		byCount := float64(e.minQueryCount) / e.targetQPS
		secs = max(durS, byCount)
		if byCount > durS {
			why = fmt.Sprintf("Server at %g QPS needs min_query_count %d queries", e.targetQPS, e.minQueryCount)
		} else {
			why = fmt.Sprintf("Server at %g QPS runs for min_duration %s", e.targetQPS, formatSeconds(durS))
		}
		if e.maxQueryCount > 0 {
			secs = min(secs, float64(e.maxQueryCount)/e.targetQPS)
		}
		paced = true
	case SingleStream, MultiStream:
		latS := 1 / e.targetQPS
		byCount := float64(e.minQueryCount) * latS
		secs = max(durS, byCount)
		if byCount > durS {
			why = fmt.Sprintf("%s needs min_query_count %d queries × target_latency %s", e.scenario, e.minQueryCount, formatSeconds(latS))
		} else {
			why = fmt.Sprintf("%s runs for min_duration %s", e.scenario, formatSeconds(durS))
		}
		if e.maxQueryCount > 0 {
			secs = min(secs, float64(e.maxQueryCount)*latS)
		}
	case Offline:
		// The SUT sets the pace: only the samples that min_duration asks
		// for (1.1 × min_duration × target_qps) have a known length at the
		// expected QPS; a count from min_query_count has none (the
		// default target_qps of 1 is a placeholder).
		if float64(e.samplesPerQuery) > float64(e.req.MinQueryCount) {
			secs = float64(e.samplesPerQuery) / e.targetQPS
			why = fmt.Sprintf("Offline issues 1.1 × min_duration × target_qps = %d samples", e.samplesPerQuery)
		}
	}
	if e.maxDurationMs > 0 {
		secs = min(secs, float64(e.maxDurationMs)/1000)
	}
	d := time.Duration(math.MaxInt64)
	if secs < float64(math.MaxInt64)/1e9 {
		d = time.Duration(secs * 1e9)
	}
	return RunEstimate{Duration: d, Why: why, Paced: paced}
}

// LongRunNote returns a one-line note for stderr when the performance run
// that s describes is expected to last longer than limit (0:
// LongRunLimit), and "" otherwise or when the settings cannot run (Run
// then reports them). The run itself keeps LoadGen's semantics: it waits
// as long as the settings ask.
func LongRunNote(s Settings, totalSamples, performanceSamples int, limit time.Duration) string {
	if limit <= 0 {
		limit = LongRunLimit
	}
	est, err := EstimateRun(s, totalSamples, performanceSamples)
	if err != nil || est.Duration <= limit {
		return ""
	}
	how := "if the SUT runs at the settings' expected rate"
	if est.Paced {
		how = "whatever the SUT's speed, as with LoadGen"
	}
	return fmt.Sprintf("note: %s → about %s %s; Ctrl-C ends it early (INVALID); lower min_duration or min_query_count, or raise the QPS, for a shorter run", est.Why, formatSeconds(est.Duration.Seconds()), how)
}

// formatSeconds writes a length of time in the largest unit that keeps it
// readable: "250 ms", "42 s", "12.5 min", "3.2 h", "11.6 days", "7.8 years".
func formatSeconds(s float64) string {
	switch {
	case s < 1:
		return fmt.Sprintf("%.3g ms", s*1000)
	case s < 120:
		return fmt.Sprintf("%.3g s", s)
	case s < 2*3600:
		return fmt.Sprintf("%.1f min", s/60)
	case s < 2*86400:
		return fmt.Sprintf("%.1f h", s/3600)
	case s < 2*365.25*86400:
		return fmt.Sprintf("%.1f days", s/86400)
	}
	return fmt.Sprintf("%.3g years", s/(365.25*86400))
}

// DurationNote returns a one-line note for stderr when the performance
// run that s describes issues far more than the asked duration (the
// user's --duration, which sets min_duration) suggests, and "" otherwise:
// min_duration is a minimum, and the run also issues at least
// min_query_count queries (SingleStream equal-issue runs at least 2 ×
// min_duration / target_latency, rounded up to the loaded set), so a count
// set elsewhere (mlperf.conf) can make a "2 s" run last minutes or hours.
// The note gives the count, where it comes from, the expected length
// where the settings say it, and the setting to change.
func DurationNote(s Settings, totalSamples, performanceSamples int, asked time.Duration) string {
	e, err := deriveSettings(s, totalSamples, performanceSamples)
	if err != nil || e.mode == AccuracyOnly || asked <= 0 || e.targetQPS <= 0 {
		return ""
	}
	est := e.estimate()
	askedS := asked.Seconds()
	long := est.Duration > 2*asked && est.Duration-asked > 10*time.Second
	conf := func(key string) string { return fmt.Sprintf("%s.%s", e.scenario, key) }
	switch e.scenario {
	case SingleStream, MultiStream:
		latS := 1 / e.targetQPS
		byDuration := uint64(askedS / latS)
		raised := e.minQueryCount > e.req.MinQueryCount && e.minQueryCount > 1 // equal issue
		if !raised && !long && e.minQueryCount <= byDuration {
			return ""
		}
		why := fmt.Sprintf("min_query_count %d", e.minQueryCount)
		fix := fmt.Sprintf("lower --min-queries (min_query_count, now %d)", e.req.MinQueryCount)
		if raised {
			why = fmt.Sprintf("sample_concatenate_permutation: 2 × min_duration %s / target_latency %s, rounded up to a multiple of the %d loaded samples",
				formatSeconds(float64(e.minDurationMs)/1000), formatSeconds(latS), performanceSamples)
			fix = fmt.Sprintf("raise %s.target_latency in user.conf towards the SUT's real latency per query (the count falls as it rises), or give a shorter --duration", e.scenario)
		}
		return fmt.Sprintf("note: --duration %s is a minimum: this %s run issues at least %d queries whatever it says (%s), one after another, so it lasts %d × the SUT's latency per query (%s if that is target_latency %s; %s at 1 s a query); for a shorter run %s",
			formatSeconds(askedS), e.scenario, e.minQueryCount, why, e.minQueryCount, formatSeconds(float64(e.minQueryCount)*latS), formatSeconds(latS), formatSeconds(float64(e.minQueryCount)), fix)
	case Server:
		if !long {
			return ""
		}
		return fmt.Sprintf("note: --duration %s is a minimum: %s → about %s whatever the SUT's speed; for a shorter run lower --min-queries (min_query_count, now %d) or raise --qps (%s, now %g)",
			formatSeconds(askedS), est.Why, formatSeconds(est.Duration.Seconds()), e.minQueryCount, conf("target_qps"), e.targetQPS)
	case Offline:
		byDuration := uint64(1.1 * askedS * e.targetQPS)
		if e.samplesPerQuery <= max(2*byDuration, byDuration+uint64(10*e.targetQPS)) {
			return ""
		}
		length := "as long as the SUT takes for them (the progress line gives the ETA)"
		if e.targetQPS > 1 { // 1 is mlperf.conf's placeholder, not an expectation
			length = fmt.Sprintf("about %s at target_qps %g", formatSeconds(float64(e.samplesPerQuery)/e.targetQPS), e.targetQPS)
		}
		return fmt.Sprintf("note: --duration %s is a minimum: this Offline run issues %d samples whatever it says (min_query_count %d, more than 1.1 × %s × target_qps %g = %d), %s; for a shorter run give --min-queries N (fewer samples) or the SUT's real --qps",
			formatSeconds(askedS), e.samplesPerQuery, e.req.MinQueryCount, formatSeconds(askedS), e.targetQPS, byDuration, length)
	}
	return ""
}
