package loadgen

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbeddedMLPerfConfSeedsAndModelKeys(t *testing.T) {
	s, err := LoadConfigs("resnet50", Server, PerformanceOnly, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.QSLRNGSeed != 2085463073848966840 || s.SampleIndexRNGSeed != 2747215439041700203 || s.ScheduleRNGSeed != 16159082839903944936 {
		t.Fatalf("seeds %d %d %d", s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed)
	}
	if s.ServerTargetLatencyNs != 15_000_000 { // resnet50.Server.target_latency = 15 beats *.Server.target_latency = 10
		t.Fatalf("server target latency %d", s.ServerTargetLatencyNs)
	}
	if s.PerformanceSampleCountOverride != 1024 || s.MinDurationMs != 600000 {
		t.Fatalf("override %d min_duration %d", s.PerformanceSampleCountOverride, s.MinDurationMs)
	}
	if s.ServerTargetLatencyPercentile != 99*0.01 {
		t.Fatalf("percentile %v", s.ServerTargetLatencyPercentile)
	}
}

func TestConfPrecedenceAndUnits(t *testing.T) {
	conf := `
# comment line
m.*.min_query_count = 10
*.Offline.min_query_count = 20     # scenario wildcard beats model wildcard
*.*.min_query_count = 30
m.Offline.max_query_count = 0x10
*.*.max_duration = 010
*.SingleStream.target_latency = 2.5
*.*.qsl_rng_seed = 5
*.*.accuracy_log_probability = 50
*.*.accuracy_log_rng_seed = 77
*.*.unknown_key = 1
`
	s := DefaultSettings()
	s.Scenario = Offline
	if err := s.ApplyConf([]byte(conf), "user.conf", "m", UserConfKind); err != nil {
		t.Fatal(err)
	}
	if s.MinQueryCount != 20 {
		t.Errorf("min_query_count %d, want 20 (*.Offline beats m.*)", s.MinQueryCount)
	}
	if s.MaxQueryCount != 16 || s.MaxDurationMs != 8 {
		t.Errorf("hex/octal: max_query_count %d (want 16), max_duration %d (want 8)", s.MaxQueryCount, s.MaxDurationMs)
	}
	if s.SingleStreamExpectedLatencyNs != 2.5e6 {
		t.Errorf("SingleStream.target_latency %v ns, want 2.5e6 (ms -> ns, looked up under SingleStream whatever the scenario)", s.SingleStreamExpectedLatencyNs)
	}
	if s.QSLRNGSeed != 0 || s.AccuracyLogProbability != 0 {
		t.Errorf("user.conf set seed %d / probability %v: only mlperf.conf may", s.QSLRNGSeed, s.AccuracyLogProbability)
	}
	if s.AccuracyLogRNGSeed != 77 {
		t.Errorf("accuracy_log_rng_seed %d", s.AccuracyLogRNGSeed)
	}
	m := DefaultSettings()
	if err := m.ApplyConf([]byte(conf), "mlperf.conf", "m", MLPerfConfKind); err != nil {
		t.Fatal(err)
	}
	if m.QSLRNGSeed != 5 || m.AccuracyLogProbability != 0.5 {
		t.Errorf("mlperf.conf: seed %d probability %v", m.QSLRNGSeed, m.AccuracyLogProbability)
	}
}

func TestAuditConfigUsesModelStar(t *testing.T) {
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.config")
	os.WriteFile(audit, []byte("resnet50.*.min_query_count = 7\n*.*.mode = 2\n*.*.performance_issue_same = 1\n*.*.performance_issue_same_index = 3\n"), 0o644)
	s, err := LoadConfigs("resnet50", SingleStream, AccuracyOnly, "", "", audit)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != PerformanceOnly || !s.PerformanceIssueSame || s.PerformanceIssueSameIndex != 3 {
		t.Fatalf("audit not applied: %+v", s)
	}
	if s.MinQueryCount == 7 {
		t.Fatal("a model-specific audit.config line matched; LoadGen reads audit.config with model *")
	}
	if applied, err := s.ApplyAuditConfig(filepath.Join(dir, "missing")); applied || err != nil {
		t.Fatalf("missing audit.config: applied=%v err=%v, want neither", applied, err)
	}
}

func TestMalformedConfNamesFileAndLine(t *testing.T) {
	for _, line := range []string{"a.b.c=1", "a.b.c = x", "a.b.c = 1 2", "min_duration = 5", "m.*.mode = 7"} {
		s := DefaultSettings()
		err := s.ApplyConf([]byte("# ok\n"+line+"\n"), "user.conf", "m", UserConfKind)
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%q: err = %v, want ErrConfig", line, err)
			continue
		}
		if !strings.Contains(err.Error(), "user.conf") {
			t.Errorf("%q: error %q does not name the file", line, err)
		}
	}
}

func TestSecondUserConfIsLoggedAsError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "user.conf")
	os.WriteFile(p, []byte("*.*.min_query_count = 3\n"), 0o644)
	s := DefaultSettings()
	if err := s.FromConfig(p, "m"); err != nil {
		t.Fatal(err)
	}
	if s.QSLRNGSeed == 0 {
		t.Fatal("the first FromConfig did not apply the embedded mlperf.conf")
	}
	if err := s.FromConfig(p, "m"); err != nil {
		t.Fatal(err)
	}
	if len(s.warnings) != 1 || !strings.Contains(s.warnings[0], "Multiple conf files") {
		t.Fatalf("warnings %v", s.warnings)
	}
}

func TestEffectiveOfflineSamplesPerQuery(t *testing.T) {
	s := DefaultSettings()
	s.Scenario = Offline
	s.MinDurationMs = 600000
	s.OfflineExpectedQPS = 93
	s.MinQueryCount = 24576
	e, err := deriveSettings(s, 24576, 24576)
	if err != nil {
		t.Fatal(err)
	}
	// uint64(1.1 * 600 * 93) = 61380 beats min_query_count 24576.
	if e.samplesPerQuery != 61380 || e.minQueryCount != 1 || e.targetDurationMs != 0 || e.minSampleCount != 61380 {
		t.Fatalf("spq %d minq %d target %d minsamples %d", e.samplesPerQuery, e.minQueryCount, e.targetDurationMs, e.minSampleCount)
	}
}
