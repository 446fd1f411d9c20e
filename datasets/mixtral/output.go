package mixtral

import "slices"

// MBXPStop is the token sequence after which an MBXP output is cut:
// "\n```\n" in the Mixtral tokenizer (dataset.py's mbxp_stop).
var MBXPStop = []int32{13, 13940, 28832, 13}

// TrimOutput is what the reference's SUT does to a sample's generated ids
// before it completes the sample (mlcommons/inference
// language/mixtral-8x7b/dataset.py, postProcess): every trailing EOS (2)
// and padding (0) id removed, then, for an MBXP row, everything after the
// first MBXPStop cut. The result's length is the token count reported to
// LoadGen. ids is not changed; the result may share its memory.
func TrimOutput(dataset string, ids []int32) []int32 {
	n := len(ids)
	for n > 0 && (ids[n-1] == 2 || ids[n-1] == 0) {
		n--
	}
	ids = ids[:n]
	if dataset == MBXP {
		for i := 0; i+len(MBXPStop) <= len(ids); i++ {
			if slices.Equal(ids[i:i+len(MBXPStop)], MBXPStop) {
				return ids[:i+len(MBXPStop)]
			}
		}
	}
	return ids
}
