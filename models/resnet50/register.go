package resnet50

// The resnet50 benchmark's descriptor and the imagenet data set's
// commands, as the benchmark registry runs them (see package benchmark/spec).

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(Descriptor)
	spec.RegisterDataset(Imagenet)
}

// Descriptor is ResNet50-v1.5 on ImageNet 2012 (top-1) as the registry
// runs it: a tensor model in the generic harness.
var Descriptor = &spec.Benchmark{
	Name:       Name,
	Summary:    "ResNet50-v1.5 image classification (ImageNet 2012, top-1)",
	ConfNames:  []string{Name},
	CheckerIDs: []string{"resnet"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Server, loadgen.Offline},
	Dataset:    "imagenet",
	Model: spec.Models{
		Default: "synthetic",
		Sizes:   []spec.Size{{Name: SizeFull, Summary: "25.6M parameters"}, {Name: SizeTiny, Summary: "same graph, narrow"}},
		Seed:    ArchSeed,
	},
	Batch:      spec.Batches{loadgen.Offline: {CPU: 8, GPU: 32}, loadgen.MultiStream: {CPU: 8}},
	Options:    []spec.Option{{Name: "list", Usage: "image list file instead of DATA/val_map.txt"}},
	LogShape:   &accuracy.LogShape{Benchmark: Name, DType: accuracy.Float32, MinElems: 1, MaxElems: 1, MaxValue: 1000, AllowNegative: true},
	Compliance: []string{"TEST01", "TEST04"},
	Driver:     driver{},
}

// driver is the resnet50 benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return BuildFile(path, size, seed) }

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

// Open resolves the data set and opens the model, checked against the
// contract; the framework warms it up five times (the reference predicts
// sample 0 five times before the test).
func (driver) Open(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
	data, err := dataDir(r.Data, r.CacheDir, r.Stderr)
	if err != nil {
		return nil, err
	}
	cfg := DataConfig{Dir: data, ListFile: r.Extra["list"], Count: r.Count, CacheDir: r.Cache, Warn: r.Stderr}
	ds, err := OpenDataset(cfg)
	if err != nil {
		return nil, err
	}
	cfg.Progress = r.Progress("loading samples", "images").Update
	qsl, err := NewQSL(ds, cfg)
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

// Imagenet is the ImageNet 2012 validation set's commands: synth, verify
// and preprocess (the reference's preprocessed .npy cache).
var Imagenet = &spec.Dataset{
	Name:       "imagenet",
	DataWant:   "the ImageNet validation folder (val_map.txt and the JPEG files it lists)",
	Download:   "datasets/imagenet/download_dataset.sh",
	Summary:    "ImageNet 2012 validation (50000 JPEGs and val_map.txt)",
	Synth:      synthImagenet,
	Verify:     verifyImagenet,
	Preprocess: preprocessImagenet,
}

func synthImagenet(req *spec.DatasetRequest) error {
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
func verifyImagenet(req *spec.DatasetRequest) error {
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
func preprocessImagenet(req *spec.DatasetRequest) error {
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
	p := req.StartProgress("preprocess", "images")
	err = WriteCache(req.Context(), ds, out, req.Workers, p.Update)
	p.Done()
	if err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Fprintf(req.Stdout, "preprocessed %d images into %s in %.1fs (%.1f images/s)\n", ds.Len(), out, el.Seconds(), float64(ds.Len())/el.Seconds())
	return nil
}
