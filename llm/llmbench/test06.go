package llmbench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
)

// tesT06Result is the outcome of the TEST06 compliance checks on an
// accuracy log (MLCommons compliance/TEST06/run_verification.py).
type tesT06Result struct {
	Scenario string
	Samples  int // entries checked (every entry, duplicates included)
	// FirstTokenChecked is false in Offline, where the check is skipped.
	FirstTokenChecked bool
	FirstToken        bool // token_data equals the start of data
	EOS               bool // at most one trailing EOS
	Length            bool // token_count equals the number of ids
	// Failures names the first failing entries (at most 10).
	Failures []string
}

// Pass reports whether every check passed.
func (r tesT06Result) Pass() bool { return r.FirstToken && r.EOS && r.Length }

// String prints the result as run_verification.py writes
// verify_accuracy.txt.
func (r tesT06Result) String() string {
	var b strings.Builder
	if r.FirstTokenChecked {
		fmt.Fprintf(&b, "First token check pass: %s\n", pyBool(r.FirstToken))
	} else {
		b.WriteString("First token check pass: Skipped\n")
	}
	fmt.Fprintf(&b, "EOS check pass: %s\n", pyBool(r.EOS))
	fmt.Fprintf(&b, "Sample length check pass: %s\n", pyBool(r.Length))
	if r.Pass() {
		b.WriteString("TEST06 verification complete\n")
	} else {
		b.WriteString("TEST06 verification failed\n")
	}
	return b.String()
}

func pyBool(v bool) string {
	if v {
		return "True"
	}
	return "False"
}

// CheckTEST06 runs TEST06's checks over every entry of the accuracy log at
// path, reading the ids as dtype (int32 by default) with end-of-sequence id
// eos:
//   - first token (not in Offline): the ids of token_data equal the first
//     ids of data (an entry without token_data fails);
//   - EOS: data ends with at most one EOS (counted from the end, index 0
//     excluded, as the reference's loop);
//   - length: token_count equals the number of ids of data (an entry
//     without token_count fails).
//
// It returns an error only when the log cannot be read.
func CheckTEST06(path, scenario string, dtype accuracy.DType, eos int64) (tesT06Result, error) {
	if dtype == "" {
		dtype = accuracy.Int32
	}
	res := tesT06Result{Scenario: scenario, FirstTokenChecked: scenario != "Offline", FirstToken: true, EOS: true, Length: true}
	fail := func(format string, a ...any) {
		if len(res.Failures) < 10 {
			res.Failures = append(res.Failures, fmt.Sprintf(format, a...))
		}
	}
	r, err := accuracy.OpenLog(path)
	if err != nil {
		return res, err
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, err
		}
		res.Samples++
		data, err := accuracy.Decode(e.Data, dtype)
		if err != nil {
			return res, fmt.Errorf("llmbench: %s: qsl_idx %d: %w", path, e.QSLIdx, err)
		}
		// EOS: count the trailing run of EOS from the end (index 0 is
		// never looked at, as in eos_check).
		n := 0
		for i := len(data) - 1; i > 0 && data[i] == float64(eos); i-- {
			n++
		}
		if n >= 2 {
			res.EOS = false
			fail("qsl_idx %d: %d trailing EOS", e.QSLIdx, n)
		}
		if res.FirstTokenChecked {
			if e.TokenData == nil {
				res.FirstToken = false
				fail("qsl_idx %d: no token_data", e.QSLIdx)
			} else {
				first, err := accuracy.Decode(e.TokenData, dtype)
				if err != nil {
					return res, fmt.Errorf("llmbench: %s: qsl_idx %d: token_data: %w", path, e.QSLIdx, err)
				}
				for i := range min(len(first), len(data)) {
					if first[i] != data[i] {
						res.FirstToken = false
						fail("qsl_idx %d: token_data[%d] = %g, data[%d] = %g", e.QSLIdx, i, first[i], i, data[i])
						break
					}
				}
			}
		}
		if !e.HasTokens || e.TokenCount != len(data) {
			res.Length = false
			fail("qsl_idx %d: token_count %d (present %v), %d ids", e.QSLIdx, e.TokenCount, e.HasTokens, len(data))
		}
	}
	return res, nil
}

// WriteTEST06 runs the TEST06 checks on an accuracy log, prints them on
// stdout (failures on stderr) and writes them to
// outDir/TEST06/verify_accuracy.txt, as run_verification.py does; a failed
// check is an error.
func WriteTEST06(logPath, scenario, outDir string, dtype accuracy.DType, eos int64, stdout, stderr io.Writer) error {
	r, err := CheckTEST06(logPath, scenario, dtype, eos)
	if err != nil {
		return err
	}
	dir := filepath.Join(outDir, "TEST06")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("llmbench: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "verify_accuracy.txt"), []byte(r.String()), 0o644); err != nil {
		return fmt.Errorf("llmbench: %w", err)
	}
	fmt.Fprint(stdout, r.String())
	for _, f := range r.Failures {
		fmt.Fprintln(stderr, "TEST06:", f)
	}
	if !r.Pass() {
		return fmt.Errorf("TEST06 verification failed (%d entries of %s)", r.Samples, logPath)
	}
	return nil
}
