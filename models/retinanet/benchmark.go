package retinanet

// The retinanet benchmark as the framework runs it: its descriptor and driver
// (see package benchmark/spec).

import (
	"context"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/accuracy/coco"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/openimages"
	"github.com/mlperf-go/inference/loadgen"
)

// Benchmark facts (mlperf.conf and the submission checker's constants for
// retinanet).
const (
	// benchmarkName is the benchmark's model name in mlperf.conf and user.conf.
	benchmarkName = "retinanet"
	// performanceSampleCount is the most samples the QSL reports for
	// performance runs (mlperf.conf's override for retinanet is 64 too).
	performanceSampleCount = 64
	// synthSamples is the size of the data set `--data synthetic`
	// generates; SynthSeed its seed.
	synthSamples = 8
	synthSeed    = 1
)

// descriptor is the RetinaNet benchmark as the mlperf command runs it.
var descriptor = &spec.Benchmark{
	Name:       benchmarkName,
	Summary:    "RetinaNet ResNeXt50-32x4d FPN object detection on the OpenImages MLPerf subset (800x800, mAP)",
	ConfNames:  []string{benchmarkName},
	CheckerIDs: []string{"retinanet"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Server, loadgen.Offline},
	Dataset:    "openimages",
	Model: spec.Models{
		Default: "synthetic",
		Sizes: []spec.Size{
			{Name: sizeFull, Summary: "ResNeXt50-32x4d FPN, 37.2M weights (150 MB)"},
			{Name: sizeTiny, Summary: "the same graph with widths / 16, for tests"},
		},
		Seed: archSeed,
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
func (driver) BuildModel(path, size string, seed uint64) error { return build(path, size, seed) }

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(dataset)
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
	q, err := newQSL(ds, env.Cache, 0, env.Stderr)
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
	if note := r.UndefinedNote(ds.Annotations); note != "" {
		fmt.Fprintf(stderr, "retinanet: warning: %s\n", note)
	}
	text := r.Eval.Summary() + r.String() + "\n"
	return &spec.Score{Lines: []string{r.String()}, Text: text}, nil
}
