package benchmark

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// echo is a benchmark whose model answers each sample with its index as a
// little-endian int32 and whose score counts the entries whose answer is
// their own index, so a run in accuracy mode must score 100%.
func echo(builds *int) *spec.Benchmark {
	return &spec.Benchmark{
		Name:       "echo",
		Summary:    "test benchmark",
		ConfNames:  []string{"resnet50", "echo-alias"},
		CheckerIDs: []string{"resnet"},
		Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.Offline},
		Model: spec.Models{
			Default: "synthetic",
			Sizes:   []spec.Size{{Name: "full"}, {Name: "tiny"}},
		},
		Batch: spec.Batches{loadgen.Offline: {CPU: 4}},
		Driver: &funcDriver{build: func(path, size string, seed uint64) error {
			*builds++
			return os.WriteFile(path, []byte(size), 0o644)
		}, open: func(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
			if got, err := os.ReadFile(r.ModelPath); err != nil || string(got) != r.SyntheticSize {
				return nil, fmt.Errorf("model file %s holds %q, want %q (%v)", r.ModelPath, got, r.SyntheticSize, err)
			}
			return &spec.Instance{
				Model: harness.ModelFunc(func(_ context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
					for i, s := range idx {
						out[i].Data = binary.LittleEndian.AppendUint32(nil, uint32(s))
					}
					return nil
				}),
				QSL:      &loadgentest.MemQSL{Total: 10, Performance: 10},
				Describe: "echo: ten samples",
			}, nil
		}, score: func(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
			good, total := 0, 0
			_, err := accuracy.ReadUnique(req.Log, func(e accuracy.Entry) error {
				total++
				if len(e.Data) == 4 && binary.LittleEndian.Uint32(e.Data) == uint32(e.QSLIdx) {
					good++
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			return &spec.Score{Lines: []string{fmt.Sprintf("accuracy=%.3f%%, good=%d, total=%d", 100*float64(good)/float64(total), good, total)}}, nil
		}},
	}
}

func TestRunAccuracyScoresAndWritesAccuracyTxt(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	builds := 0
	b := echo(&builds)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	o := Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: "synthetic:tiny", Data: "synthetic", Backend: "cpu", Out: out, Count: 50}
	res, err := Run(context.Background(), b, o, &stdout, &stderr)
	// --count above the data set's size is said, not silently capped.
	if !strings.Contains(stderr.String(), "--count 50 is more than the 10 samples") {
		t.Errorf("stderr lacks the --count note:\n%s", stderr.String())
	}
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	if res.Mode != loadgen.AccuracyOnly {
		t.Errorf("mode %v", res.Mode)
	}
	want := "accuracy=100.000%, good=10, total=10"
	if !strings.Contains(stdout.String(), want+"\n"+SyntheticNote) {
		t.Errorf("stdout lacks %q and the synthetic note:\n%s", want, stdout.String())
	}
	acc, err := os.ReadFile(filepath.Join(out, "accuracy.txt"))
	if err != nil || !strings.Contains(string(acc), want) {
		t.Errorf("accuracy.txt = %q, %v; want %q", acc, err, want)
	}
	if !strings.Contains(stderr.String(), "echo: ten samples") {
		t.Errorf("stderr lacks the instance description:\n%s", stderr.String())
	}
	if builds != 1 {
		t.Errorf("synthetic model built %d times, want 1", builds)
	}
	// A second run reuses the cached synthetic model.
	if _, err := Run(context.Background(), b, o, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if builds != 1 {
		t.Errorf("synthetic model built %d times over two runs, want 1", builds)
	}
}

func TestValidateFillsDefaultsAndRejects(t *testing.T) {
	b := echo(new(int))
	o := Options{Scenario: loadgen.Offline, Model: "m.onnx", Data: "d", Backend: "CPU"}
	if err := o.Validate(b); err != nil {
		t.Fatal(err)
	}
	if o.Batch != 4 || o.Workers != 1 || o.ModelName != "resnet50" || o.Backend != "cpu" {
		t.Errorf("defaults: batch %d workers %d model name %q backend %q; want 4, 1, resnet50, cpu", o.Batch, o.Workers, o.ModelName, o.Backend)
	}
	for name, mutate := range map[string]func(*Options){
		"scenario":   func(o *Options) { o.Scenario = loadgen.Server },
		"backend":    func(o *Options) { o.Backend = "tpu" },
		"model-name": func(o *Options) { o.ModelName = "bert" },
		"batch":      func(o *Options) { o.Batch = -1 },
		"duration":   func(o *Options) { o.Duration = -time.Second },
		"user-conf":  func(o *Options) { o.UserConf = filepath.Join(t.TempDir(), "missing.conf") },
		"model":      func(o *Options) { o.Model = "" },
		"cache file": func(o *Options) {
			o.Cache = filepath.Join(t.TempDir(), "f")
			os.WriteFile(o.Cache, nil, 0o644)
		},
	} {
		o := Options{Scenario: loadgen.Offline, Model: "m.onnx", Data: "d", Backend: "cpu"}
		mutate(&o)
		if err := o.Validate(b); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, o)
		}
	}
}

func TestSyntheticSize(t *testing.T) {
	b := echo(new(int))
	for spec, want := range map[string]string{"synthetic": "full", "synthetic:full": "full", "Synthetic:TINY": "tiny", "model.onnx": ""} {
		got, ok, err := SyntheticSize(b, spec)
		if err != nil || got != want || ok != (want != "") {
			t.Errorf("SyntheticSize(%q) = %q, %v, %v; want %q", spec, got, ok, err, want)
		}
	}
	if _, _, err := SyntheticSize(b, "synthetic:huge"); err == nil || !strings.Contains(err.Error(), "full, tiny") {
		t.Errorf("unknown size: %v, want an error listing the sizes", err)
	}
	if _, _, err := ResolveModel(b, filepath.Join(t.TempDir(), "none.onnx"), t.TempDir(), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "download_model.sh") {
		t.Errorf("missing model file: %v", err)
	}
}

func TestAccuracyRefusesAnotherBenchmarksLog(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	b := echo(new(int))
	out := t.TempDir()
	o := Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: "synthetic", Data: "synthetic", Backend: "cpu", Out: out}
	if _, err := Run(context.Background(), b, o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(out, "mlperf_log_accuracy.json")
	req := &AccuracyRequest{Log: log}
	b.LogShape = &accuracy.LogShape{Benchmark: "echo", DType: accuracy.Int32, MinElems: 1, MaxElems: 1, MaxValue: 10}
	if _, err := Accuracy(context.Background(), b, req, &bytes.Buffer{}); err != nil {
		t.Fatalf("a log of the benchmark's own shape: %v", err)
	}
	b.LogShape = &accuracy.LogShape{Benchmark: "bert", DType: accuracy.Float32, MinElems: 768, MaxElems: 768}
	_, err := Accuracy(context.Background(), b, req, &bytes.Buffer{})
	if !errors.Is(err, accuracy.ErrWrongBenchmark) {
		t.Errorf("a log of another shape: %v, want ErrWrongBenchmark", err)
	}
	// A --dtype the user gives overrides the shape's.
	req.DType = "int64"
	driverOf(b).score = func(context.Context, *spec.ScoreRequest) (*spec.Score, error) {
		return &spec.Score{Lines: []string{"x=1"}}, nil
	}
	if _, err := Accuracy(context.Background(), b, req, &bytes.Buffer{}); err != nil {
		t.Errorf("with --dtype int64: %v", err)
	}
}

func TestProgressIsQuietInCI(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		var b bytes.Buffer
		p := NewProgress(&b, "loading", "images")
		p.Update(10, 10) // a finished series always prints outside CI
		p.Done()
		if got := b.Len() > 0; got != (ci == "") {
			t.Errorf("CI=%q: printed %q", ci, b.String())
		}
	}
}
