package resnet50

// The resnet50 benchmark as the framework runs it: its descriptor and
// driver (see package benchmark/spec).

import (
	"context"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(imagenetDataset)
}

// descriptor is ResNet50-v1.5 on ImageNet 2012 (top-1) as the registry
// runs it: a tensor model in the generic harness.
var descriptor = &spec.Benchmark{
	Name:       benchmarkName,
	Summary:    "ResNet50-v1.5 image classification (ImageNet 2012, top-1)",
	ConfNames:  []string{benchmarkName},
	CheckerIDs: []string{"resnet"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Server, loadgen.Offline},
	Dataset:    "imagenet",
	Model: spec.Models{
		Default: "synthetic",
		Sizes:   []spec.Size{{Name: sizeFull, Summary: "25.6M parameters"}, {Name: sizeTiny, Summary: "same graph, narrow"}},
		Seed:    archSeed,
	},
	Batch:      spec.Batches{loadgen.Offline: {CPU: 8, GPU: 32}, loadgen.MultiStream: {CPU: 8}},
	Options:    []spec.Option{{Name: "list", Usage: "image list file instead of DATA/val_map.txt"}},
	LogShape:   &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Float32, MinElems: 1, MaxElems: 1, MaxValue: 1000, AllowNegative: true},
	Compliance: []string{"TEST01", "TEST04"},
	Driver:     driver{},
}

// driver is the resnet50 benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return buildFile(path, size, seed) }

// Open resolves the data set and opens the model, checked against the
// contract; the framework warms it up five times (the reference predicts
// sample 0 five times before the test).
func (driver) Open(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
	data, err := dataDir(r.Data, r.CacheDir, r.Stderr)
	if err != nil {
		return nil, err
	}
	cfg := dataConfig{Dir: data, ListFile: r.Extra["list"], Count: r.Count, CacheDir: r.Cache, Warn: r.Stderr}
	ds, err := openDataset(cfg)
	if err != nil {
		return nil, err
	}
	cfg.Progress = r.Progress("loading samples", "images").Update
	qsl, err := newQSL(ds, cfg)
	if err != nil {
		return nil, err
	}
	sess, err := r.Engine.OpenSession(r.ModelPath, []string{ArgMaxName})
	if err != nil {
		return nil, err
	}
	m, err := New(sess, qsl.Sample)
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, r.ModelDesc)
	}
	return &spec.Instance{Model: m, QSL: qsl, Warmups: 5, Describe: r.Describe(ds.Len()), Close: sess.Close}, nil
}

// Score is accuracy-imagenet.py: top-1 of the logged predictions against
// the labels of the data set's val_map.txt.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	data, err := dataDir(req.Data, req.CacheDir, req.Stderr)
	if err != nil {
		return nil, err
	}
	return scoreTop1(req.Log, data, req.Extra["list"], req.Count, req.DType, req.Stderr)
}

// scoreTop1 scores an accuracy log whose responses have element type dtype
// ("": float32, the reference's; int32 and int64 are what MLCommons' C++
// harness writes); list, if set, replaces DATA/val_map.txt.
func scoreTop1(logPath, dataDir, list string, count int, dtype string, warn io.Writer) (*spec.Score, error) {
	if dtype == "" {
		dtype = "float32"
	}
	dt, err := accuracy.ParseDType(dtype)
	if err != nil {
		return nil, spec.UsageError("resnet50: --dtype: %v", err)
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
	return &spec.Score{Lines: []string{r.String()}}, nil
}

// Benchmark facts the descriptor needs (mlperf.conf's model name and the
// reference QSL's performance sample count); accuracy targets and latency
// bounds live in accuracy.Targets and mlperf.conf.
const (
	// benchmarkName is the benchmark's model name in mlperf.conf and user.conf.
	benchmarkName = "resnet50"
	// performanceSampleCount is what the reference QSL reports at most
	// (min(total, 500)); mlperf.conf's override (1024) takes precedence.
	performanceSampleCount = 500
	// synthSamples is the size of the synthetic data set `--data
	// synthetic` generates.
	synthSamples = 64
	// synthSeed is the seed of that data set.
	synthSeed = 1
)
