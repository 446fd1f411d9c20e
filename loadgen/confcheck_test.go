package loadgen

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Values outside their key's range are refused with the file, the line
// and the valid range; LoadGen would turn them into something else.
func TestConfValuesOutOfRangeAreRefused(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"*.*.min_duration = 99999999999999999999", "milliseconds from 0 to"},
		{"*.*.min_duration = 18446744073709551615", "milliseconds from 0 to"},
		{"*.*.min_duration = -5", "milliseconds from 0 to"},
		{"*.*.min_query_count = -1", "integer from 0 to"},
		{"*.*.min_query_count = 1.5", "integer from 0 to"},
		{"*.*.max_query_count = 1e300", "integer from 0 to"},
		{"*.SingleStream.target_latency_percentile = 250", "above 0 and at most 100"},
		{"*.Server.target_latency_percentile = 0", "above 0 and at most 100"},
		{"*.Server.target_qps = -3", "0 or above"},
		{"*.Server.target_qps = inf", "finite"},
		{"*.Server.target_qps = nan", "finite"},
		{"*.*.performance_issue_same = 2", "0 or 1"},
		{"*.*.accuracy_log_sampling_target = 0.5", "integer from 0 to"},
		{"*.*.mode = 7", "want 0 (submission)"},
		{"*.SingleStream.target_latency = -1", "milliseconds from 0 to"},
	} {
		s := DefaultSettings()
		err := s.ApplyConf([]byte("# header\n\n"+tc.line+"\n"), "user.conf", "resnet50", UserConfKind)
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%q: err = %v, want ErrConfig", tc.line, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "user.conf:3") || !strings.Contains(msg, tc.want) {
			t.Errorf("%q: error %q lacks the file:line or %q", tc.line, msg, tc.want)
		}
	}
	// The audit config is checked the same way.
	s := DefaultSettings()
	if err := s.ApplyConf([]byte("*.*.accuracy_log_sampling_target = 0.5\n"), "audit.config", "", AuditConfKind); !errors.Is(err, ErrConfig) {
		t.Errorf("audit.config sampling target 0.5: err = %v", err)
	}
}

// Valid values keep LoadGen's meaning (hex, octal, floats for floats).
func TestConfValidValuesKeepLoadGenMeaning(t *testing.T) {
	pct := 99.9 // LoadGen scales at run time: 99.9 * 0.01 in float64
	s := DefaultSettings()
	conf := "*.*.min_query_count = 0x10\n*.*.max_query_count = 010\n*.SingleStream.target_latency_percentile = 99.9\n*.*.min_duration = 1.5e3\n*.Server.target_qps = 0\n"
	if err := s.ApplyConf([]byte(conf), "user.conf", "resnet50", UserConfKind); err != nil {
		t.Fatal(err)
	}
	if s.MinQueryCount != 16 || s.MaxQueryCount != 8 || s.SingleStreamTargetLatencyPercentile != pct*0.01 || s.MinDurationMs != 1500 || s.ServerTargetQPS != 0 {
		t.Fatalf("%+v", s)
	}
	if len(s.Warnings()) != 0 {
		t.Fatalf("warnings on a valid file: %v", s.Warnings())
	}
}

// A UTF-8 byte-order mark does not swallow the first line's setting.
func TestConfByteOrderMark(t *testing.T) {
	s := DefaultSettings()
	if err := s.ApplyConf([]byte("\ufeff*.*.min_query_count = 7\r\n"), "user.conf", "resnet50", UserConfKind); err != nil {
		t.Fatal(err)
	}
	if s.MinQueryCount != 7 {
		t.Fatalf("min_query_count %d, want 7", s.MinQueryCount)
	}
}

// Misspelled keys, scenarios and model names are warned about with the
// file and line, and reach the detail log through Warnings.
func TestConfUnknownNamesWarn(t *testing.T) {
	s := DefaultSettings()
	conf := "*.*.min_durration = 10\nresnet.Offline.target_qps = 5\n*.Singlestream.target_latency = 3\nbert.Offline.target_qps = 9\n*.*.qsl_rng_seed = 5\n"
	if err := s.ApplyConf([]byte(conf), "user.conf", "resnet50", UserConfKind); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(s.Warnings(), "\n")
	for _, want := range []string{`user.conf:1: unknown key "min_durration"`, `user.conf:2: unknown model "resnet"`, `user.conf:3: unknown scenario "Singlestream"`, "user.conf:5: *.*.qsl_rng_seed is read from mlperf.conf only"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	if strings.Contains(w, "bert") {
		t.Errorf("a known model of another benchmark was warned about:\n%s", w)
	}
	e, err := deriveSettings(s, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.req.warnings) != len(s.Warnings()) {
		t.Fatal("warnings do not reach the run's settings")
	}
}

// The embedded mlperf.conf parses without a warning.
func TestEmbeddedConfHasNoWarnings(t *testing.T) {
	for _, sc := range []Scenario{SingleStream, MultiStream, Server, Offline} {
		s := DefaultSettings()
		s.Scenario = sc
		if err := s.ApplyConf(mlperfConf, "mlperf.conf", "gptj", MLPerfConfKind); err != nil {
			t.Fatal(err)
		}
		if len(s.Warnings()) != 0 {
			t.Fatalf("%v", s.Warnings())
		}
	}
}

// The default completion timeout follows the scenario's bounds.
func TestDerivedCompletionTimeout(t *testing.T) {
	for _, tc := range []struct {
		sc   Scenario
		set  func(*Settings)
		want time.Duration
	}{
		{SingleStream, func(s *Settings) { s.SingleStreamExpectedLatencyNs = 1e6 }, time.Minute},
		{SingleStream, func(s *Settings) { s.SingleStreamExpectedLatencyNs = 10e9 }, 200 * time.Second},
		{Server, func(s *Settings) { s.ServerTargetLatencyNs = 15e9 }, 300 * time.Second},
		{Offline, func(s *Settings) { s.MinDurationMs = 600000; s.OfflineExpectedQPS = 10; s.MinQueryCount = 1 }, 4 * 6600 * time.Second / 10},
		{SingleStream, func(s *Settings) { s.CompletionTimeout = 3 * time.Second }, 3 * time.Second},
	} {
		s := DefaultSettings()
		s.Scenario = tc.sc
		tc.set(&s)
		e, err := deriveSettings(s, 100, 100)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.completionTimeout(); got != tc.want {
			t.Errorf("%v: timeout %v, want %v", tc.sc, got, tc.want)
		}
	}
}

// The conf parser never panics; what it accepts stays within each key's
// range once applied.
func FuzzApplyConf(f *testing.F) {
	f.Add([]byte("*.*.min_duration = 10\n"), uint8(1))
	f.Add([]byte("\ufeffresnet50.Offline.target_qps = 1e3 # c\n"), uint8(1))
	f.Add([]byte("*.*.performance_issue_same_index = 0x10\n*.*.mode = 3\n"), uint8(2))
	f.Add([]byte("*.SingleStream.target_latency_percentile = 99.9\n*.*.min_query_count = 010\n"), uint8(0))
	f.Add([]byte("a.b.c.d = 1\n*.*.accuracy_log_sampling_target = 5"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		s := DefaultSettings()
		k := ConfKind(kind % 3)
		if err := s.ApplyConf(data, "fuzz.conf", "resnet50", k); err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error without ErrConfig: %v", err)
			}
			return
		}
		if s.MinDurationMs > maxConfMs || s.MaxDurationMs > maxConfMs || s.Mode < 0 || s.Mode > FindPeakPerformance {
			t.Fatalf("out of range: %+v", s)
		}
		for _, p := range []float64{s.SingleStreamTargetLatencyPercentile, s.MultiStreamTargetLatencyPercentile, s.ServerTargetLatencyPercentile} {
			if !(p > 0 && p <= 1) {
				t.Fatalf("percentile %v", p)
			}
		}
		if s.MinQueryCount >= 1<<63 || s.ServerTargetQPS < 0 {
			t.Fatalf("%+v", s)
		}
	})
}
