package reasoneval

import (
	"errors"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/accuracy"
)

// Output is one logged response: the row it answers (its qsl_idx) and the
// token ids the SUT returned.
type Output struct {
	Row int
	IDs []int32
}

// ReadOutputs reads an accuracy log of token ids (dtype int32, what the
// references' SUTs write, or int64) for a data set of rows rows: with
// unique, the first entry of each qsl_idx in log order (DeepSeek-R1's
// eval_accuracy.py skips duplicates), else every entry (gpt-oss's
// eval_mlperf_accuracy.py). An id outside [0, vocab) or a qsl_idx outside
// the data set is an error naming the log: the log is not from this
// benchmark's data set, or not decoded with the right dtype.
func ReadOutputs(logPath string, dtype accuracy.DType, unique bool, rows, vocab int) ([]Output, error) {
	if dtype == "" {
		dtype = accuracy.Int32
	}
	if dtype != accuracy.Int32 && dtype != accuracy.Int64 {
		return nil, fmt.Errorf("reasoning: dtype %s: token ids are int32 or int64", dtype)
	}
	var out []Output
	add := func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(rows) {
			return fmt.Errorf("reasoning: accuracy log %s: qsl_idx %d, but the data set has %d rows (is the log from this data set?)", logPath, e.QSLIdx, rows)
		}
		vals, err := accuracy.Decode(e.Data, dtype)
		if err != nil {
			return fmt.Errorf("reasoning: accuracy log %s: qsl_idx %d: %w", logPath, e.QSLIdx, err)
		}
		ids := make([]int32, len(vals))
		for i, v := range vals {
			if v < 0 || v >= float64(vocab) {
				return fmt.Errorf("reasoning: accuracy log %s: qsl_idx %d: id %v is outside the vocabulary of %d (is the log from this model, and the dtype right?)", logPath, e.QSLIdx, v, vocab)
			}
			ids[i] = int32(v)
		}
		out = append(out, Output{Row: int(e.QSLIdx), IDs: ids})
		return nil
	}
	if unique {
		if _, err := accuracy.ReadUnique(logPath, add); err != nil {
			return nil, err
		}
	} else {
		r, err := accuracy.OpenLog(logPath)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		for {
			e, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			if err := add(e); err != nil {
				return nil, err
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("reasoning: accuracy log %s has no entries", logPath)
	}
	return out, nil
}
