package loadgen

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/boundedread"
)

// mlperfConf is the MLCommons mlperf.conf that LoadGen 6.0.17 compiles in.
//
//go:embed mlperf.conf
var mlperfConf []byte

// ConfKind says which kind of file a conf is, which decides the keys it may set.
type ConfKind int

// The conf kinds, numbered as LoadGen's conf_type.
const (
	MLPerfConfKind ConfKind = 0 // mlperf.conf: the only source of the seeds and accuracy_log_probability
	UserConfKind   ConfKind = 1 // user.conf
	AuditConfKind  ConfKind = 2 // audit.config (compliance tests), read with model "*"
)

// ErrConfig marks a malformed conf file.
var ErrConfig = errors.New("invalid config")

type confValue struct {
	u    uint64
	f    float64
	line int
}

// parseConf reads LoadGen's conf syntax: whitespace-separated tokens
// `key = value`, a token exactly "#" ends the line, later lines overwrite
// earlier ones. Values must parse fully as an integer (strtoull base 0:
// hex and octal honoured) or a floating-point number. LoadGen's parser is
// laxer; this one keeps its meaning for every valid file but refuses a
// value outside its key's valid range (naming the file, line and range)
// and warns about keys, scenarios and model names LoadGen does not know.
// A leading UTF-8 byte-order mark is skipped.
func parseConf(data []byte, file, model string, kind ConfKind) (map[string]confValue, []string, error) {
	kv := map[string]confValue{}
	var warns []string
	text := strings.TrimPrefix(string(data), "\uFEFF")
	for n, line := range strings.Split(text, "\n") {
		var toks []string
		for _, t := range strings.Fields(line) {
			if t == "#" {
				break
			}
			toks = append(toks, t)
		}
		if len(toks) == 0 {
			continue
		}
		if len(toks) != 3 || toks[1] != "=" {
			return nil, nil, fmt.Errorf("loadgen: %s:%d: %w: want `model.scenario.key = value` (tokens separated by spaces), got %q", file, n+1, ErrConfig, strings.TrimSpace(line))
		}
		if strings.Count(toks[0], ".") < 2 {
			return nil, nil, fmt.Errorf("loadgen: %s:%d: %w: key %q is not of the form model.scenario.key", file, n+1, ErrConfig, toks[0])
		}
		v, ok := parseConfValue(toks[2])
		if !ok {
			return nil, nil, fmt.Errorf("loadgen: %s:%d: %w: value %q of %s is not a number", file, n+1, ErrConfig, toks[2], toks[0])
		}
		v.line = n + 1
		key := toks[0]
		i := strings.LastIndexByte(key, '.')
		j := strings.LastIndexByte(key[:i], '.')
		m, sc, name := key[:j], key[j+1:i], key[i+1:]
		spec, known := confKeys[name]
		switch {
		case !known:
			warns = append(warns, fmt.Sprintf("%s:%d: unknown key %q in %s (LoadGen ignores it; check the spelling)", file, n+1, name, key))
		case spec.mlperfConfOnly && kind != MLPerfConfKind:
			warns = append(warns, fmt.Sprintf("%s:%d: %s is read from mlperf.conf only; LoadGen ignores it in this file", file, n+1, key))
		}
		if sc != "*" && !isScenarioName(sc) {
			warns = append(warns, fmt.Sprintf("%s:%d: unknown scenario %q in %s (want SingleStream, MultiStream, Server, Offline or *)", file, n+1, sc, key))
		}
		if m != "*" && m != model && !knownModels[m] && kind != MLPerfConfKind {
			warns = append(warns, fmt.Sprintf("%s:%d: unknown model %q in %s (this run's model is %q; the line applies to no MLPerf benchmark)", file, n+1, m, key, model))
		}
		if known {
			if err := spec.check(v, toks[2]); err != nil {
				return nil, nil, fmt.Errorf("loadgen: %s:%d: %w: %s = %s: %v", file, n+1, ErrConfig, key, toks[2], err)
			}
		}
		kv[key] = v
	}
	return kv, warns, nil
}

func isScenarioName(s string) bool {
	for _, n := range scenarioNames {
		if n == s {
			return true
		}
	}
	return false
}

// confRange is the valid range of one conf key's value.
type confRange int

const (
	rangeSeed       confRange = iota // any 64-bit unsigned integer
	rangeCount                       // an integer 0..2^63-1
	rangeFlag                        // 0 or 1
	rangeMode                        // 0..3
	rangeDurationMs                  // milliseconds, 0..maxConfMs
	rangeLatencyMs                   // milliseconds, 0..maxConfMs (mlperf.conf sets 0 where token latencies rule)
	rangePercentile                  // percent, > 0 and <= 100
	rangePercent                     // percent, 0..100
	rangeQPS                         // queries per second, finite, >= 0
)

// maxConfMs is the largest duration in milliseconds whose nanoseconds fit
// in an int64 (about 292 years).
const maxConfMs = math.MaxInt64 / 1_000_000

type confKeySpec struct {
	r              confRange
	mlperfConfOnly bool
}

// confKeys are the keys LoadGen's TestSettings::FromConfig reads (plus
// target_duration, which mlperf.conf sets and LoadGen ignores).
var confKeys = map[string]confKeySpec{
	"mode":                              {r: rangeMode},
	"qsl_rng_seed":                      {r: rangeSeed, mlperfConfOnly: true},
	"sample_index_rng_seed":             {r: rangeSeed, mlperfConfOnly: true},
	"schedule_rng_seed":                 {r: rangeSeed, mlperfConfOnly: true},
	"accuracy_log_probability":          {r: rangePercent, mlperfConfOnly: true},
	"test05":                            {r: rangeFlag, mlperfConfOnly: true},
	"test05_qsl_rng_seed":               {r: rangeSeed, mlperfConfOnly: true},
	"test05_sample_index_rng_seed":      {r: rangeSeed, mlperfConfOnly: true},
	"test05_schedule_rng_seed":          {r: rangeSeed, mlperfConfOnly: true},
	"use_token_latencies":               {r: rangeFlag},
	"ttft_latency":                      {r: rangeLatencyMs},
	"tpot_latency":                      {r: rangeLatencyMs},
	"infer_token_latencies":             {r: rangeFlag},
	"token_latency_scaling_factor":      {r: rangeCount},
	"target_latency_percentile":         {r: rangePercentile},
	"samples_per_query":                 {r: rangeCount},
	"target_latency":                    {r: rangeLatencyMs},
	"performance_issue_unique":          {r: rangeFlag},
	"performance_issue_same":            {r: rangeFlag},
	"performance_issue_same_index":      {r: rangeCount},
	"sample_concatenate_permutation":    {r: rangeFlag},
	"coalesce_queries":                  {r: rangeFlag},
	"max_async_queries":                 {r: rangeCount},
	"min_duration":                      {r: rangeDurationMs},
	"max_duration":                      {r: rangeDurationMs},
	"target_duration":                   {r: rangeDurationMs},
	"min_query_count":                   {r: rangeCount},
	"max_query_count":                   {r: rangeCount},
	"performance_sample_count_override": {r: rangeCount},
	"accuracy_sample_count_override":    {r: rangeCount},
	"target_qps":                        {r: rangeQPS},
	"print_timestamps":                  {r: rangeFlag},
	"accuracy_log_rng_seed":             {r: rangeSeed},
	"accuracy_log_sampling_target":      {r: rangeCount},
}

// knownModels are the model names of the embedded mlperf.conf.
var knownModels = func() map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(string(mlperfConf), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if i := strings.LastIndexByte(f[0], '.'); i > 0 {
			if j := strings.LastIndexByte(f[0][:i], '.'); j > 0 {
				m[f[0][:j]] = true
			}
		}
	}
	return m
}()

// check says why v (written as text) is outside the key's range, or nil.
func (k confKeySpec) check(v confValue, text string) error {
	integer := v.f == math.Trunc(v.f) && !math.IsInf(v.f, 0)
	switch k.r {
	case rangeSeed:
		if !integer || v.f < 0 || v.f >= 1<<64 {
			return errors.New("want an integer from 0 to 18446744073709551615")
		}
	case rangeCount:
		if !integer || v.f < 0 || v.f >= 1<<63 {
			return errors.New("want an integer from 0 to 9223372036854775807")
		}
	case rangeFlag:
		if v.f != 0 && v.f != 1 {
			return errors.New("want 0 or 1")
		}
	case rangeMode:
		if !integer || v.f < 0 || v.f > 3 {
			return errors.New("want 0 (submission), 1 (accuracy), 2 (performance) or 3 (find peak)")
		}
	case rangeDurationMs:
		if math.IsNaN(v.f) || v.f < 0 || v.f > maxConfMs {
			return fmt.Errorf("want milliseconds from 0 to %d", int64(maxConfMs))
		}
	case rangeLatencyMs:
		if math.IsNaN(v.f) || v.f < 0 || v.f > maxConfMs {
			return fmt.Errorf("want milliseconds from 0 to %d", int64(maxConfMs))
		}
	case rangePercentile:
		if math.IsNaN(v.f) || v.f <= 0 || v.f > 100 {
			return errors.New("want a percentile above 0 and at most 100 (e.g. 90 or 99.9)")
		}
	case rangePercent:
		if math.IsNaN(v.f) || v.f < 0 || v.f > 100 {
			return errors.New("want a percentage from 0 to 100")
		}
	case rangeQPS:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) || v.f < 0 {
			return errors.New("want a finite number of queries per second, 0 or above")
		}
	}
	return nil
}

func parseConfValue(s string) (confValue, bool) {
	if !strings.Contains(s, "_") {
		if u, err := strconv.ParseUint(s, 0, 64); err == nil {
			return confValue{u: u, f: float64(u)}, true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || strings.Contains(s, "_") {
		return confValue{}, false
	}
	var u uint64
	switch {
	case f >= math.MaxUint64:
		u = math.MaxUint64
	case f > 0:
		u = uint64(f)
	}
	return confValue{u: u, f: f}, true
}

// confLookup finds key for (model, scenario) with LoadGen's precedence:
// model.scenario.key, *.scenario.key, model.*.key, *.*.key.
func confLookup(kv map[string]confValue, model, scenario, key string) (confValue, bool) {
	for _, k := range [...]string{
		model + "." + scenario + "." + key,
		"*." + scenario + "." + key,
		model + ".*." + key,
		"*.*." + key,
	} {
		if v, ok := kv[k]; ok {
			return v, true
		}
	}
	return confValue{}, false
}

// ApplyConf applies one conf file's settings for model under s.Scenario,
// as LoadGen's FromConfig does for conf kind. file names the source in
// errors. Unknown keys, scenarios and model names are ignored, as LoadGen
// ignores them, but each is reported: printed to stderr and recorded for
// the detail log (see Warnings). A value outside its key's valid range is
// an error wrapping ErrConfig.
func (s *Settings) ApplyConf(data []byte, file, model string, kind ConfKind) error {
	if kind == AuditConfKind {
		model = "*"
	}
	kv, warns, err := parseConf(data, file, model, kind)
	if err != nil {
		return err
	}
	for _, w := range warns {
		fmt.Fprintln(os.Stderr, "loadgen: warning: "+w)
		s.warnings = append(s.warnings, w)
	}
	sc := s.Scenario.String()
	look := func(scenario, key string) (confValue, bool) { return confLookup(kv, model, scenario, key) }
	u64 := func(dst *uint64, scenario, key string) {
		if v, ok := look(scenario, key); ok {
			*dst = v.u
		}
	}
	f64 := func(dst *float64, scenario, key string, scale float64) {
		if v, ok := look(scenario, key); ok {
			*dst = v.f * scale
		}
	}
	flag := func(dst *bool, scenario, key string) {
		if v, ok := look(scenario, key); ok {
			*dst = v.u != 0 || v.f != 0
		}
	}
	if kind == MLPerfConfKind {
		u64(&s.QSLRNGSeed, sc, "qsl_rng_seed")
		u64(&s.SampleIndexRNGSeed, sc, "sample_index_rng_seed")
		u64(&s.ScheduleRNGSeed, sc, "schedule_rng_seed")
		f64(&s.AccuracyLogProbability, sc, "accuracy_log_probability", 0.01)
		flag(&s.Test05, sc, "test05")
		u64(&s.Test05QSLRNGSeed, sc, "test05_qsl_rng_seed")
		u64(&s.Test05SampleIndexRNGSeed, sc, "test05_sample_index_rng_seed")
		u64(&s.Test05ScheduleRNGSeed, sc, "test05_schedule_rng_seed")
	}
	if v, ok := look(sc, "mode"); ok {
		if v.u > uint64(FindPeakPerformance) {
			return fmt.Errorf("loadgen: %s: %w: mode %d (want 0 submission, 1 accuracy, 2 performance, 3 find-peak)", file, ErrConfig, v.u)
		}
		s.Mode = Mode(v.u)
	}
	if v, ok := look(sc, "use_token_latencies"); ok {
		s.UseTokenLatencies = v.u == 1
	}
	// As LoadGen: the bounds are read whenever token latencies are on, also
	// when an earlier file (mlperf.conf) turned them on.
	if s.UseTokenLatencies {
		if v, ok := look("Server", "ttft_latency"); ok {
			s.ServerTTFTLatencyNs = int64(v.f * 1e6)
		}
		if v, ok := look("Server", "tpot_latency"); ok {
			s.ServerTPOTLatencyNs = int64(v.f * 1e6)
		}
	}
	flag(&s.InferTokenLatencies, sc, "infer_token_latencies")
	u64(&s.TokenLatencyScalingFactor, sc, "token_latency_scaling_factor")
	f64(&s.SingleStreamTargetLatencyPercentile, "SingleStream", "target_latency_percentile", 0.01)
	f64(&s.MultiStreamTargetLatencyPercentile, "MultiStream", "target_latency_percentile", 0.01)
	f64(&s.ServerTargetLatencyPercentile, "Server", "target_latency_percentile", 0.01)
	u64(&s.MultiStreamSamplesPerQuery, "MultiStream", "samples_per_query")
	if v, ok := look("Server", "target_latency"); ok {
		s.ServerTargetLatencyNs = int64(v.u * 1_000_000)
		if v.f != float64(v.u) {
			s.ServerTargetLatencyNs = int64(v.f * 1e6)
		}
	}
	flag(&s.PerformanceIssueUnique, sc, "performance_issue_unique")
	flag(&s.PerformanceIssueSame, sc, "performance_issue_same")
	u64(&s.PerformanceIssueSameIndex, sc, "performance_issue_same_index")
	if v, ok := look(sc, "sample_concatenate_permutation"); ok {
		s.SampleConcatenatePermutation = v.u == 1
	}
	flag(&s.ServerCoalesceQueries, "Server", "coalesce_queries")
	u64(&s.ServerMaxAsyncQueries, "Server", "max_async_queries")
	u64(&s.MinDurationMs, sc, "min_duration")
	u64(&s.MaxDurationMs, sc, "max_duration")
	u64(&s.MinQueryCount, sc, "min_query_count")
	u64(&s.MaxQueryCount, sc, "max_query_count")
	u64(&s.PerformanceSampleCountOverride, sc, "performance_sample_count_override")
	u64(&s.AccuracySampleCountOverride, sc, "accuracy_sample_count_override")
	f64(&s.SingleStreamExpectedLatencyNs, "SingleStream", "target_latency", 1e6)
	f64(&s.MultiStreamExpectedLatencyNs, "MultiStream", "target_latency", 1e6)
	f64(&s.ServerTargetQPS, "Server", "target_qps", 1)
	f64(&s.OfflineExpectedQPS, "Offline", "target_qps", 1)
	flag(&s.PrintTimestamps, sc, "print_timestamps")
	u64(&s.AccuracyLogRNGSeed, sc, "accuracy_log_rng_seed")
	u64(&s.AccuracyLogSamplingTarget, sc, "accuracy_log_sampling_target")
	return nil
}

// Warnings returns the conf-file warnings recorded so far (unknown keys,
// scenarios and model names, a second user conf), in order. Run writes them
// to the detail log; the caller owns the returned slice.
func (s *Settings) Warnings() []string { return append([]string(nil), s.warnings...) }

// FromConfig reads a user.conf at path for model, as LoadGen's
// TestSettings::FromConfig: the first call applies the embedded mlperf.conf
// before the file; a second call records LoadGen's "Multiple conf files"
// error in the detail log.
func (s *Settings) FromConfig(path, model string) error {
	if s.userConfLoaded {
		s.warnings = append(s.warnings, "error:Multiple conf files are used. This is not valid for official submission.")
	} else {
		if err := s.ApplyConf(mlperfConf, "mlperf.conf (embedded)", model, MLPerfConfKind); err != nil {
			return err
		}
		s.userConfLoaded = true
	}
	data, err := readConf(path, "user conf")
	if err != nil {
		return err
	}
	return s.ApplyConf(data, path, model, UserConfKind)
}

// ApplyAuditConfig applies an audit.config (compliance test settings) with
// model "*", as LoadGen's StartTest does. A missing file is not an error
// (LoadGen applies it only when present); applied says whether it was.
func (s *Settings) ApplyAuditConfig(path string) (applied bool, err error) {
	data, err := readConf(path, "audit config")
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.warnings = append(s.warnings, auditConfigWarning)
	return true, s.ApplyConf(data, path, "*", AuditConfKind)
}

// MaxConfBytes bounds a conf file (mlperf.conf, user.conf, audit.config):
// the official mlperf.conf is some 10 kB.
const MaxConfBytes = 1 << 20

// readConf reads a conf file named what: a regular file of at most
// MaxConfBytes (a device or a FIFO is refused, not read without end or
// waited on).
func readConf(path, what string) ([]byte, error) {
	b, err := boundedread.File(path, what, MaxConfBytes)
	if err != nil {
		return nil, fmt.Errorf("loadgen: reading %s: %w", what, err)
	}
	return b, nil
}

// LoadConfigs builds the settings of a run the way a reference harness does:
// LoadGen's defaults, the scenario and mode, the embedded mlperf.conf (or
// mlperfConfPath when set), the user.conf when set, then the audit.config
// when set and present. model is the benchmark's name in the conf files.
func LoadConfigs(model string, scenario Scenario, mode Mode, mlperfConfPath, userConfPath, auditConfPath string) (Settings, error) {
	s := DefaultSettings()
	s.Scenario = scenario
	s.Mode = mode
	conf, name := mlperfConf, "mlperf.conf (embedded)"
	if mlperfConfPath != "" {
		data, err := readConf(mlperfConfPath, "mlperf.conf")
		if err != nil {
			return s, err
		}
		conf, name = data, mlperfConfPath
	}
	if err := s.ApplyConf(conf, name, model, MLPerfConfKind); err != nil {
		return s, err
	}
	s.userConfLoaded = true
	if userConfPath != "" {
		data, err := readConf(userConfPath, "user conf")
		if err != nil {
			return s, err
		}
		if err := s.ApplyConf(data, userConfPath, model, UserConfKind); err != nil {
			return s, err
		}
	}
	if auditConfPath != "" {
		if _, err := s.ApplyAuditConfig(auditConfPath); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Seeds are the three random seeds a round's mlperf.conf sets
// (qsl_rng_seed, sample_index_rng_seed, schedule_rng_seed); each
// submission round has its own, and the submission checker requires them.
type Seeds struct{ QSL, SampleIndex, Schedule uint64 }

// SetSeeds sets the seeds as the mlperf.conf of a round with these seeds
// would: the requested and effective seeds of the run's detail log are
// then the round's. Call it after LoadConfigs (user.conf cannot set seeds).
func (s *Settings) SetSeeds(x Seeds) {
	s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed = x.QSL, x.SampleIndex, x.Schedule
}
