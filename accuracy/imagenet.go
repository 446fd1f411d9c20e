package accuracy

import (
	"fmt"
	"math"
)

// ResNet50Target is the closed-division top-1 target in percent (99% of
// 76.46), from Targets.
var ResNet50Target, _ = MinTarget("resnet", "acc")

// Top1Result is an ImageNet top-1 score.
type Top1Result struct {
	Good, Total int
	Dupes       int
}

// Accuracy is the top-1 accuracy in percent.
func (r Top1Result) Accuracy() float64 {
	if r.Total == 0 {
		return 0
	}
	return 100 * float64(r.Good) / float64(r.Total)
}

// String prints the score as accuracy-imagenet.py does.
func (r Top1Result) String() string {
	return fmt.Sprintf("accuracy=%.3f%%, good=%d, total=%d", r.Accuracy(), r.Good, r.Total)
}

// Pass reports whether the score meets target (percent).
func (r Top1Result) Pass(target float64) bool { return r.Accuracy() >= target }

// Top1 scores an ImageNet accuracy log as accuracy-imagenet.py: for the
// first entry of each qsl_idx, the first element of its data decoded as d
// (truncated to an integer) is compared with labels[qsl_idx].
func Top1(logPath string, labels []int, d DType) (Top1Result, error) {
	var r Top1Result
	dupes, err := ReadUnique(logPath, func(e Entry) error {
		if e.QSLIdx >= uint64(len(labels)) {
			return fmt.Errorf("accuracy: %s: seq_id %d: qsl_idx %d is outside the data set of %d images (was the log made with another val_map.txt?)", logPath, e.SeqID, e.QSLIdx, len(labels))
		}
		v, err := Decode(e.Data, d)
		if err != nil {
			return fmt.Errorf("accuracy: %s: seq_id %d: %w", logPath, e.SeqID, err)
		}
		if len(v) == 0 {
			return fmt.Errorf("accuracy: %s: seq_id %d: empty response", logPath, e.SeqID)
		}
		r.Total++
		if !math.IsNaN(v[0]) && int(v[0]) == labels[e.QSLIdx] {
			r.Good++
		}
		return nil
	})
	r.Dupes = dupes
	if err == nil && r.Total == 0 {
		err = EmptyLogError(logPath)
	}
	return r, err
}
