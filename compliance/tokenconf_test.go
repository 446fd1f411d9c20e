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
	path, err := tokenLatencyConf(o, "gptj", work)
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
	path, err = tokenLatencyConf(o, "llama2-70b", work)
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
