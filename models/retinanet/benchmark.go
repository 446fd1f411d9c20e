package retinanet

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/mlperf-go/inference/accuracy/coco"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/openimages"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

// Benchmark facts (mlperf.conf and the submission checker's constants for
// retinanet).
const (
	// Name is the benchmark's model name in mlperf.conf and user.conf.
	Name = "retinanet"
	// PerformanceSampleCount is the most samples the QSL reports for
	// performance runs (mlperf.conf's override for retinanet is 64 too).
	PerformanceSampleCount = 64
	// SynthSamples is the size of the data set `--data synthetic`
	// generates; SynthSeed its seed.
	SynthSamples = 8
	SynthSeed    = 1
)

// Descriptor is the RetinaNet benchmark as the mlperf command runs it.
var Descriptor = &spec.Benchmark{
	Name:       Name,
	Summary:    "RetinaNet ResNeXt50-32x4d FPN object detection on the OpenImages MLPerf subset (800x800, mAP)",
	ConfNames:  []string{Name},
	CheckerIDs: []string{"retinanet"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Server, loadgen.Offline},
	Dataset:    "openimages",
	Model: spec.Models{
		Default: "synthetic",
		Sizes: []spec.Size{
			{Name: SizeFull, Summary: "ResNeXt50-32x4d FPN, 37.2M weights (150 MB)"},
			{Name: SizeTiny, Summary: "the same graph with widths / 16, for tests"},
		},
		Seed: ArchSeed,
	},
	Options: []spec.Option{{
		Name:  "annotations",
		Usage: "annotation file (default DATA/" + openimages.AnnotationsPath + "; the reference's --dataset-list)",
	}},
	Compliance: []string{"TEST01"},
	Driver:     driver{},
}

// driver is the retinanet benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder (Build).
func (driver) BuildModel(path, size string, seed uint64) error { return Build(path, size, seed) }

// Dataset is the OpenImages data set's commands.
var Dataset = &spec.Dataset{
	Name:       "openimages",
	DataWant:   "the OpenImages MLPerf folder (annotations/openimages-mlperf.json and validation/data/*.jpg)",
	Download:   "models/retinanet/download_dataset.sh",
	Summary:    "OpenImages v6 MLPerf validation subset (24781 images, COCO-format annotations)",
	Synth:      synthCommand,
	Verify:     verifyCommand,
	Preprocess: preprocessCommand,
	Options: []spec.Option{
		{Name: "annotations", Usage: "annotation file (default DATA/" + openimages.AnnotationsPath + ")"},
	},
}

func init() {
	spec.Register(Descriptor)
	spec.RegisterDataset(Dataset)
}

// synthMu serialises the writing of the synthetic data set.
var synthMu sync.Mutex

// loadData resolves --data (a folder or "synthetic") and loads it.
func loadData(data string, count int, annotations, cacheDir string, warn io.Writer) (*openimages.Dataset, error) {
	dir := data
	if data == "synthetic" {
		dir = filepath.Join(cacheDir, "openimages-synthetic")
		synthMu.Lock()
		ds, err := openimages.Load(dir, openimages.Options{Warn: io.Discard})
		if err != nil || ds.Len() != SynthSamples || len(ds.Missing) > 0 {
			fmt.Fprintf(warn, "retinanet: writing the synthetic OpenImages data set (%d images) into %s\n", SynthSamples, dir)
			err = openimages.Synth(dir, openimages.SynthConfig{N: SynthSamples, Seed: SynthSeed})
		}
		synthMu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("retinanet: %w", err)
		}
		annotations = ""
	}
	ds, err := openimages.Load(dir, openimages.Options{Annotations: annotations, Count: count, Warn: warn})
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	return ds, nil
}

// CachePreprocessing describes Preprocess in the fingerprint of a sample
// cache (harness.CacheStamp); change it whenever cached samples would
// change.
var CachePreprocessing = fmt.Sprintf("retinanet openimages resize v1 float32%v", SampleShape)

// openCache binds dir as ds's sample cache (harness.OpenNpyCache: a cache
// made from another data set or preprocessing is refused) and wraps load
// in it. warn receives the note on a cache made by another tool (nil:
// os.Stderr).
func openCache(ds *openimages.Dataset, dir string, load harness.Loader[[]float32], warn io.Writer) (harness.Loader[[]float32], error) {
	src, err := harness.SourceFingerprint(ds.Annotations, nil)
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	l, err := harness.OpenNpyCache(context.Background(), harness.NpyCacheConfig{
		Dir: dir, Name: func(i int) string { return ds.GT.Images[i].FileName },
		Stamp: harness.CacheStamp{Preprocessing: CachePreprocessing, Source: src, SourceName: ds.Annotations},
		Total: ds.Len(), Shape: SampleShape, Load: load, Warn: warn,
	})
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	return l, nil
}

// NewQSL returns an in-memory QSL over ds whose LoadSamples preprocesses
// the images (Preprocess) or reads them from cacheDir ("" for none; see
// openCache, which notes a cache made by another tool on warn).
func NewQSL(ds *openimages.Dataset, cacheDir string, workers int, warn io.Writer) (*harness.QSL[[]float32], error) {
	load, release := harness.PooledFloat32(SampleLen, func(_ context.Context, buf []float32, i int) error {
		return PreprocessInto(buf, ds.ImagePath(i))
	})
	if cacheDir != "" {
		var err error
		if load, err = openCache(ds, cacheDir, load, warn); err != nil {
			return nil, err
		}
	}
	q, err := harness.NewQSL(harness.QSLConfig[[]float32]{
		Total:       ds.Len(),
		Performance: min(ds.Len(), PerformanceSampleCount),
		Load:        load,
		Workers:     workers,
		Release:     release,
	})
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	return q, nil
}

// CheckOptions implements spec.OptionChecker: the model takes one image
// per call.
func (driver) CheckOptions(o *spec.RunOptions) error {
	if o.Batch > 1 {
		return spec.UsageError("retinanet: --batch %d: the RetinaNet model takes one image per call (input images [1 3 800 800], detections without a batch dimension); use --batch 1 and --workers for parallel calls", o.Batch)
	}
	return nil
}

// Open implements spec.Driver.
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (*spec.Instance, error) {
	ds, err := loadData(env.Data, env.Count, env.Extra["annotations"], env.CacheDir, env.Stderr)
	if err != nil {
		return nil, err
	}
	sess, err := env.Engine.OpenSession(env.ModelPath, nil)
	if err != nil {
		return nil, fmt.Errorf("retinanet: open %s: %w", env.ModelPath, err)
	}
	q, err := NewQSL(ds, env.Cache, 0, env.Stderr)
	if err != nil {
		sess.Close()
		return nil, err
	}
	m, err := New(sess, q.Sample)
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, env.ModelDesc)
	}
	return &spec.Instance{
		Model:    m,
		QSL:      q,
		Describe: fmt.Sprintf("retinanet: model %s, %d images of %s, batch 1, %d worker(s), %s", env.ModelPath, ds.Len(), ds.Annotations, env.Workers, env.Backend),
		Close:    sess.Close,
	}, nil
}

// Score implements spec.Driver: accuracy-openimages.py on the log.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	stderr := req.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	ds, err := loadData(req.Data, req.Count, req.Extra["annotations"], req.CacheDir, stderr)
	if err != nil {
		return nil, err
	}
	return scoreDataset(req.Log, ds, stderr)
}

// scoreDataset scores the log against the images of ds as
// tools/accuracy-openimages.py does: COCOeval's summarize() lines, then
// mAP=. Warnings go to stderr.
func scoreDataset(logPath string, ds *openimages.Dataset, stderr io.Writer) (*spec.Score, error) {
	r, err := coco.ScoreOpenImages(logPath, ds.GT, coco.OpenImagesConfig{})
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	if r.Mismatches > 0 {
		fmt.Fprintf(stderr, "retinanet: warning: %d detections carry an image index other than their qsl_idx (accuracy-openimages.py prints an ERROR line for each and goes on)\n", r.Mismatches)
	}
	if r.UnknownCategory > 0 {
		fmt.Fprintf(stderr, "retinanet: warning: %d detections have a category that is not in %s; they are not scored (COCOeval only evaluates the annotation file's categories)\n", r.UnknownCategory, ds.Annotations)
	}
	if r.Detections == 0 {
		fmt.Fprintln(stderr, "retinanet: warning: no detections at all (accuracy-openimages.py crashes here; the score is 0)")
	}
	fmt.Fprintf(stderr, "retinanet: %d images (%d with no detections), %d detections, %d repeated entries ignored\n", r.Images, r.NoResults, r.Detections, r.Dupes)
	text := r.Eval.Summary() + r.String() + "\n"
	return &spec.Score{Lines: []string{r.String()}, Text: text}, nil
}

func synthCommand(req *spec.DatasetRequest) error {
	if req.Out == "" {
		return spec.UsageError("openimages: synth: -o DIR is required")
	}
	n, seed := req.N, req.Seed
	if n == 0 {
		n = SynthSamples
	}
	if seed == 0 {
		seed = SynthSeed
	}
	if err := openimages.Synth(req.Out, openimages.SynthConfig{N: n, Seed: seed}); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d images and %s under %s\n", n, openimages.AnnotationsPath, req.Out)
	return nil
}

func verifyCommand(req *spec.DatasetRequest) error {
	if req.Data == "" {
		return spec.UsageError("openimages: verify: --data DIR is required")
	}
	expect := openimages.Size
	if req.NSet {
		expect = req.N
	}
	r, err := openimages.Verify(req.Data, req.Extra["annotations"], req.Workers)
	if err != nil {
		return err
	}
	fmt.Fprint(req.Stdout, r.String())
	if !r.OK(expect) {
		if expect > 0 && r.Listed != expect {
			return fmt.Errorf("openimages: %s lists %d images, want %d (-n 0 accepts any count)", r.Annotations, r.Listed, expect)
		}
		return fmt.Errorf("openimages: %s does not verify (see above)", req.Data)
	}
	fmt.Fprintln(req.Stdout, "OK")
	return nil
}

func preprocessCommand(req *spec.DatasetRequest) error {
	if req.Data == "" {
		return spec.UsageError("openimages: preprocess: --data DIR is required")
	}
	ds, err := openimages.Load(req.Data, openimages.Options{Annotations: req.Extra["annotations"], Count: req.Count, Warn: req.Stderr})
	if err != nil {
		return err
	}
	out := req.Out
	if out == "" {
		// Beside the images, where --cache finds them by file name.
		out = filepath.Join(req.Data, filepath.FromSlash(openimages.ImagesPath))
	}
	if _, err := openCache(ds, out, func(_ context.Context, i int) ([]float32, error) { return Preprocess(ds.ImagePath(i)) }, req.Stderr); err != nil {
		return err
	}
	p := req.StartProgress("preprocessing", "images")
	err = WriteCache(req.Context(), ds, out, req.Workers, func(done, total int) { p.Update(done, total) })
	p.Done()
	if err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d preprocessed images (float32 [3 800 800] .npy, <file_name>.npy) under %s\n", ds.Len(), out)
	return nil
}
