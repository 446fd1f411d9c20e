package benchmark

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
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

// TestProgressLinesOnAFakeClock: every value of the line (count, total,
// percentage, ETA, rate, elapsed seconds) and the interval, on both sides of
// its bound, read from a clock the test moves.
func TestProgressLinesOnAFakeClock(t *testing.T) {
	t.Setenv("CI", "")
	var b bytes.Buffer
	p := NewProgress(&b, "loading", "images")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := t0
	p.now = func() time.Time { return at }
	step := func(d time.Duration, done, total int, want string) {
		t.Helper()
		at = t0.Add(d)
		b.Reset()
		p.Update(done, total)
		if b.String() != want {
			t.Errorf("Update(%d, %d) at %v: printed %q, want %q", done, total, d, b.String(), want)
		}
	}
	step(0, 1, 10, "")                     // a new series starts at 1
	step(4999*time.Millisecond, 4, 10, "") // just inside the 5 s interval: nothing
	step(5*time.Second, 5, 10, "loading: 5/10 images (50%), ETA 5s, 1.0/s, 5s\n")
	step(6*time.Second, 6, 10, "")                                           // 1 s since the last line
	step(8*time.Second, 10, 10, "loading: 10/10 images (100%), 1.2/s, 8s\n") // the last one always prints
	step(9*time.Second, 0, 10, "")                                           // done 0 restarts the series at 9 s
	step(14*time.Second, 2, 10, "loading: 2/10 images (20%), ETA 20s, 0.4/s, 5s\n")
	step(20*time.Second, 8, -1, "loading: 8 images, 0.7/s, 11s\n") // total unknown: no percentage, no ETA
	step(20*time.Second, 1, 0, "")                                 // total unknown: done 1 does not restart
	p.Done()
	if b.Len() != 0 {
		t.Errorf("Done off a terminal printed %q", b.String())
	}
}

// TestProgressOnATerminal: a character device counts as a terminal (250 ms,
// lines rewritten in place, printed even under CI) and Done ends the line.
func TestProgressOnATerminal(t *testing.T) {
	t.Setenv("CI", "true")
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no %s: %v", os.DevNull, err)
	}
	defer f.Close()
	p := NewProgress(f, "loading", "images")
	if !p.tty || p.quiet || p.interval != 250*time.Millisecond {
		t.Fatalf("on %s: tty %v quiet %v interval %v; want true false 250ms", os.DevNull, p.tty, p.quiet, p.interval)
	}
	var b bytes.Buffer
	p.w = &b
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return t0 }
	p.Update(1, 10)
	p.now = func() time.Time { return t0.Add(249 * time.Millisecond) }
	p.Update(2, 10) // inside the 250 ms interval: nothing
	p.now = func() time.Time { return t0.Add(600 * time.Millisecond) }
	p.Update(3, 10)
	p.Done()
	if want := "\r\033[Kloading: 3/10 images (30%), ETA 1s, 5.0/s, 1s\n"; b.String() != want {
		t.Errorf("terminal output %q, want %q", b.String(), want)
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

func TestCacheDirOrder(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", "/x/cache")
	if got := CacheDir(); got != "/x/cache" {
		t.Errorf("with MLPERF_CACHE_DIR: %q", got)
	}
	t.Setenv("MLPERF_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "/x/xdg")
	if got := CacheDir(); got != "/x/xdg/mlperf-go" {
		t.Errorf("with XDG_CACHE_HOME: %q, want /x/xdg/mlperf-go", got)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if got := CacheDir(); got != ".mlperf-cache" {
		t.Errorf("with no cache folder: %q, want .mlperf-cache", got)
	}
}

func TestBuildModelNeedsABuilderAndSizes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.onnx")
	b := echo(new(int))
	if err := BuildModel(b, path, "tiny", 1); err != nil {
		t.Fatalf("a builder with sizes: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "tiny" {
		t.Fatalf("built %q, want the tiny model", got)
	}
	b.Model.Sizes = nil
	if err := BuildModel(b, path, "tiny", 1); err == nil || !strings.Contains(err.Error(), "echo: no synthetic model") {
		t.Errorf("no sizes: %v", err)
	}
	b = echo(new(int))
	b.Driver = struct{ spec.Driver }{b.Driver} // hides BuildModel
	if err := BuildModel(b, path, "tiny", 1); err == nil || !strings.Contains(err.Error(), "echo: no synthetic model") {
		t.Errorf("a driver without BuildModel: %v", err)
	}
}

// TestResolveModelBuildsOnceAndReportsFaults: the synthetic model is built
// once into the cache; a failed build and an unusable cache folder are
// errors, and no half-built model is left behind.
func TestResolveModelBuildsOnceAndReportsFaults(t *testing.T) {
	builds := 0
	b := echo(&builds)
	cache := t.TempDir()
	var note bytes.Buffer
	for range 2 {
		path, size, err := ResolveModel(b, "synthetic:tiny", cache, &note)
		if err != nil || size != "tiny" || path != filepath.Join(cache, "echo-synthetic-tiny", "model.onnx") {
			t.Fatalf("ResolveModel = %q, %q, %v", path, size, err)
		}
	}
	if builds != 1 || strings.Count(note.String(), "building the synthetic tiny model") != 1 {
		t.Fatalf("%d builds, notes %q; want 1 of each", builds, note.String())
	}
	boom := errors.New("boom")
	driverOf(b).build = func(string, string, uint64) error { return boom }
	if _, _, err := ResolveModel(b, "synthetic:full", cache, io.Discard); !errors.Is(err, boom) {
		t.Fatalf("failed build: %v", err)
	}
	if ents, _ := os.ReadDir(cache); len(ents) != 1 {
		t.Fatalf("after a failed build the cache holds %d entries, want only the tiny model's folder", len(ents))
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, _, err := ResolveModel(b, "synthetic", file, io.Discard); err == nil || !strings.Contains(err.Error(), "echo: cache folder") {
		t.Fatalf("cache folder that is a file: %v", err)
	}
	if _, _, err := ResolveModel(b, "synthetic", filepath.Join(file, "sub"), io.Discard); err == nil || !strings.Contains(err.Error(), "echo: cache folder") {
		t.Fatalf("cache folder under a file: %v", err)
	}
	// The model's folder is there, holds something else and no model: the
	// built one cannot be moved in.
	driverOf(b).build = nil
	busy := filepath.Join(cache, "echo-synthetic-full")
	os.MkdirAll(busy, 0o755)
	os.WriteFile(filepath.Join(busy, "other"), nil, 0o644)
	if _, _, err := ResolveModel(b, "synthetic:full", cache, io.Discard); err == nil || !strings.HasPrefix(err.Error(), "echo: ") {
		t.Fatalf("model folder taken: %v", err)
	}
	// A cache folder that exists but takes no new folder (/proc).
	if st, err := os.Stat("/proc/self"); err == nil && st.IsDir() {
		if _, _, err := ResolveModel(b, "synthetic", "/proc", io.Discard); err == nil || !strings.Contains(err.Error(), "echo: cache folder") {
			t.Fatalf("cache folder /proc: %v", err)
		}
	}
}

// TestRecordWriteFaults: --hash without --out, a hashed log that is missing
// and an accuracy.txt that cannot be written are errors; a score line
// printed goes before the failing write.
func TestRecordWriteFaults(t *testing.T) {
	sc := &spec.Score{Lines: []string{"acc=1"}}
	dir := t.TempDir()
	if err := (Record{Name: "m", HashLog: "x.json"}).Write(io.Discard, sc); !errors.Is(err, spec.ErrUsage) || !strings.Contains(err.Error(), "--hash needs --out") {
		t.Errorf("--hash without --out: %v", err)
	}
	missing := filepath.Join(dir, "none.json")
	if err := (Record{Name: "m", HashLog: missing, Out: filepath.Join(dir, "a.txt")}).Write(io.Discard, sc); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing hashed log: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	var out bytes.Buffer
	if err := (Record{Name: "m", Out: filepath.Join(file, "accuracy.txt")}).Write(&out, sc); err == nil {
		t.Errorf("accuracy.txt under a file: no error")
	}
	if out.String() != "acc=1\n" {
		t.Errorf("stdout %q, want the score line", out.String())
	}
}

// TestRunEdges: a nil stdout is allowed, --count equal to the data set's
// size says nothing (one more says so), and a scoring error is the run's.
func TestRunEdges(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	b := echo(new(int))
	o := Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: "synthetic", Data: "synthetic", Backend: "cpu", Out: t.TempDir(), Count: 10}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), b, o, nil, &stderr); err != nil {
		t.Fatalf("nil stdout: %v", err)
	}
	if strings.Contains(stderr.String(), "--count") {
		t.Errorf("--count 10 of 10 samples noted:\n%s", stderr.String())
	}
	stderr.Reset()
	o.Count = 11
	if _, err := Run(context.Background(), b, o, io.Discard, &stderr); err != nil || !strings.Contains(stderr.String(), "--count 11 is more than the 10 samples") {
		t.Errorf("--count 11: %v, stderr:\n%s", err, stderr.String())
	}
	missing := o
	missing.Model = filepath.Join(t.TempDir(), "none.onnx")
	if _, err := Run(context.Background(), b, missing, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "none.onnx not found") {
		t.Errorf("missing model file: %v", err)
	}
	boom := errors.New("scorer broke")
	driverOf(b).score = func(context.Context, *spec.ScoreRequest) (*spec.Score, error) { return nil, boom }
	if _, err := Run(context.Background(), b, o, io.Discard, io.Discard); !errors.Is(err, boom) {
		t.Errorf("scoring error: Run returned %v", err)
	}
}
