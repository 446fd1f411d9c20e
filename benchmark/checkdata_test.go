package benchmark

import (
	"bytes"
	"context"
	"errors"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
)

// A run checks --data against its benchmark's data set, before anything
// is built.
func TestValidateChecksDataAgainstTheDataset(t *testing.T) {
	file := filepath.Join(t.TempDir(), "dev.json")
	os.WriteFile(file, []byte("{}"), 0o644)
	if _, ok := spec.LookupDataset("checkdata-pics"); !ok {
		spec.RegisterDataset(&spec.Dataset{Name: "checkdata-pics", DataWant: "the pictures folder"})
	}
	b := &spec.Benchmark{Name: "pics-bench", Dataset: "checkdata-pics", ConfNames: []string{"resnet50"}, Scenarios: []loadgen.Scenario{loadgen.Offline}}
	o := Options{Scenario: loadgen.Offline, Model: "m.onnx", Data: file, Backend: "cpu"}
	if err := o.Validate(b); err == nil || !strings.Contains(err.Error(), "is a file; want the pictures folder") {
		t.Fatalf("run with --data a file: %v", err)
	}
}

// A run whose settings ask for a long wait says so on stderr before it
// starts (here it is interrupted at once), and a short one does not.
func TestRunNotesALongRunUpFront(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	builds := 0
	b := echo(&builds)
	b.Scenarios = append(b.Scenarios, loadgen.Server)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		qps  float64
		note bool
	}{{0.0001, true}, {1000, false}} {
		var stdout, stderr bytes.Buffer
		o := Options{Scenario: loadgen.Server, Model: "synthetic:tiny", Data: "synthetic", Backend: "cpu", Out: t.TempDir(), QPS: c.qps, Duration: time.Second}
		_, err := Run(ctx, b, o, &stdout, &stderr)
		if !errors.Is(err, loadgen.ErrInterrupted) {
			t.Fatalf("--qps %g: %v, want interrupted", c.qps, err)
		}
		got := strings.Contains(stderr.String(), "Server at 0.0001 QPS needs min_query_count 100 queries → about 11.6 days")
		if got != c.note {
			t.Errorf("--qps %g: note shown %v, want %v:\n%s", c.qps, got, c.note, stderr.String())
		}
	}
}

// mlperf accuracy's --log: a run folder stands for the log in it; a
// folder without a log and an empty file are refused with what to give; a
// missing file reaches the scorer, which names it.
func TestAccuracyLogPath(t *testing.T) {
	b := &spec.Benchmark{Name: "echo", Driver: &funcDriver{score: func(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
		_, err := os.ReadFile(req.Log)
		return nil, err
	}}}
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	log := filepath.Join(run, AccuracyLogName)
	os.WriteFile(log, []byte("[]"), 0o644)
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	if got, err := resolveLog(b, run); err != nil || got != log {
		t.Fatalf("run folder: %q %v, want %q", got, err, log)
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "none.json"), "none.json: no such file"},
		{dir, "is a folder without mlperf_log_accuracy.json"},
		{empty, "empty.json is empty (0 bytes)"},
	} {
		_, err := Accuracy(context.Background(), b, &AccuracyRequest{Log: c.path}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--log %s: %v, want %q", c.path, err, c.want)
		}
	}
}

// --protocol is case-insensitive, like --backend.
func TestProtocolCase(t *testing.T) {
	b := &spec.Benchmark{Name: "echo", ConfNames: []string{"resnet50"}, Scenarios: []loadgen.Scenario{loadgen.Offline}}
	o := Options{Scenario: loadgen.Offline, Data: "synthetic", Backend: "KServe", Protocol: "GRPC", Endpoints: []string{"127.0.0.1:8000"}}
	if err := o.Validate(b); err != nil || o.Protocol != "grpc" {
		t.Fatalf("--protocol GRPC: %v, protocol %q", err, o.Protocol)
	}
}
