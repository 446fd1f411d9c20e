package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/models/resnet50"
)

func init() {
	handle("run resnet50", "run ResNet50-v1.5 (ImageNet) through the loadgen", runResNet50)
}

// resnet50Defaults are the run flags' defaults for ResNet50.
func resnet50Defaults() runFlags {
	return runFlags{
		Scenario: "Offline", Mode: "performance", Model: "synthetic", Data: "synthetic",
		Backend: "cpu", Out: filepath.Join("out", "resnet50"),
	}
}

// defaultBatch is the batch size of a scenario when --batch is not given.
func defaultBatch(scenario, backendName string) int {
	switch scenario {
	case "Offline":
		if backendName != "cpu" {
			return 32
		}
		return 8
	case "MultiStream":
		return 8
	}
	return 1
}

// resnet50Setup is what a ResNet50 run or perf measurement works on.
type resnet50Setup struct {
	flags *runFlags
	data  string // resolved data set folder
	sess  backend.Session
	qsl   *harness.QSL[[]float32]
	model *resnet50.Model
	ds    interface{ Len() int }
	label func(i int) int
}

func (s *resnet50Setup) Close() error {
	if s.sess != nil {
		return s.sess.Close()
	}
	return nil
}

// setupResNet50 resolves the data set and the model, checks the model
// against the contract and warms it up.
func setupResNet50(ctx context.Context, f *runFlags, stderr io.Writer) (*resnet50Setup, error) {
	s := &resnet50Setup{flags: f, data: f.Data}
	if err := os.MkdirAll(f.Out, 0o755); err != nil {
		return nil, fmt.Errorf("resnet50: output folder: %w", err)
	}
	if f.Data == "synthetic" {
		dir := filepath.Join(cacheDir(), fmt.Sprintf("imagenet-synthetic-%d", resnet50.SynthSamples))
		fmt.Fprintf(stderr, "resnet50: synthetic data set (%d generated JPEGs) in %s\n", resnet50.SynthSamples, dir)
		if _, err := resnet50.SynthDataset(dir, resnet50.SynthSamples); err != nil {
			return nil, err
		}
		s.data = dir
	}
	cfg := resnet50.DataConfig{Dir: s.data, Count: f.Count, CacheDir: f.Cache, Warn: stderr}
	ds, err := resnet50.OpenDataset(cfg)
	if err != nil {
		return nil, err
	}
	s.ds, s.label = ds, ds.Label
	p := newProgress(stderr, "loading samples", "images")
	cfg.Progress = p.update
	if s.qsl, err = resnet50.NewQSL(ds, cfg); err != nil {
		return nil, err
	}
	sess, err := openModel(resnet50.Name, f, []string{resnet50.ArgMaxName}, stderr)
	if err != nil {
		return nil, err
	}
	s.sess = sess
	if s.model, err = resnet50.New(sess, s.qsl.Sample); err != nil {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, f.Model)
	}
	if fb := s.model.FixedBatch(); fb > 0 && f.Batch > fb {
		sess.Close()
		return nil, usageError("the model has a fixed batch size of %d; use --batch %d or less", fb, fb)
	}
	// The reference predicts sample 0 five times before the test.
	if err := s.model.Warmup(ctx, f.Batch, 5); err != nil {
		sess.Close()
		return nil, err
	}
	return s, nil
}

func runResNet50(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run resnet50", flag.ContinueOnError)
	f := addRunFlags(fs, resnet50Defaults())
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.Batch == 0 {
		f.Batch = defaultBatch(f.Scenario, f.Backend)
	}
	s, err := setupResNet50(ctx, f, os.Stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	counter := &harness.Counter{Model: s.model}
	sut, closeSUT, err := harness.ForScenario(f.Scenario, counter, harness.PoolConfig{Batch: f.Batch, Workers: f.Workers})
	if err != nil {
		return err
	}
	defer closeSUT()
	fmt.Fprintf(os.Stderr, "resnet50: %s %s, model %s, %s backend, batch %d, %d worker(s), %d samples in the data set\n",
		f.Scenario, f.Mode, f.Model, f.Backend, f.Batch, f.Workers, s.ds.Len())
	return runLoadgen(ctx, runSpec{
		flags: f,
		model: resnet50.Name,
		sut:   sut,
		qsl:   s.qsl,
		done:  counter.Done,
		score: func(logPath string) (string, error) {
			return scoreImagenet(logPath, s.data, f, "")
		},
		synthetic: isSynthetic(f.Model),
	})
}

func isSynthetic(model string) bool {
	_, ok := syntheticModel(model)
	return ok
}

// watchProgress prints a progress line of done() every second until
// stop is closed.
func watchProgress(w io.Writer, done func() int64, total int, stop <-chan struct{}) {
	p := newProgress(w, "running", "samples")
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			p.done()
			return
		case <-t.C:
			p.update(int(done()), total)
		}
	}
}

func init() {
	handle("perf resnet50", "raw ONNX Runtime throughput vs the same through a full Offline run (ratio=harness/raw)", perfResNet50)
}

func perfResNet50(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("perf resnet50", flag.ContinueOnError)
	d := resnet50Defaults()
	d.Batch = 8
	d.Out = filepath.Join("out", "resnet50-perf")
	f := addRunFlags(fs, d)
	dur := fs.Duration("time", 10*time.Second, "how long each side (raw and harness) is measured in all, over the alternating rounds")
	if err := parse(fs, args); err != nil {
		return err
	}
	if f.Duration > 0 { // --duration is the shared spelling of --time
		*dur = f.Duration
	}
	f.Scenario, f.Mode = "Offline", "performance"
	if err := f.check(); err != nil {
		return err
	}
	if f.Batch == 0 {
		f.Batch = defaultBatch(f.Scenario, f.Backend)
	}
	s, err := setupResNet50(ctx, f, os.Stderr)
	if err != nil {
		return err
	}
	defer s.Close()

	// Raw: the session's Run, back to back, on batches of real samples
	// taken in turn from the whole loaded set (up to 64 batches), so that
	// any data-dependent cost of the engine (denormals, say) falls on the
	// raw figure as it does on the harness run, which cycles through the
	// same set.
	total := s.qsl.TotalSampleCount()
	nb := max(1, min(64, total/f.Batch))
	idx := make([]loadgen.SampleIndex, 0, min(nb*f.Batch, total))
	for i := range min(nb*f.Batch, total) {
		idx = append(idx, loadgen.SampleIndex(i))
	}
	if err := s.qsl.LoadSamples(ctx, idx); err != nil {
		return err
	}
	inputs := make([][]backend.Tensor, nb)
	for k := range inputs {
		batch := make([]float32, 0, f.Batch*resnet50.SampleLen)
		for j := range f.Batch {
			x, _ := s.qsl.Sample(idx[(k*f.Batch+j)%len(idx)])
			batch = append(batch, x...)
		}
		inputs[k] = []backend.Tensor{{Name: resnet50.InputName, DType: backend.Float32,
			Shape: []int64{int64(f.Batch), 3, resnet50.InputSize, resnet50.InputSize}, Data: batch}}
	}
	if err := s.qsl.UnloadSamples(ctx, idx); err != nil {
		return err
	}
	var next atomic.Int64
	raw := func(ctx context.Context, d time.Duration, _ float64) (int64, time.Duration, error) {
		calls, el, err := harness.Measure(ctx, f.Workers, d, func(ctx context.Context) error {
			_, err := s.sess.Run(ctx, inputs[int(next.Add(1)-1)%nb])
			return err
		})
		return calls * int64(f.Batch), el, err
	}
	// Harness: the same model, batch and workers through full Offline runs.
	counter := &harness.Counter{Model: s.model}
	sut, closeSUT, err := harness.ForScenario("Offline", counter, harness.PoolConfig{Batch: f.Batch, Workers: f.Workers})
	if err != nil {
		return err
	}
	defer closeSUT()
	spec := runSpec{flags: f, model: resnet50.Name, sut: sut, qsl: s.qsl, done: counter.Done}
	viaHarness := func(ctx context.Context, d time.Duration, qps float64) (int64, time.Duration, error) {
		return offlineRun(ctx, spec, d, qps)
	}
	fmt.Fprintf(os.Stderr, "perf: raw %s Run (%d batches of real samples in turn) vs loadgen Offline runs, batch %d, %d worker(s), %v each, alternating in %d rounds\n", f.Backend, nb, f.Batch, f.Workers, *dur, perfRounds)
	rawQPS, got, err := perfCompare(ctx, os.Stderr, *dur, raw, viaHarness)
	if err != nil {
		return err
	}
	fmt.Printf("raw:     %.2f samples/s (batch %d, %d worker(s))\n", rawQPS, f.Batch, f.Workers)
	fmt.Printf("harness: %.2f samples/s (loadgen Offline, logs in %s)\n", got, f.Out)
	fmt.Printf("ratio=%.4f\n", got/rawQPS)
	return nil
}

func init() {
	handle("accuracy resnet50", "score a ResNet50 mlperf_log_accuracy.json against val_map.txt (top-1)", accuracyResNet50)
}

func accuracyResNet50(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("accuracy resnet50", flag.ContinueOnError)
	logPath := fs.String("log", "", "mlperf_log_accuracy.json (required)")
	data := fs.String("data", "", "data set folder holding val_map.txt (required)")
	list := fs.String("list", "", "image list file instead of DATA/val_map.txt")
	dtype := fs.String("dtype", "float32", "response type: float32 (the reference), int32 or int64 (MLCommons' C++ harness)")
	var mo metricOut
	mo.flags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *logPath == "" || *data == "" {
		return usageError("--log FILE and --data DIR are required")
	}
	line, err := scoreImagenet(*logPath, *data, &runFlags{}, *dtype)
	if err != nil {
		return err
	}
	_ = list
	return mo.finish([]string{line})
}

func init() {
	syntheticBuilders[resnet50.Name] = func(size string, w io.Writer) error {
		return resnet50.Build(w, size, resnet50.ArchSeed)
	}
	handle("model build resnet50", "write the synthetic ResNet50-v1.5 model (official contract, seeded weights)", modelBuildResNet50)
}

func modelBuildResNet50(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("model build resnet50", flag.ContinueOnError)
	size := fs.String("size", resnet50.SizeFull, "full (25.6M parameters) or tiny (same graph, narrow)")
	out := fs.String("o", "", "output .onnx file (required)")
	seed := fs.Uint64("seed", resnet50.ArchSeed, "weight seed (same size and seed, same bytes)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError("-o FILE is required")
	}
	if *size != resnet50.SizeFull && *size != resnet50.SizeTiny {
		return usageError("--size %q: want full or tiny", *size)
	}
	if err := resnet50.BuildFile(*out, *size, *seed); err != nil {
		return err
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Printf("wrote the synthetic ResNet50 (%s, seed %d) to %s, %.1f MB\n", *size, *seed, *out, float64(st.Size())/1e6)
	return nil
}
