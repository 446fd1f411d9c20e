package benchmark

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
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
func echo(builds *int) *Benchmark {
	return &Benchmark{
		Name:       "echo",
		Summary:    "test benchmark",
		ConfNames:  []string{"resnet50", "echo-alias"},
		CheckerIDs: []string{"resnet"},
		Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.Offline},
		Model: Models{
			Default: "synthetic",
			Sizes:   []Size{{Name: "full"}, {Name: "tiny"}},
			Build: func(path, size string, seed uint64) error {
				*builds++
				return os.WriteFile(path, []byte(size), 0o644)
			},
		},
		DefaultBatch: func(sc loadgen.Scenario, _ string) int {
			if sc == loadgen.Offline {
				return 4
			}
			return 1
		},
		Open: func(ctx context.Context, env *Env) (*Instance, error) {
			if got, err := os.ReadFile(env.ModelPath); err != nil || string(got) != env.SyntheticSize {
				return nil, fmt.Errorf("model file %s holds %q, want %q (%v)", env.ModelPath, got, env.SyntheticSize, err)
			}
			return &Instance{
				Model: harness.ModelFunc(func(_ context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
					for i, s := range idx {
						out[i].Data = binary.LittleEndian.AppendUint32(nil, uint32(s))
					}
					return nil
				}),
				QSL:      &loadgentest.MemQSL{Total: 10, Performance: 10},
				Describe: "echo: ten samples",
			}, nil
		},
		Score: func(ctx context.Context, req *ScoreRequest) (*Score, error) {
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
			return &Score{Lines: []string{fmt.Sprintf("accuracy=%.3f%%, good=%d, total=%d", 100*float64(good)/float64(total), good, total)}}, nil
		},
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

func TestRegistryLookup(t *testing.T) {
	b := echo(new(int))
	Register(b)
	defer func() { mu.Lock(); delete(benchmarks, b.Name); mu.Unlock() }()
	for _, n := range []string{"echo", "ECHO", "echo-alias"} {
		if got, ok := Lookup(n); !ok || got != b {
			t.Errorf("Lookup(%q) = %v, %v", n, got, ok)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found something")
	}
	if err := Unknown("nope"); !strings.Contains(err.Error(), "echo") {
		t.Errorf("Unknown does not list the registered names: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a second benchmark under a taken conf name did not panic")
		}
	}()
	dup := echo(new(int))
	dup.Name = "other"
	Register(dup)
}

func TestPerfCompareRefusesEmptySides(t *testing.T) {
	zero := func(context.Context, time.Duration, float64) (int64, time.Duration, error) { return 0, 0, nil }
	one := func(_ context.Context, d time.Duration, _ float64) (int64, time.Duration, error) {
		return 10, time.Second, nil
	}
	if _, err := PerfCompare(context.Background(), &bytes.Buffer{}, time.Second, zero, one); err == nil {
		t.Error("a raw side with no samples gave no error (ratio would be +Inf)")
	}
	r, err := PerfCompare(context.Background(), &bytes.Buffer{}, time.Second, one, one)
	if err != nil || r.Ratio() != 1 {
		t.Errorf("equal sides: %+v, %v; want ratio 1", r, err)
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
	req := &AccuracyRequest{ScoreRequest: ScoreRequest{Log: log}}
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
	b.Score = func(context.Context, *ScoreRequest) (*Score, error) { return &Score{Lines: []string{"x=1"}}, nil }
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
