package resnet50

// The resnet50 benchmark's descriptor and the imagenet data set's
// commands, as the benchmark registry runs them (see package benchmark).

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	benchmark.Register(Descriptor)
	benchmark.RegisterDataset(Imagenet)
}

// Descriptor is ResNet50-v1.5 on ImageNet 2012 (top-1) as the registry
// runs it: a tensor model in the generic harness.
var Descriptor = &benchmark.Benchmark{
	Name:       Name,
	Summary:    "ResNet50-v1.5 image classification (ImageNet 2012, top-1)",
	ConfNames:  []string{Name},
	CheckerIDs: []string{"resnet"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Server, loadgen.Offline},
	Dataset:    "imagenet",
	Model: benchmark.Models{
		Default: "synthetic",
		Sizes:   []benchmark.Size{{Name: SizeFull, Summary: "25.6M parameters"}, {Name: SizeTiny, Summary: "same graph, narrow"}},
		Seed:    ArchSeed,
		Build:   BuildFile,
	},
	DefaultBatch: defaultBatch,
	Options:      []benchmark.Option{{Name: "list", Usage: "image list file instead of DATA/val_map.txt"}},
	Open:         open,
	Score:        score,
	LogShape:     &accuracy.LogShape{Benchmark: Name, DType: accuracy.Float32, MinElems: 1, MaxElems: 1, MaxValue: 1000, AllowNegative: true},
	Compliance:   []string{"TEST01", "TEST04"},
}

// defaultBatch is the batch size of a scenario when --batch is not given.
func defaultBatch(sc loadgen.Scenario, backend string) int {
	switch sc {
	case loadgen.Offline:
		if backend != "cpu" {
			return 32
		}
		return 8
	case loadgen.MultiStream:
		return 8
	}
	return 1
}

// dataDir resolves --data: "synthetic" is SynthSamples generated JPEGs,
// written once into the cache folder.
func dataDir(data, cacheDir string, stderr io.Writer) (string, error) {
	if data != "synthetic" {
		return data, nil
	}
	dir := filepath.Join(cacheDir, fmt.Sprintf("imagenet-synthetic-%d", SynthSamples))
	fmt.Fprintf(stderr, "resnet50: synthetic data set (%d generated JPEGs) in %s\n", SynthSamples, dir)
	return SynthDataset(dir, SynthSamples)
}

// open resolves the data set and the model, checks the model against the
// contract and warms it up (the reference predicts sample 0 five times
// before the test).
func open(ctx context.Context, env *benchmark.Env) (*benchmark.Instance, error) {
	data, err := dataDir(env.Data, env.CacheDir, env.Stderr)
	if err != nil {
		return nil, err
	}
	list := env.Extra["list"]
	cfg := DataConfig{Dir: data, ListFile: list, Count: env.Count, CacheDir: env.Cache, Warn: env.Stderr}
	ds, err := OpenDataset(cfg)
	if err != nil {
		return nil, err
	}
	cfg.Progress = benchmark.NewProgress(env.Stderr, "loading samples", "images").Update
	qsl, err := NewQSL(ds, cfg)
	if err != nil {
		return nil, err
	}
	sess, m, err := benchmark.OpenTensorModel(ctx, env, []string{ArgMaxName}, 5, func(s backend.Session) (*Model, error) { return New(s, qsl.Sample) })
	if err != nil {
		return nil, err
	}
	return &benchmark.Instance{
		Model:    m,
		QSL:      qsl,
		Describe: env.Describe(ds.Len()),
		Score: func(ctx context.Context, logPath string) (*benchmark.Score, error) {
			return scoreTop1(logPath, data, list, env.Count, "", env.Stderr)
		},
		Raw:   rawSide(sess, qsl, env.Batch, env.Workers),
		Close: sess.Close,
	}, nil
}

// rawSide is perf's raw measurement: the session's Run, back to back, on
// batches of real samples taken in turn from the whole loaded set (up to
// 64 batches), so that any data-dependent cost of the engine (denormals,
// say) falls on the raw figure as it does on the harness run, which cycles
// through the same set. The batches are built on the first call.
func rawSide(sess backend.Session, qsl *harness.QSL[[]float32], batch, workers int) func(context.Context, time.Duration) (int64, time.Duration, error) {
	var inputs [][]backend.Tensor
	var next atomic.Int64
	return func(ctx context.Context, d time.Duration) (int64, time.Duration, error) {
		if inputs == nil {
			var err error
			if inputs, err = rawBatches(ctx, qsl, batch); err != nil {
				return 0, 0, err
			}
		}
		calls, el, err := harness.Measure(ctx, workers, d, func(ctx context.Context) error {
			_, err := sess.Run(ctx, inputs[int(next.Add(1)-1)%len(inputs)])
			return err
		})
		return calls * int64(batch), el, err
	}
}

// rawBatches copies up to 64 batches of loaded samples into input
// tensors.
func rawBatches(ctx context.Context, qsl *harness.QSL[[]float32], batch int) ([][]backend.Tensor, error) {
	samples, unload, err := benchmark.LoadBatches(ctx, qsl, batch, 64, qsl.Sample)
	if err != nil {
		return nil, err
	}
	defer unload()
	inputs := make([][]backend.Tensor, len(samples))
	for k, b := range samples {
		x := make([]float32, 0, batch*SampleLen)
		for _, s := range b {
			x = append(x, s...)
		}
		inputs[k] = []backend.Tensor{{Name: InputName, DType: backend.Float32,
			Shape: []int64{int64(batch), 3, InputSize, InputSize}, Data: x}}
	}
	return inputs, nil
}

// score is accuracy-imagenet.py: top-1 of the logged predictions against
// the labels of the data set's val_map.txt.
func score(ctx context.Context, req *benchmark.ScoreRequest) (*benchmark.Score, error) {
	data, err := dataDir(req.Data, req.CacheDir, req.Stderr)
	if err != nil {
		return nil, err
	}
	return scoreTop1(req.Log, data, req.Extra["list"], req.Count, req.DType, req.Stderr)
}

// scoreTop1 scores an accuracy log whose responses have element type dtype
// ("": float32, the reference's; int32 and int64 are what MLCommons' C++
// harness writes); list, if set, replaces DATA/val_map.txt.
func scoreTop1(logPath, dataDir, list string, count int, dtype string, warn io.Writer) (*benchmark.Score, error) {
	if dtype == "" {
		dtype = "float32"
	}
	dt, err := accuracy.ParseDType(dtype)
	if err != nil {
		return nil, benchmark.UsageError("resnet50: --dtype: %v", err)
	}
	ds, err := imagenet.Load(dataDir, imagenet.Options{ListFile: list, Count: count, Warn: warn})
	if err != nil {
		return nil, fmt.Errorf("resnet50: %w", err)
	}
	labels := make([]int, ds.Len())
	for i := range labels {
		labels[i] = ds.Label(i)
	}
	r, err := accuracy.Top1(logPath, labels, dt)
	if err != nil {
		return nil, err
	}
	return &benchmark.Score{Lines: []string{r.String()}}, nil
}

// Imagenet is the ImageNet 2012 validation set's commands: synth, verify
// and preprocess (the reference's preprocessed .npy cache).
var Imagenet = &benchmark.Dataset{
	Name:       "imagenet",
	DataWant:   "the ImageNet validation folder (val_map.txt and the JPEG files it lists)",
	Download:   "datasets/imagenet/download_dataset.sh",
	Summary:    "ImageNet 2012 validation (50000 JPEGs and val_map.txt)",
	Synth:      synthImagenet,
	Verify:     verifyImagenet,
	Preprocess: preprocessImagenet,
}

func synthImagenet(req *benchmark.DatasetRequest) error {
	n, seed := req.N, req.Seed
	if n == 0 {
		n = SynthSamples
	}
	if seed == 0 {
		seed = SynthSeed
	}
	if err := imagenet.Synth(req.Out, imagenet.SynthConfig{N: n, Seed: seed}); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d synthetic ImageNet images and %s to %s\n", n, imagenet.ValMapName, req.Out)
	return nil
}

// verifyImagenet checks that every listed image is present and unchanged;
// -n is the expected number of listed images (default: the full 50000).
func verifyImagenet(req *benchmark.DatasetRequest) error {
	expect := imagenet.Size
	if req.NSet {
		expect = req.N
	}
	r, err := imagenet.Verify(req.Data)
	if err != nil {
		return err
	}
	w := req.Stdout
	fmt.Fprint(w, r.String())
	for i, m := range r.Missing {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more missing\n", len(r.Missing)-10)
			break
		}
		fmt.Fprintf(w, "  missing: %s\n", m)
	}
	for i, m := range r.Mismatched {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more damaged\n", len(r.Mismatched)-10)
			break
		}
		fmt.Fprintf(w, "  checksum differs: %s\n", m)
	}
	if !r.OK(expect) {
		if expect > 0 && r.Listed != expect {
			return fmt.Errorf("imagenet: %s lists %d images, want %d (-n 0 accepts any count)", imagenet.ValMapName, r.Listed, expect)
		}
		return fmt.Errorf("imagenet: data set in %s is incomplete or damaged", req.Data)
	}
	fmt.Fprintln(w, "OK")
	return nil
}

// preprocessImagenet writes every image's preprocessed tensor once as
// <image path>.npy under -o (default: beside the images); --count limits it to
// the first N listed images.
func preprocessImagenet(req *benchmark.DatasetRequest) error {
	out := req.Out
	if out == "" {
		out = DefaultCacheDir(req.Data)
	}
	ds, err := OpenDataset(DataConfig{Dir: req.Data, Count: req.Count, Warn: req.Stderr})
	if err != nil {
		return err
	}
	if _, err := openCache(ds, DataConfig{Dir: req.Data, CacheDir: out, Warn: req.Stderr}, func(_ context.Context, i int) ([]float32, error) {
		return Preprocess(ds.ImagePath(i))
	}); err != nil {
		return err
	}
	start := time.Now()
	p := benchmark.NewProgress(req.Stderr, "preprocess", "images")
	err = WriteCache(req.Context(), ds, out, req.Workers, p.Update)
	p.Done()
	if err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Fprintf(req.Stdout, "preprocessed %d images into %s in %.1fs (%.1f images/s)\n", ds.Len(), out, el.Seconds(), float64(ds.Len())/el.Seconds())
	return nil
}
