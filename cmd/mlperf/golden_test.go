package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
)

var update = flag.Bool("update", false, "rewrite the golden logs in testdata/golden")

// goldenRuns are the runs whose logs must not change when the wiring of a
// benchmark changes: every benchmark on its tiny synthetic model and
// synthetic data, all four scenarios and the performance, accuracy and
// submission modes across the set. Each run is kept short by --duration,
// --min-queries and --qps.
var goldenRuns = []struct {
	name string
	args []string
}{
	{"resnet50-SingleStream-performance", []string{"run", "resnet50", "--scenario", "SingleStream", "--mode", "performance", "--duration", "100ms", "--min-queries", "8"}},
	{"resnet50-MultiStream-accuracy", []string{"run", "resnet50", "--scenario", "MultiStream", "--mode", "accuracy", "--count", "16"}},
	{"resnet50-Server-performance", []string{"run", "resnet50", "--scenario", "Server", "--mode", "performance", "--duration", "100ms", "--min-queries", "8", "--qps", "50"}},
	{"resnet50-Offline-submission", []string{"run", "resnet50", "--scenario", "Offline", "--mode", "submission", "--count", "16", "--duration", "100ms", "--min-queries", "1", "--qps", "50"}},
	{"bert-SingleStream-accuracy", []string{"run", "bert", "--scenario", "SingleStream", "--mode", "accuracy", "--count", "6"}},
	{"bert-Server-performance", []string{"run", "bert", "--scenario", "Server", "--mode", "performance", "--count", "6", "--duration", "100ms", "--min-queries", "8", "--qps", "50"}},
	{"bert-Offline-performance", []string{"run", "bert", "--scenario", "Offline", "--mode", "performance", "--count", "6", "--duration", "100ms", "--min-queries", "1", "--qps", "50"}},
	{"gptj-Offline-accuracy", []string{"run", "gptj", "--scenario", "Offline", "--mode", "accuracy", "--count", "2"}},
	{"gptj-SingleStream-performance", []string{"run", "gptj", "--scenario", "SingleStream", "--mode", "performance", "--count", "2", "--duration", "50ms", "--min-queries", "1"}},
	{"llama2-Offline-submission", []string{"run", "llama2", "--scenario", "Offline", "--mode", "submission", "--count", "3", "--duration", "50ms", "--min-queries", "1", "--qps", "20"}},
	{"llama2-Server-performance", []string{"run", "llama2", "--scenario", "Server", "--mode", "performance", "--count", "3", "--duration", "50ms", "--min-queries", "2", "--qps", "20", "--max-new-tokens", "8"}},
	{"llama2-interactive-Offline-accuracy", []string{"run", "llama2", "--model-name", "llama2-70b-interactive", "--scenario", "Offline", "--mode", "accuracy", "--count", "2", "--max-new-tokens", "16"}},
}

// TestGoldenLogs runs each of goldenRuns in-process and compares what in
// its logs does not depend on timing or the machine (see normalizeLogs)
// with testdata/golden/<name>.txt, recorded from the hand-written
// per-benchmark commands before the generic command path replaced them.
// Refresh with go test ./cmd/mlperf -run TestGoldenLogs -update.
func TestGoldenLogs(t *testing.T) {
	orttest.Need(t)
	needLlamaTokenizer(t)
	cache := t.TempDir()
	t.Setenv("MLPERF_CACHE_DIR", cache)
	for _, r := range goldenRuns {
		t.Run(r.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append(append([]string(nil), r.args...), "--model", "synthetic:tiny", "--data", "synthetic", "--threads", "1", "--out", out)
			var stdout, stderr bytes.Buffer
			if code := runMain(args, &stdout, &stderr); code != 0 {
				t.Fatalf("mlperf %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
			}
			got, err := normalizeLogs(out)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", r.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (record it with -update)", err)
			}
			if got != string(want) {
				t.Errorf("logs of mlperf %s differ from %s:\n%s", strings.Join(r.args, " "), path, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}

// detailValueKeys are the detail log keys whose values are settings or
// follow from them (and the seeds), never from timing.
func detailValueKey(k string) bool {
	for _, p := range []string{"requested_", "effective_", "qsl_reported_", "generated_"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	switch k {
	case "loadgen_version", "sut_name", "qsl_name", "loaded_qsl_set":
		return true
	}
	return false
}

// detailConditionalKey reports keys that appear or not depending on how
// the run went on this machine (an early end, a warning).
func detailConditionalKey(k string) bool {
	for _, s := range []string{"error", "warning", "invalid_reason", "generic_message"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// summaryValueNames are the summary fields whose values are settings.
var summaryValueNames = []string{"SUT name", "Scenario", "Mode"}

// normalizeLogs renders the parts of a run's logs in dir that do not
// depend on timing or the machine: the detail log's settings with their
// values and the set of its other keys; the summary's field names, with
// the values of the settings (the "Test Parameters Used" section and the
// header); the accuracy log's sample indices and, per index, the sha256 of
// the responses; accuracy.txt as it is.
func normalizeLogs(dir string) (string, error) {
	var b strings.Builder
	detail, err := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
	if err != nil {
		return "", err
	}
	b.WriteString("== mlperf_log_detail.txt\n")
	seen := map[string]bool{}
	var other []string
	for _, line := range strings.Split(string(detail), "\n") {
		js, ok := strings.CutPrefix(line, ":::MLLOG ")
		if !ok {
			continue
		}
		var e struct {
			Key   string          `json:"key"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal([]byte(js), &e); err != nil {
			return "", fmt.Errorf("detail log: %w", err)
		}
		switch {
		case detailValueKey(e.Key):
			fmt.Fprintf(&b, "%s = %s\n", e.Key, e.Value)
		case detailConditionalKey(e.Key) || seen[e.Key]:
		default:
			other = append(other, e.Key)
		}
		seen[e.Key] = true
	}
	slices.Sort(other)
	fmt.Fprintf(&b, "other keys: %s\n", strings.Join(other, " "))

	summary, err := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
	if err != nil {
		return "", err
	}
	b.WriteString("== mlperf_log_summary.txt\n")
	params := false
	for _, line := range strings.Split(string(summary), "\n") {
		if strings.HasPrefix(line, "Test Parameters Used") {
			params = true
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(strings.TrimSpace(line), "*") {
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if params || slices.Contains(summaryValueNames, name) {
			fmt.Fprintf(&b, "%s : %s\n", name, value)
		} else if name != "Recommendations" && name != "Early Stopping Result" {
			fmt.Fprintf(&b, "%s\n", name)
		}
	}

	b.WriteString("== mlperf_log_accuracy.json\n")
	acc, err := os.ReadFile(filepath.Join(dir, "mlperf_log_accuracy.json"))
	if err != nil {
		return "", err
	}
	var entries []struct {
		QSLIdx uint64 `json:"qsl_idx"`
		Data   string `json:"data"`
	}
	if err := json.Unmarshal(acc, &entries); err != nil {
		return "", fmt.Errorf("accuracy log: %w", err)
	}
	byIdx := map[uint64][]string{}
	var idx []uint64
	for _, e := range entries {
		if _, ok := byIdx[e.QSLIdx]; !ok {
			idx = append(idx, e.QSLIdx)
		}
		h := sha256.Sum256([]byte(e.Data))
		byIdx[e.QSLIdx] = append(byIdx[e.QSLIdx], hex.EncodeToString(h[:8]))
	}
	slices.Sort(idx)
	fmt.Fprintf(&b, "%d entries\n", len(entries))
	for _, i := range idx {
		h := byIdx[i]
		slices.Sort(h)
		fmt.Fprintf(&b, "qsl_idx %d: %s\n", i, strings.Join(slices.Compact(h), " "))
	}

	if a, err := os.ReadFile(filepath.Join(dir, "accuracy.txt")); err == nil {
		b.WriteString("== accuracy.txt\n")
		sc := bufio.NewScanner(bytes.NewReader(a))
		for sc.Scan() {
			fmt.Fprintln(&b, sc.Text())
		}
	}
	return b.String(), nil
}
