package metric

import (
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/auc"
	"github.com/mlperf-go/inference/preprocess"
)

// AUCOptions are the inputs of AUC: one of Log and Pairs.
type AUCOptions struct {
	// Log is an mlperf_log_accuracy.json whose responses are (prediction,
	// label) pairs of type DType (float32, the reference's, when "").
	Log, DType string
	// Samples, with Log, is the number of aggregated samples; a larger
	// qsl_idx is an error (0: no check).
	Samples int
	// Pairs is instead an N×2 .npy of (prediction, label) rows.
	Pairs string
}

// AUC is accuracy-dlrm.py's ROC AUC.
func AUC(o AUCOptions) (*spec.Score, error) {
	var r auc.DLRMResult
	switch {
	case (o.Log == "") == (o.Pairs == ""):
		return nil, usageError("give one of --log FILE or --pairs FILE.npy")
	case o.Log != "":
		if o.DType == "" {
			o.DType = "float32"
		}
		dt, err := accuracy.ParseDType(o.DType)
		if err != nil {
			return nil, usageError("--dtype: %v", err)
		}
		if r, err = auc.ScoreDLRM(o.Log, dt, o.Samples); err != nil {
			return nil, err
		}
	default:
		a, err := preprocess.LoadNpyArray(o.Pairs)
		if err != nil {
			return nil, err
		}
		if len(a.Shape) != 2 || a.Shape[1] != 2 {
			return nil, fmt.Errorf("accuracy: %s: shape %v, want (N, 2) rows of (prediction, label)", o.Pairs, a.Shape)
		}
		v := a.Float64s()
		p, l := make([]float32, a.Shape[0]), make([]float32, a.Shape[0])
		for i := range p {
			p[i], l[i] = float32(v[2*i]), float32(v[2*i+1])
		}
		if r, err = auc.ScoreDLRMPairs(p, l, 1); err != nil {
			return nil, fmt.Errorf("%w (%s)", err, o.Pairs)
		}
	}
	return lines(r.String()), nil
}
