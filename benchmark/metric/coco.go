package metric

import (
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/cocojson"
	"io"

	"github.com/mlperf-go/inference/accuracy/coco"
)

// COCOOptions are the inputs of COCO.
type COCOOptions struct {
	// Log is the RetinaNet mlperf_log_accuracy.json; Annotations the
	// COCO-format annotation file (qsl_idx i is its i-th image).
	Log, Annotations string
	// UseInvMap maps label k to ([0] + the file's category ids)[k] (the
	// script's --use-inv-map); NumPy1 scales boxes as numpy 1.x.
	UseInvMap, NumPy1 bool
	// Workers is the categories evaluated at once (0: all cores).
	Workers int
	// Warn receives the script's warnings and the counts (nil: none).
	Warn io.Writer
}

// COCO is tools/accuracy-openimages.py: its lines are COCOeval's 12
// summarize() lines and then mAP=XX.XXX%.
func COCO(o COCOOptions) (*spec.Score, error) {
	if o.Log == "" || o.Annotations == "" {
		return nil, usageError("--log FILE and --annotations FILE are required")
	}
	warn := o.Warn
	if warn == nil {
		warn = io.Discard
	}
	gt, err := cocojson.ReadGroundTruth(o.Annotations)
	if err != nil {
		return nil, err
	}
	r, err := coco.ScoreOpenImages(o.Log, gt, coco.OpenImagesConfig{UseInvMap: o.UseInvMap, NumPy1: o.NumPy1, Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	if r.Mismatches > 0 {
		fmt.Fprintf(warn, "warning: %d records carry an image index other than their qsl_idx (accuracy-openimages.py prints an ERROR line for each and goes on)\n", r.Mismatches)
	}
	if r.UnknownCategory > 0 {
		fmt.Fprintf(warn, "warning: %d detections have a category that is not in %s; they are not scored (COCOeval only evaluates the annotation file's categories)\n", r.UnknownCategory, o.Annotations)
	}
	if r.Detections == 0 {
		fmt.Fprintln(warn, "warning: no detections at all (accuracy-openimages.py crashes here; the score is 0)")
	}
	fmt.Fprintf(warn, "%d images (%d with no detections), %d detections, %d repeated entries ignored\n", r.Images, r.NoResults, r.Detections, r.Dupes)
	if note := r.UndefinedNote(o.Annotations); note != "" {
		fmt.Fprintf(warn, "warning: %s\n", note)
	}
	return textLines(r.Eval.Summary() + r.String() + "\n"), nil
}
