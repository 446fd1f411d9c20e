package compliance

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var qslPattern = regexp.MustCompile(`"qsl_idx" : (\d+), `)

// Baseline does what compliance/TEST01/create_accuracy_baseline.sh does:
// it writes to out a JSON list of the accuracy run's log lines (accLog)
// whose qsl_idx appears in the compliance run's log (perfLog), every such
// line, duplicates included, in the accuracy log's order.
func Baseline(accLog, perfLog, out string) error {
	perf, err := os.ReadFile(perfLog)
	if err != nil {
		return fmt.Errorf("compliance: %w", err)
	}
	want := map[string]bool{}
	for _, m := range qslPattern.FindAllSubmatch(perf, -1) {
		want[string(m[1])] = true
	}
	f, err := os.Open(accLog)
	if err != nil {
		return fmt.Errorf("compliance: %w", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		line := sc.Text()
		if m := qslPattern.FindStringSubmatch(line); m != nil && want[m[1]] {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("compliance: %s: %w", accLog, err)
	}
	if n := len(lines); n > 0 {
		lines[n-1] = strings.TrimSuffix(lines[n-1], ",") // sed '$ s/,$//g'
	}
	var b bytes.Buffer
	b.WriteString("[\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("]\n")
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// Scorer scores an accuracy log as the benchmark's reference accuracy
// script does, returning the lines it prints.
type Scorer func(logPath string) ([]string, error)

// Fallback is TEST01's Part III, for a system whose performance-mode
// responses are not bit-equal to its accuracy-mode ones: it builds the
// baseline log (Baseline) of the accuracy run's entries for the samples
// the compliance run logged, scores it and the compliance log with score,
// and writes test01Dir/accuracy/baseline_accuracy.txt and
// compliance_accuracy.txt, which the checker compares (every metric within
// 1%, 0.1% for 99.9% targets).
func Fallback(test01Dir, accLog string, score Scorer) error {
	acc := filepath.Join(test01Dir, "accuracy")
	compLog := filepath.Join(acc, "mlperf_log_accuracy.json")
	tmp, err := os.MkdirTemp("", "test01-baseline-")
	if err != nil {
		return fmt.Errorf("compliance: %w", err)
	}
	defer os.RemoveAll(tmp)
	base := filepath.Join(tmp, "mlperf_log_accuracy_baseline.json")
	if err := Baseline(accLog, compLog, base); err != nil {
		return err
	}
	for _, s := range []struct{ log, out string }{{base, "baseline_accuracy.txt"}, {compLog, "compliance_accuracy.txt"}} {
		lines, err := score(s.log)
		if err != nil {
			return fmt.Errorf("compliance: TEST01 fallback: scoring %s: %w", filepath.Base(s.log), err)
		}
		if err := os.WriteFile(filepath.Join(acc, s.out), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			return fmt.Errorf("compliance: %w", err)
		}
	}
	return nil
}
