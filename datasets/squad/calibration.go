package squad

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// The MLPerf calibration lists of inference/calibration/SQuAD-v1.1 (use at
// most one of them, per its README).
var (
	//go:embed calibration/SQuAD-v1.1_bert_calibration_features.txt
	calibrationFeatures string
	//go:embed calibration/SQuAD-v1.1_bert_calibration_qas_ids.txt
	calibrationQasIDs string
)

// MD5s of the two calibration files, as published.
const (
	CalibrationFeaturesMD5 = "81fa69eb66f72831edccb624133bb4b3"
	CalibrationQasIDsMD5   = "1e44e78ac31349a6c5a688f629449a74"
)

// CalibrationFeatures returns the 100 feature indices (QSL indices of the
// dev set's features with max_seq_length 384, doc_stride 128) of
// bert_calibration_features.txt, in file order.
func CalibrationFeatures() ([]int, error) {
	lines := strings.Fields(calibrationFeatures)
	out := make([]int, len(lines))
	for i, l := range lines {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("squad: calibration features line %d: bad index %q", i+1, l)
		}
		out[i] = n
	}
	return out, nil
}

// CalibrationQasIDs returns the 100 question ids of
// bert_calibration_qas_ids.txt, in file order.
func CalibrationQasIDs() []string {
	return strings.Fields(calibrationQasIDs)
}
