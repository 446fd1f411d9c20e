package compliance

import (
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/benchmark"
)

// AccuracyLogIn returns the accuracy log that path stands for: path
// itself, or the log LoadGen writes (benchmark.AccuracyLogName) inside it
// when path is a folder. A path that does not exist is returned as it is,
// for the reader to name.
func AccuracyLogIn(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return filepath.Join(path, benchmark.AccuracyLogName)
	}
	return path
}

// DefaultAuditConfig returns the audit.config that `mlperf compliance`
// writes into a compliance run's log folder, when that folder holds one
// as a regular file; else "" (no audit.config: the test's own defaults).
func DefaultAuditConfig(complianceDir string) string {
	p := filepath.Join(complianceDir, "audit.config")
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p
	}
	return ""
}

// Verdict is the word run_verification.py prints for the result: PASS or
// FAIL.
func (r Result) Verdict() string { return passWord(r.Pass()) }
