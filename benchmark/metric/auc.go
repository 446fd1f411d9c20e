package metric

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/auc"
	"github.com/mlperf-go/inference/preprocess"
)

func init() {
	Register("auc", "DLRMv2 ROC AUC of an accuracy log or of (prediction, label) pairs (accuracy-dlrm.py)", metricAUC)
}

func metricAUC(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy --metric auc", flag.ContinueOnError)
	logPath := fs.String("log", "", "mlperf_log_accuracy.json whose responses are float32 (prediction, label) pairs")
	pairs := fs.String("pairs", "", "instead of --log: an N×2 .npy of (prediction, label) rows")
	dtype := fs.String("dtype", "float32", "response type of --log: float32 (the reference), int32 or int64")
	samples := fs.Int("samples", 0, "with --log: the number of aggregated samples; a larger qsl_idx is an error (330067 for the full data set; 0: no check)")
	var mo Out
	mo.Flags(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	var r auc.DLRMResult
	switch {
	case (*logPath == "") == (*pairs == ""):
		return usageError("give one of --log FILE or --pairs FILE.npy")
	case *logPath != "":
		dt, err := accuracy.ParseDType(*dtype)
		if err != nil {
			return usageError("--dtype: %v", err)
		}
		if r, err = auc.ScoreDLRM(*logPath, dt, *samples); err != nil {
			return err
		}
	default:
		a, err := preprocess.LoadNpyArray(*pairs)
		if err != nil {
			return err
		}
		if len(a.Shape) != 2 || a.Shape[1] != 2 {
			return fmt.Errorf("accuracy: %s: shape %v, want (N, 2) rows of (prediction, label)", *pairs, a.Shape)
		}
		v := a.Float64s()
		p, l := make([]float32, a.Shape[0]), make([]float32, a.Shape[0])
		for i := range p {
			p[i], l[i] = float32(v[2*i]), float32(v[2*i+1])
		}
		if r, err = auc.ScoreDLRMPairs(p, l, 1); err != nil {
			return fmt.Errorf("%w (%s)", err, *pairs)
		}
	}
	return mo.Finish(stdout, []string{r.String()})
}
