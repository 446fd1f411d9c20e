package metric

import (
	"context"
	"flag"
	"fmt"
	"github.com/mlperf-go/inference/datasets/cocojson"
	"io"
	"os"

	"github.com/mlperf-go/inference/accuracy/coco"
)

func init() {
	Register("coco", "COCO bbox mAP of a RetinaNet log (accuracy-openimages.py, pycocotools COCOeval)", metricCOCO)
}

// metricCOCO is `mlperf accuracy --metric coco`: what
// tools/accuracy-openimages.py prints, the 12 summarize() lines and then
// mAP=XX.XXX%; --out gets the same lines.
func metricCOCO(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy --metric coco", flag.ContinueOnError)
	logPath := fs.String("log", "", "mlperf_log_accuracy.json (required)")
	ann := fs.String("annotations", "", "COCO-format annotation file, e.g. openimages-mlperf.json (required); qsl_idx i is its i-th image")
	out := fs.String("out", "", "also write the lines to this file (accuracy.txt for a submission)")
	invMap := fs.Bool("use-inv-map", false, "map label k to ([0] + the file's category ids)[k] (the script's --use-inv-map)")
	numpy1 := fs.Bool("numpy1", false, "scale boxes as numpy 1.x (float64) instead of numpy >= 2 (float32, NEP 50)")
	workers := fs.Int("workers", 0, "categories evaluated at once (0: all cores)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *logPath == "" || *ann == "" {
		return usageError("--log FILE and --annotations FILE are required")
	}
	gt, err := cocojson.ReadGroundTruth(*ann)
	if err != nil {
		return err
	}
	r, err := coco.ScoreOpenImages(*logPath, gt, coco.OpenImagesConfig{UseInvMap: *invMap, NumPy1: *numpy1, Workers: *workers})
	if err != nil {
		return err
	}
	if r.Mismatches > 0 {
		fmt.Fprintf(stderr, "warning: %d records carry an image index other than their qsl_idx (accuracy-openimages.py prints an ERROR line for each and goes on)\n", r.Mismatches)
	}
	if r.UnknownCategory > 0 {
		fmt.Fprintf(stderr, "warning: %d detections have a category that is not in %s; they are not scored (COCOeval only evaluates the annotation file's categories)\n", r.UnknownCategory, *ann)
	}
	if r.Detections == 0 {
		fmt.Fprintln(stderr, "warning: no detections at all (accuracy-openimages.py crashes here; the score is 0)")
	}
	text := r.Eval.Summary() + r.String() + "\n"
	fmt.Fprint(stdout, text)
	fmt.Fprintf(stderr, "%d images (%d with no detections), %d detections, %d repeated entries ignored\n", r.Images, r.NoResults, r.Detections, r.Dupes)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
			return fmt.Errorf("accuracy: %w", err)
		}
	}
	return nil
}
