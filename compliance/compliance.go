// Package compliance runs and verifies the MLPerf Inference compliance
// tests TEST01 (accuracy in performance mode), TEST04 (no caching),
// TEST06 (LLM output consistency), TEST07 (accuracy in performance mode
// over a whole compliance set, held to a threshold) and TEST09 (mean
// output length within bounds) as mlcommons/inference compliance/TEST0X
// does: the audit.config of each test, and run_verification.py's checks,
// output files and exact lines, so that the submission checker reads our
// folders unchanged.
package compliance

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Tests are the compliance tests this package runs.
var Tests = []string{"TEST01", "TEST04", "TEST06", "TEST07", "TEST09"}

// accuracyLogSeed is the accuracy_log_rng_seed of TEST01 and TEST06.
const accuracyLogSeed = "720381539243781796"

// test01Targets are TEST01's accuracy_log_sampling_target per benchmark
// (compliance/TEST01/<benchmark>/audit.config), keyed by the reference's
// folder name and this suite's aliases.
var test01Targets = map[string]int{
	"resnet50": 4096, "resnet": 4096, "bert": 4096, "bert-99": 4096, "bert-99.9": 4096,
	"dlrm": 4096, "dlrm-v2": 4096, "dlrm-v2-99": 4096, "dlrm-v2-99.9": 4096,
	"gpt-j": 4096, "gptj": 4096, "rgat": 4096, "whisper": 4096, "rnnt": 4096,
	"retinanet": 256, "pointpainting": 256,
	"stable-diffusion-xl": 128, "sdxl": 128,
	"3d-unet": 64, "3d-unet-99": 64, "3d-unet-99.9": 64, "unet3d": 64, "yolo": 64,
	"wan-2.2-t2v-a14b": 50,
}

const auditHeader = `# The format of this config file is 'key = value'.
# The key has the format 'model.scenario.key'. Value is mostly int64_t.
# Model maybe '*' as wildcard. In that case the value applies to all models.
# All times are in milli seconds
`

// AuditConfig returns the audit.config of test for benchmark (a
// reference folder name such as resnet50 or 3d-unet, or this suite's
// benchmark name). TEST04's model-specific lines take effect only where the
// benchmark applies them itself, as the reference's SUTs do; LoadGen applies
// the "*" lines.
func AuditConfig(test, benchmark string) (string, error) {
	switch strings.ToUpper(test) {
	case "TEST01":
		n, ok := test01Targets[strings.ToLower(benchmark)]
		if !ok {
			return "", fmt.Errorf("compliance: TEST01 has no audit.config for %q (known: resnet50, bert, 3d-unet, retinanet, dlrm-v2, gpt-j, stable-diffusion-xl, ...)", benchmark)
		}
		return fmt.Sprintf("%s\n# mode dictionary (0 = submission, 1 = accuracy, 2 = performance, 3 = find peak perf)\n*.*.mode = 2\n*.*.accuracy_log_rng_seed = %s\n*.*.accuracy_log_sampling_target = %d\n", auditHeader, accuracyLogSeed, n), nil
	case "TEST04":
		var b strings.Builder
		b.WriteString(auditHeader)
		for _, sc := range []string{"MultiStream", "Offline", "SingleStream", "Server"} {
			fmt.Fprintf(&b, "*.%s.mode = 2\n*.%s.performance_issue_unique = 0\n*.%s.performance_issue_same = 1\n*.%s.performance_issue_same_index = 3\n", sc, sc, sc, sc)
		}
		b.WriteString("stable-diffusion-xl.Offline.min_query_count = 500\nwan-2.2-t2v-a14b.Offline.min_query_count = 20\nwan-2.2-t2v-a14b.SingleStream.min_query_count = 20\n")
		return b.String(), nil
	case "TEST06":
		return fmt.Sprintf("%s\n# mode dictionary (0 = submission, 1 = accuracy, 2 = performance, 3 = find peak perf)\n*.*.mode = 2\n*.*.accuracy_log_rng_seed = %s\n*.*.accuracy_log_sampling_target = 100\n*.*.min_query_count = 100\n*.*.min_duration = 0\n# Turn off equal issue mode for TEST06\n*.*.sample_concatenate_permutation = 0\n", auditHeader, accuracyLogSeed), nil
	case "TEST07", "TEST09":
		return auditTEST0709(strings.ToUpper(test), benchmark)
	}
	return "", fmt.Errorf("compliance: unknown test %q (want TEST01, TEST04, TEST06, TEST07 or TEST09)", test)
}

// pyFloat formats v as Python's repr of a float (str.format "{}").
func pyFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	exp := 0
	if v != 0 {
		exp = int(math.Floor(math.Log10(math.Abs(v))))
	}
	if exp < -4 || exp >= 16 {
		m, e, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
		n, _ := strconv.Atoi(e)
		sign := "+"
		if n < 0 {
			sign, n = "-", -n
		}
		return fmt.Sprintf("%se%s%02d", m, sign, n)
	}
	s = strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// logParserLine is the INFO line tools/submission/log_parser.py's MLPerfLog
// writes to stderr, which run_verification.py captures with the script's
// output.
func logParserLine(path string) string {
	now := time.Now()
	return fmt.Sprintf("[%s,%03d log_parser.py:72 INFO] Sucessfully loaded MLPerf log from %s.", now.Format("2006-01-02 15:04:05"), now.Nanosecond()/1e6, path)
}

// copyFile copies src to dst (a file path), keeping the mode bits.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
}

// copyInto copies src into the folder dir, as shutil.copy2(src, dir); a
// failure is reported as run_verification.py prints it.
func copyInto(w io.Writer, src, dir string) {
	if err := copyFile(src, filepath.Join(dir, filepath.Base(src))); err != nil {
		fmt.Fprintf(w, "Exception occured trying to copy %s to %s\n", src, dir)
	}
}
