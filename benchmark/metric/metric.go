// Package metric scores raw inputs with one metric of the suite's
// benchmarks, for `mlperf accuracy --metric NAME`: top-1, COCO mAP, SQuAD
// EM/F1, ROUGE, ROC AUC, DICE, FID and CLIP. Each takes its inputs as a
// typed options struct and returns the score lines the reference's
// accuracy script prints (a spec.Score, recorded like any other score by
// benchmark.Record); the command line parses the flags into the options.
// Errors caused by missing or inconsistent options match spec.ErrUsage.
package metric

import (
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
)

var usageError = spec.UsageError

// pyRepr is Python's str() of a float64.
func pyRepr(x float64) string { return accuracy.PyFloatRepr(x) }

// lines is a score of these lines.
func lines(l ...string) *spec.Score { return &spec.Score{Lines: l} }

// textLines is a score whose lines are text's.
func textLines(text string) *spec.Score {
	return &spec.Score{Lines: strings.Split(strings.TrimRight(text, "\n"), "\n")}
}
