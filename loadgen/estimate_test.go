package loadgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The note before a run names the arithmetic for settings that ask for a
// long run, and stays silent for mlperf.conf's ordinary 10-minute runs,
// for accuracy mode and where max_duration or max_query_count cut the run
// short.
func TestLongRunNote(t *testing.T) {
	for _, c := range []struct {
		name     string
		scenario Scenario
		mode     Mode
		conf     string
		want     string // "" means no note
	}{
		{"Server at 0.0001 QPS", Server, PerformanceOnly, "*.Server.target_qps = 0.0001\n",
			"note: Server at 0.0001 QPS needs min_query_count 100 queries → about 11.6 days whatever the SUT's speed"},
		{"Server for a day", Server, PerformanceOnly, "*.Server.target_qps = 100\n*.*.min_duration = 86400000\n",
			"note: Server at 100 QPS runs for min_duration 24.0 h → about 24.0 h whatever"},
		{"SingleStream 1e6 queries", SingleStream, PerformanceOnly, "*.*.min_query_count = 1000000\n",
			"note: SingleStream needs min_query_count 1000000 queries × target_latency 10 ms → about 2.8 h if the SUT runs"},
		{"MultiStream for 2 h", MultiStream, PerformanceOnly, "*.*.min_duration = 7200000\n",
			"note: MultiStream runs for min_duration 2.0 h → about 2.0 h if"},
		{"Offline for a day", Offline, PerformanceOnly, "*.Offline.target_qps = 10\n*.*.min_duration = 86400000\n",
			"note: Offline issues 1.1 × min_duration × target_qps = 950400 samples → about 26.4 h if"},
		{"Server defaults", Server, PerformanceOnly, "", ""},
		{"SingleStream defaults", SingleStream, PerformanceOnly, "", ""},
		{"MultiStream defaults", MultiStream, PerformanceOnly, "", ""},
		{"Offline defaults", Offline, PerformanceOnly, "", ""},
		{"Server at 10000 QPS", Server, PerformanceOnly, "*.Server.target_qps = 10000\n", ""},
		{"Server 0.0001 QPS in accuracy mode", Server, AccuracyOnly, "*.Server.target_qps = 0.0001\n", ""},
		{"Server 0.0001 QPS with max_duration 60 s", Server, PerformanceOnly, "*.Server.target_qps = 0.0001\n*.*.max_duration = 60000\n", ""},
		{"Server 0.01 QPS with max_query_count 5", Server, PerformanceOnly, "*.Server.target_qps = 0.01\n*.*.max_query_count = 5\n", ""},
		{"Offline 24576 samples at 0.0001 QPS (the SUT's pace)", Offline, PerformanceOnly, "*.Offline.target_qps = 0.0001\n", ""},
	} {
		p := filepath.Join(t.TempDir(), "user.conf")
		if err := os.WriteFile(p, []byte(c.conf), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := LoadConfigs("resnet50", c.scenario, c.mode, "", p, "")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		note := LongRunNote(s, 1024, 1024, 0)
		switch {
		case c.want == "" && note != "":
			t.Errorf("%s: unexpected note %q", c.name, note)
		case c.want != "" && !strings.HasPrefix(note, c.want):
			t.Errorf("%s: note %q, want it to start %q", c.name, note, c.want)
		}
	}
}

// The estimate of mlperf.conf's Server run is its 10 minutes, and a Server
// run's length follows min_query_count / target_qps once that is longer.
func TestEstimateRun(t *testing.T) {
	s, err := LoadConfigs("resnet50", Server, PerformanceOnly, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	est, err := EstimateRun(s, 1024, 1024)
	if err != nil || est.Duration != 10*time.Minute || !est.Paced {
		t.Fatalf("default Server: %+v %v", est, err)
	}
	s.ServerTargetQPS, s.MinQueryCount = 0.5, 3600
	if est, err = EstimateRun(s, 1024, 1024); err != nil || est.Duration != 2*time.Hour {
		t.Fatalf("3600 queries at 0.5 QPS: %+v %v", est, err)
	}
	s.MinDurationMs, s.MinQueryCount = 0, 0
	if _, err := EstimateRun(s, 1024, 1024); err == nil {
		t.Fatal("settings that cannot run gave an estimate")
	}
}

// The runs a new user trips over get a note up front naming the count,
// its source and the setting to change: GPT-J SingleStream with
// --duration 2s --min-queries 8 issues 408 queries (equal issue, at
// mlperf.conf's 10 ms target latency); a ResNet50 Offline "2 s" run
// issues min_query_count 24576 samples; a Server run whose
// min_query_count outlasts --duration says how long. A run that the
// duration bounds gets no note.
func TestDurationNoteWhenTheSettingsOutlastDuration(t *testing.T) {
	conf := func(model string, sc Scenario, dur time.Duration, minQ uint64) Settings {
		s, err := LoadConfigs(model, sc, PerformanceOnly, "", "", "")
		if err != nil {
			t.Fatal(err)
		}
		s.MinDurationMs = uint64(dur / time.Millisecond)
		if minQ > 0 {
			s.MinQueryCount = minQ
		}
		return s
	}
	gptj := DurationNote(conf("gptj", SingleStream, 2*time.Second, 8), 8, 8, 2*time.Second)
	for _, want := range []string{"at least 408 queries", "sample_concatenate_permutation", "target_latency 10 ms", "raise SingleStream.target_latency in user.conf", "6.8 min at 1 s a query"} {
		if !strings.Contains(gptj, want) {
			t.Errorf("gptj SingleStream note lacks %q: %s", want, gptj)
		}
	}
	off := DurationNote(conf("resnet50", Offline, 2*time.Second, 0), 1024, 1024, 2*time.Second)
	for _, want := range []string{"issues 24576 samples", "min_query_count 24576", "--min-queries"} {
		if !strings.Contains(off, want) {
			t.Errorf("resnet50 Offline note lacks %q: %s", want, off)
		}
	}
	srv := conf("resnet50", Server, 2*time.Second, 270336)
	srv.ServerTargetQPS = 100
	note := DurationNote(srv, 1024, 1024, 2*time.Second)
	for _, want := range []string{"min_query_count 270336", "45.1 min", "--min-queries"} {
		if !strings.Contains(note, want) {
			t.Errorf("resnet50 Server note lacks %q: %s", want, note)
		}
	}
	// Bounded by the duration: no note.
	for name, s := range map[string]Settings{
		"Offline with --min-queries": conf("resnet50", Offline, 2*time.Second, 1),
		"Server with --min-queries":  func() Settings { s := conf("resnet50", Server, 2*time.Second, 100); s.ServerTargetQPS = 100; return s }(),
		"SingleStream, few queries":  conf("resnet50", SingleStream, 2*time.Second, 10),
	} {
		if n := DurationNote(s, 1024, 1024, 2*time.Second); n != "" {
			t.Errorf("%s: unexpected note %q", name, n)
		}
	}
}

// A real-sized schedule passes the cost check and its estimate is close
// to the truth: 1 s at 10000 QPS is about 10000 queries.
func TestScheduleCostEstimate(t *testing.T) {
	s := DefaultSettings()
	s.Scenario, s.Mode = Server, PerformanceOnly
	s.MinDurationMs, s.ServerTargetQPS = 1000, 10000
	e, err := deriveSettings(s, 1024, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.checkScheduleCost(); err != nil {
		t.Fatal(err)
	}
	if c := e.scheduleCost(); c.Queries < 10000 || c.Queries > 11000 {
		t.Fatalf("estimated %v queries for 1 s at 10000 QPS", c.Queries)
	}
}
