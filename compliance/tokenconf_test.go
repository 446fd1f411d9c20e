package compliance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
)

// A TEST06 run of a model whose mlperf.conf infers token latencies (gptj)
// gets a user.conf that keeps the user's lines and turns
// use_token_latencies on, so LoadGen logs the token counts and first
// tokens TEST06 checks; a model that uses token latencies already
// (llama2-70b) keeps the user's user.conf and no file is written.
func TestTEST06TurnsTokenLatenciesOnWhereMlperfConfInfersThem(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "mine.conf")
	if err := os.WriteFile(user, []byte("*.*.min_duration = 200"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := benchmark.Options{Scenario: loadgen.SingleStream, Mode: loadgen.PerformanceOnly, UserConf: user}

	work := filepath.Join(dir, "gptj")
	os.MkdirAll(work, 0o755)
	path, err := testUserConf(o, "TEST06", "", "gptj", work)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(work, "user.conf") {
		t.Fatalf("gptj: conf %s, want %s", path, filepath.Join(work, "user.conf"))
	}
	o2 := o
	o2.UserConf, o2.ModelName = path, "gptj"
	s, err := benchmark.Settings(&o2)
	if err != nil {
		t.Fatal(err)
	}
	if !s.UseTokenLatencies || s.MinDurationMs != 200 {
		t.Errorf("gptj TEST06 settings: use_token_latencies %v, min_duration %d ms; want true and the user's 200", s.UseTokenLatencies, s.MinDurationMs)
	}

	work = filepath.Join(dir, "llama2")
	os.MkdirAll(work, 0o755)
	path, err = testUserConf(o, "TEST06", "", "llama2-70b", work)
	if err != nil {
		t.Fatal(err)
	}
	if path != user {
		t.Errorf("llama2-70b: conf %s, want the user's %s", path, user)
	}
	if _, err := os.Stat(filepath.Join(work, "user.conf")); err == nil {
		t.Errorf("llama2-70b: a user.conf was written, though mlperf.conf uses token latencies")
	}
}

// TEST07's and TEST09's audit.configs are one pass (performance_issue_unique)
// over their sets: the run's user.conf makes gpt-oss-120b's loaded set the
// audit's min_query_count (TEST07: 990, not mlperf.conf's 6396), keeping
// the user's lines; an audit without performance_issue_unique (TEST01)
// adds nothing.
func TestUniquePassAuditsLoadTheirWholeSet(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "mine.conf")
	if err := os.WriteFile(user, []byte("*.*.min_duration = 200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := benchmark.Options{Scenario: loadgen.Offline, Mode: loadgen.PerformanceOnly, UserConf: user, ModelName: "gpt-oss-120b"}
	for _, c := range []struct {
		test string
		want int
	}{{"TEST07", 990}, {"TEST09", 6396}} {
		audit, err := AuditConfig(c.test, "gpt-oss-120b")
		if err != nil {
			t.Fatal(err)
		}
		work := filepath.Join(dir, c.test)
		os.MkdirAll(work, 0o755)
		path, err := testUserConf(o, c.test, audit, "gpt-oss-120b", work)
		if err != nil {
			t.Fatal(err)
		}
		o2 := o
		o2.UserConf = path
		s, err := benchmark.Settings(&o2)
		if err != nil {
			t.Fatal(err)
		}
		if s.PerformanceSampleCountOverride != uint64(c.want) || s.MinDurationMs != 200 {
			t.Errorf("%s: performance_sample_count_override %d, min_duration %d ms; want %d and the user's 200", c.test, s.PerformanceSampleCountOverride, s.MinDurationMs, c.want)
		}
	}
	small := filepath.Join(dir, "small.conf")
	if err := os.WriteFile(small, []byte("gpt-oss-120b.*.performance_sample_count_override = 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.UserConf = small
	audit, err := AuditConfig("TEST07", "gpt-oss-120b")
	if err != nil {
		t.Fatal(err)
	}
	if path, err := testUserConf(o, "TEST07", audit, "gpt-oss-120b", filepath.Join(dir, "own")); err != nil || path != small {
		t.Errorf("TEST07 with the user's own override: conf %s (%v), want the user's %s unchanged", path, err, small)
	}
	o.UserConf = user
	audit, err = AuditConfig("TEST01", "resnet50")
	if err != nil {
		t.Fatal(err)
	}
	if path, err := testUserConf(o, "TEST01", audit, "resnet50", filepath.Join(dir, "t01")); err != nil || path != user {
		t.Errorf("TEST01: conf %s (%v), want the user's %s unchanged", path, err, user)
	}
}
