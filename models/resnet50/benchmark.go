package resnet50

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

// Benchmark facts the descriptor needs (mlperf.conf's model name and the
// reference QSL's performance sample count); accuracy targets and latency
// bounds live in accuracy.Targets and mlperf.conf.
const (
	// Name is the benchmark's model name in mlperf.conf and user.conf.
	Name = "resnet50"
	// PerformanceSampleCount is what the reference QSL reports at most
	// (min(total, 500)); mlperf.conf's override (1024) takes precedence.
	PerformanceSampleCount = 500
	// SynthSamples is the size of the synthetic data set `--data
	// synthetic` generates.
	SynthSamples = 64
	// SynthSeed is the seed of that data set.
	SynthSeed = 1
)

// DataConfig says where a run's samples come from.
type DataConfig struct {
	// Dir is the data set folder (val_map.txt and the images).
	Dir string
	// ListFile overrides Dir/val_map.txt.
	ListFile string
	// Count, if positive, uses only the first Count listed images.
	Count int
	// CacheDir, if set, keeps preprocessed samples as
	// CacheDir/<image path>.npy: existing files are read instead of
	// decoding the image (the reference's --cache_dir / preprocessed
	// data set, and what `mlperf dataset preprocess imagenet` writes),
	// missing ones are written.
	CacheDir string
	// Workers is the number of images preprocessed in parallel while
	// samples load (< 1: all cores).
	Workers int
	// Progress, if not nil, reports loading progress (see
	// harness.QSLConfig.Progress).
	Progress func(done, total int)
	// Warn receives warnings about missing images (nil: os.Stderr).
	Warn io.Writer
}

// OpenDataset reads the data set's image list (see imagenet.Load).
func OpenDataset(cfg DataConfig) (*imagenet.Dataset, error) {
	ds, err := imagenet.Load(cfg.Dir, imagenet.Options{ListFile: cfg.ListFile, Count: cfg.Count, Warn: cfg.Warn})
	if err != nil {
		return nil, fmt.Errorf("resnet50: %w", err)
	}
	return ds, nil
}

// SynthDataset writes the synthetic data set (SynthSamples generated
// JPEGs and val_map.txt, see imagenet.Synth) into dir unless it is there
// already, and returns dir.
func SynthDataset(dir string, n int) (string, error) {
	if n < 1 {
		n = SynthSamples
	}
	if ds, err := imagenet.Load(dir, imagenet.Options{Warn: io.Discard}); err == nil && ds.Len() == n && len(ds.Missing) == 0 {
		return dir, nil
	}
	if err := imagenet.Synth(dir, imagenet.SynthConfig{N: n, Seed: SynthSeed}); err != nil {
		return "", fmt.Errorf("resnet50: %w", err)
	}
	return dir, nil
}

// NewQSL returns an in-memory QSL over ds: LoadSamples preprocesses the
// requested images (in parallel, untimed) with Preprocess, or reads them
// from cfg.CacheDir. Unloaded samples' buffers are reused.
func NewQSL(ds *imagenet.Dataset, cfg DataConfig) (*harness.QSL[[]float32], error) {
	bufs := &sync.Pool{New: func() any { return make([]float32, SampleLen) }}
	load := harness.Loader[[]float32](func(_ context.Context, i int) ([]float32, error) {
		buf := bufs.Get().([]float32)
		if err := PreprocessInto(buf, ds.ImagePath(i)); err != nil {
			bufs.Put(buf)
			return nil, err
		}
		return buf, nil
	})
	if cfg.CacheDir != "" {
		load = harness.NpyCache(cfg.CacheDir, func(i int) string { return ds.Samples[i].Path }, SampleShape, load)
	}
	q, err := harness.NewQSL(harness.QSLConfig[[]float32]{
		Total:       ds.Len(),
		Performance: min(ds.Len(), PerformanceSampleCount),
		Load:        load,
		Workers:     cfg.Workers,
		Progress:    cfg.Progress,
		Release: func(s []float32) {
			if len(s) == SampleLen {
				bufs.Put(s)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("resnet50: %w", err)
	}
	return q, nil
}

// DefaultCacheDir is where `mlperf dataset preprocess imagenet` writes the
// preprocessed samples of a data set folder unless told otherwise: beside
// the images, as the reference's --use_preprocessed_dataset expects.
func DefaultCacheDir(dataDir string) string { return filepath.Clean(dataDir) }

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
	sess, err := env.OpenSession(env.ModelPath, []string{ArgMaxName})
	if err != nil {
		return nil, err
	}
	m, err := New(sess, qsl.Sample)
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, env.Model)
	}
	if fb := m.FixedBatch(); fb > 0 && env.Batch > fb {
		sess.Close()
		return nil, benchmark.UsageError("resnet50: the model has a fixed batch size of %d; use --batch %d or less", fb, fb)
	}
	if err := m.Warmup(ctx, env.Batch, 5); err != nil {
		sess.Close()
		return nil, err
	}
	return &benchmark.Instance{
		Model: m,
		QSL:   qsl,
		Describe: fmt.Sprintf("resnet50: %s %s, model %s, %s backend, batch %d, %d worker(s), %d samples in the data set",
			env.Scenario, env.Mode, env.Model, env.Backend, env.Batch, env.Workers, ds.Len()),
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
