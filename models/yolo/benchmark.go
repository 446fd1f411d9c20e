package yolo

import (
	"context"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/coco"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/coco2017"
	"github.com/mlperf-go/inference/loadgen"
)

// Benchmark facts (mlperf.conf and the submission checker's constants for
// yolo-95 and yolo-99).
const (
	// benchmarkName is the benchmark's model name in mlperf.conf and user.conf.
	benchmarkName = "yolo"
	// performanceSampleCount is the most samples the QSL reports for
	// performance runs (the reference's min(count, 500); mlperf.conf's
	// override for yolo, 64, takes precedence).
	performanceSampleCount = 500
	// synthSamples is the size of the data set `--data synthetic`
	// generates; synthSeed its seed.
	synthSamples = 8
	synthSeed    = 1
)

// descriptor is the YOLO benchmark as the mlperf command runs it.
var descriptor = &spec.Benchmark{
	Name:       benchmarkName,
	Summary:    "YOLOv11-L object detection on the COCO val2017 safe subset (640x640 letterbox, Ultralytics NMS, mAP)",
	ConfNames:  []string{benchmarkName},
	CheckerIDs: []string{"yolo-95", "yolo-99"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Offline},
	Dataset:    "coco2017",
	Model: spec.Models{
		Default: "synthetic",
		Sizes: []spec.Size{
			{Name: sizeFull, Summary: "YOLO11-L, 25,372,160 parameters as Ultralytics counts them (101 MB)"},
			{Name: sizeTiny, Summary: "the same graph with widths / 4, for tests"},
		},
		Seed: archSeed,
	},
	Options: []spec.Option{{
		Name:  "annotations",
		Usage: "annotation file (default DATA/" + coco2017.AnnotationsPath + "; the reference's --annotation-file)",
	}},
	LogShape:   &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Float32, MinElems: 0, MaxElems: 7 * 300},
	Compliance: []string{"TEST01"},
	Driver:     driver{},
}

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(dataset)
}

// driver is the yolo benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder (build).
func (driver) BuildModel(path, size string, seed uint64) error { return build(path, size, seed) }

// CheckOptions implements spec.OptionChecker: the export takes one image
// per call, and there is no preprocessed cache.
func (driver) CheckOptions(o *spec.RunOptions) error {
	if o.Batch > 1 {
		return spec.UsageError("yolo: --batch %d: the YOLO11 export takes one image per call (input images [1 3 640 640]); use --batch 1 and --workers for parallel calls", o.Batch)
	}
	if o.Cache != "" {
		return spec.UsageError("yolo: --cache %s: yolo keeps no preprocessed cache (the reference letterboxes each image as it predicts); drop --cache", o.Cache)
	}
	return nil
}

// Open implements spec.Driver.
func (driver) Open(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
	ds, err := loadData(r.Data, r.Count, r.Extra["annotations"], r.CacheDir, r.Stderr)
	if err != nil {
		return nil, err
	}
	if r.Remote {
		// The reference's predict() runs NMS and rescaling with the
		// network; over a remote engine they stay on this (LoadGen) node,
		// which the Network division does not allow of a QDL.
		fmt.Fprintf(r.Stderr, "yolo: --backend %s runs the network on the server and NMS and box rescaling on this node; the Network division wants the SUT node to return the detections: not a conformant Network division run\n", r.Backend)
	}
	sess, err := r.Engine.OpenSession(r.ModelPath, nil)
	if err != nil {
		return nil, fmt.Errorf("yolo: open %s: %w", r.ModelPath, err)
	}
	q, err := newQSL(ds, 0)
	if err != nil {
		sess.Close()
		return nil, err
	}
	m, err := New(sess, q.Sample)
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, r.ModelDesc)
	}
	return &spec.Instance{
		Model:    m,
		QSL:      q,
		Describe: r.Describe(ds.Len()) + ", annotations " + ds.Annotations,
		Close:    sess.Close,
	}, nil
}

// Score implements spec.Driver: accuracy-coco.py on the log.
func (driver) Score(ctx context.Context, r *spec.ScoreRequest) (*spec.Score, error) {
	ds, err := loadData(r.Data, r.Count, r.Extra["annotations"], r.CacheDir, r.Stderr)
	if err != nil {
		return nil, err
	}
	return scoreDataset(r.Log, ds, r.Stderr)
}

// scoreDataset scores the log against the images of ds as
// tools/accuracy-coco.py does (the computation of accuracy-openimages.py,
// which coco.ScoreOpenImages reproduces): COCOeval's summarize() lines,
// then mAP=, then the counts the script prints with --verbose.
func scoreDataset(logPath string, ds *coco2017.Dataset, stderr io.Writer) (*spec.Score, error) {
	r, err := coco.ScoreOpenImages(logPath, ds.GT, coco.OpenImagesConfig{})
	if err != nil {
		return nil, fmt.Errorf("yolo: %w", err)
	}
	if r.Mismatches > 0 {
		fmt.Fprintf(stderr, "yolo: warning: %d detections carry an image index other than their qsl_idx (accuracy-coco.py prints an ERROR line for each and goes on)\n", r.Mismatches)
	}
	if r.UnknownCategory > 0 {
		fmt.Fprintf(stderr, "yolo: warning: %d detections have a category that is not in %s; they are not scored (COCOeval only evaluates the annotation file's categories)\n", r.UnknownCategory, ds.Annotations)
	}
	if r.Detections == 0 {
		fmt.Fprintln(stderr, "yolo: warning: no detections at all (accuracy-coco.py crashes here; the score is 0)")
	}
	// accuracy-coco.py --verbose prints these after the mAP line.
	verbose := fmt.Sprintf("found %d results\nfound %d images\nfound %d images with no results\nignored %d dupes\n", r.Images+r.Dupes, r.Images, r.NoResults, r.Dupes)
	return &spec.Score{Lines: []string{r.String()}, Text: r.Eval.Summary() + r.String() + "\n" + verbose}, nil
}
