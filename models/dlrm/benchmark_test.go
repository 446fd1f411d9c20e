package dlrm

import (
	"bytes"
	"context"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy/auc"
	"github.com/mlperf-go/inference/backend/ort/orttest"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/loadgen"
)

// TestRunTinyAccuracy runs the benchmark end to end as `mlperf run dlrm
// --model synthetic:tiny --data synthetic --mode accuracy` does and checks
// that the AUC line it prints is the one accuracy-dlrm.py's algorithm
// gives on the run's log (auc.ScoreDLRM agrees with sklearn; see
// TestScoreMatchesReferenceScript for the script itself).
func TestRunTinyAccuracy(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	for _, sc := range []loadgen.Scenario{loadgen.Offline, loadgen.Server} {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		o := benchmark.Options{Scenario: sc, Mode: loadgen.AccuracyOnly, Model: "synthetic:tiny", Data: "synthetic", Backend: "cpu", Out: out,
			Batch: 3, Extra: spec.Extra{optRowBudget: "500"}}
		if _, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr); err != nil {
			t.Fatalf("%v: Run: %v\n%s", sc, err, stderr.String())
		}
		m := regexp.MustCompile(`(?m)^AUC=\d+\.\d{3}%, accuracy=\d+\.\d{3}%, good=\d+, total=10000, queries=40$`).FindString(stdout.String())
		if m == "" {
			t.Fatalf("%v: no AUC line over the 10000 rows of 40 samples in:\n%s", sc, stdout.String())
		}
		r, err := auc.ScoreDLRM(filepath.Join(out, "mlperf_log_accuracy.json"), accuracy.Float32, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.String() != m {
			t.Errorf("%v: run printed %q, the log scores %q", sc, m, r.String())
		}
		acc, _ := os.ReadFile(filepath.Join(out, "accuracy.txt"))
		if !strings.Contains(string(acc), m) {
			t.Errorf("accuracy.txt lacks %q: %q", m, acc)
		}
		trace, _ := os.ReadFile(filepath.Join(out, "dlrm_trace_of_aggregated_samples.txt"))
		if !strings.HasPrefix(string(trace), "0, 200, 200\n200, 400, 200\n") || strings.Count(string(trace), "\n") != 40 {
			t.Errorf("trace file starts %q, %d lines", trace[:min(len(trace), 40)], strings.Count(string(trace), "\n"))
		}
	}
}

func TestTraceForOptions(t *testing.T) {
	tr, err := traceFor(spec.Extra{optAggregateFix: "300"}, 1000)
	if err != nil || tr.Len() != 4 || tr.Offsets[3] != 900 {
		t.Errorf("fix 300 over 1000 rows: %v, %v", tr, err)
	}
	tr, err = traceFor(nil, criteo.ValidationRows)
	if err != nil || tr.Len() != criteo.AggregatedSamples {
		t.Errorf("the reference's trace: %d samples, %v; want %d", tr.Len(), err, criteo.AggregatedSamples)
	}
	q := filepath.Join(t.TempDir(), "q.txt")
	os.WriteFile(q, []byte("5, 5\n"), 0o644)
	if tr, err = traceFor(spec.Extra{optQuantileFile: q}, 100); err != nil || tr.Len() != 20 {
		t.Errorf("quantile file of fives: %v, %v", tr, err)
	}
	for _, x := range []spec.Extra{{optAggregateFix: "x"}, {optAggregateFix: "-1"}, {optNumpySeed: "-1"}, {optNumpySeed: "4294967296"}, {optQuantileFile: filepath.Join(t.TempDir(), "none")}} {
		if _, err := traceFor(x, 100); err == nil {
			t.Errorf("TraceFor(%v) accepted it", x)
		}
	}
	// Just inside the bounds: the largest numpy seed, and fix 1 (one row a
	// sample); fix 0 means the quantile trace.
	if _, err := traceFor(spec.Extra{optNumpySeed: "4294967295"}, 100); err != nil {
		t.Errorf("seed 2^32-1: %v", err)
	}
	if tr, err := traceFor(spec.Extra{optAggregateFix: "1"}, 100); err != nil || tr.Len() != 100 {
		t.Errorf("fix 1 over 100 rows: %v, %v; want 100 samples", tr, err)
	}
	a, _ := traceFor(spec.Extra{optAggregateFix: "0"}, criteo.ValidationRows)
	if a.Len() != criteo.AggregatedSamples {
		t.Errorf("fix 0: %d samples, want the quantile trace's %d", a.Len(), criteo.AggregatedSamples)
	}
}

// TestDefaultBatchAsDocumented: --batch defaults to 64 samples a call in
// Offline, Server and MultiStream, and 1 in SingleStream (README,
// "Batching"), on every backend.
func TestDefaultBatchAsDocumented(t *testing.T) {
	for _, c := range []struct {
		sc   loadgen.Scenario
		want int
	}{{loadgen.Offline, 64}, {loadgen.Server, 64}, {loadgen.MultiStream, 64}, {loadgen.SingleStream, 1}} {
		for _, be := range []string{"cpu", "cuda"} {
			if got := descriptor.Batch.For(c.sc, be); got != c.want {
				t.Errorf("default --batch of %v on %s: %d, want %d", c.sc, be, got, c.want)
			}
		}
	}
}

// TestRunRejectsBadData checks that a run on a damaged data set ends in
// the reader's error, naming the file.
func TestRunRejectsBadData(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	if err := criteo.Synth(dir, criteo.SynthConfig{Rows: 50}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, criteo.DenseFile))
	os.WriteFile(filepath.Join(dir, criteo.DenseFile), b[:len(b)-4], 0o644)
	var stdout, stderr bytes.Buffer
	o := benchmark.Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: "synthetic:tiny", Data: dir, Backend: "cpu", Out: t.TempDir()}
	_, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), criteo.DenseFile+": truncated") {
		t.Errorf("run on a truncated dense file: %v", err)
	}
}
