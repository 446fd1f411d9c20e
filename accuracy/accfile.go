package accuracy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mlperf-go/inference/internal/pynum"
)

// AccuracyText is the content of accuracy.txt: the score lines as the
// reference scripts print them (one per line; e.g. Top1Result.String,
// squadeval.Result.String, auc.DLRMResult.String,
// dice.Result.String, rouge.Result.GPTJString or Llama2String,
// fid.SDXLResult.String), each ending in a newline. With hash non-empty it ends with a blank line and
// "hash=<hash>" as truncate_accuracy_log.py appends (the checker requires
// that line in a submission).
func AccuracyText(lines []string, hash string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(l, "\n"))
		b.WriteByte('\n')
	}
	if hash != "" {
		fmt.Fprintf(&b, "\nhash=%s\n", hash)
	}
	return b.String()
}

// WriteAccuracyFile writes AccuracyText(lines, hash) to path.
func WriteAccuracyFile(path string, lines []string, hash string) error {
	if err := os.WriteFile(path, []byte(AccuracyText(lines, hash)), 0o644); err != nil {
		return fmt.Errorf("accuracy: writing %w", err)
	}
	return nil
}

// LogHash is the SHA-256 (hex) of a file, as truncate_accuracy_log.py's
// get_hash computes it for mlperf_log_accuracy.json.
func LogHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("accuracy: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("accuracy: hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// PyFloatRepr formats x as Python's str() / repr() of a float (shortest
// round-trip digits, at least one decimal, exponent form outside
// [1e-4, 1e16)), as the reference scripts print their scores.
func PyFloatRepr(x float64) string { return pynum.FloatRepr(x) }
