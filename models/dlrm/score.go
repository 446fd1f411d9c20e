package dlrm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/auc"
	"github.com/mlperf-go/inference/datasets/criteo"
)

// scorePredictions scores an accuracy log whose responses hold one
// prediction per row (of type dt), as accuracy-dlrm.py does with
// --day-23-file: the trace's sizes give each sample's rows, the labels
// are the first tab-separated field of the raw day-23 TSV's lines, and
// the targets follow the log's order of first-seen qsl_idx. A trace that
// does not have one sample per logged sample gets the script's warning
// on warn.
func scorePredictions(logPath string, dt accuracy.DType, day23, tracePath string, warn io.Writer) (auc.DLRMResult, error) {
	var r auc.DLRMResult
	var preds []float32
	var order []uint64
	dupes, err := accuracy.ReadUnique(logPath, func(e accuracy.Entry) error {
		v, err := accuracy.Decode(e.Data, dt)
		if err != nil {
			return fmt.Errorf("dlrm: %s: seq_id %d (qsl_idx %d): %w", logPath, e.SeqID, e.QSLIdx, err)
		}
		for _, x := range v {
			preds = append(preds, float32(x))
		}
		order = append(order, e.QSLIdx)
		return nil
	})
	r.Dupes = dupes
	if err != nil {
		return r, err
	}
	tr, err := criteo.ReadTrace(tracePath)
	if err != nil {
		return r, err
	}
	if tr.Len() != len(order) {
		fmt.Fprintf(warn, "Warning: number of samples in trace file (%d) does not match number of samples (%d) in loadgen accuracy log!\n", tr.Len(), len(order))
	}
	truth, err := readDay23Labels(day23, tr.Offsets[tr.Len()])
	if err != nil {
		return r, err
	}
	labels := make([]float32, 0, len(preds))
	for _, q := range order {
		if q >= uint64(tr.Len()) {
			return r, fmt.Errorf("dlrm: %s: qsl_idx %d is outside the %d samples of %s", logPath, q, tr.Len(), tracePath)
		}
		s, e := tr.Rows(int(q))
		if e > len(truth) {
			return r, fmt.Errorf("dlrm: %s has %d lines; sample %d needs rows up to %d", day23, len(truth), q, e)
		}
		labels = append(labels, truth[s:e]...)
	}
	if len(labels) != len(preds) {
		return r, fmt.Errorf("dlrm: %s holds %d predictions but its samples cover %d rows of %s (is the log one of predictions only, and the trace the run's?)", logPath, len(preds), len(labels), tracePath)
	}
	res, err := auc.ScoreDLRMPairs(preds, labels, len(order))
	res.Dupes = dupes
	return res, err
}

// readDay23Labels reads the label (first tab-separated field, an integer)
// of the first n lines of a raw Criteo TSV.
func readDay23Labels(path string, n int) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dlrm: --day-23-file: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	out := make([]float32, 0, min(n, 1<<24))
	for line := 1; len(out) < n; line++ {
		b, err := br.ReadSlice('\n')
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return nil, fmt.Errorf("dlrm: %s: %w", path, err)
		}
		field, _, _ := bytes.Cut(b, []byte{'\t'})
		v, perr := strconv.Atoi(string(bytes.TrimSpace(field)))
		if perr != nil {
			return nil, fmt.Errorf("dlrm: %s line %d: label %q is not an integer (want the raw day_23 TSV)", path, line, field)
		}
		for err == bufio.ErrBufferFull { // a long line: skip its rest
			_, err = br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("dlrm: %s: %w", path, err)
		}
		out = append(out, float32(v))
		if err == io.EOF {
			break
		}
	}
	return out, nil
}
