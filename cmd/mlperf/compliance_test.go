package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The flag an error asks for exists: `compliance verify test06` without a
// scenario once asked for "-s", which the command does not define; the
// flag named in the message is now accepted and gets past that check.
func TestComplianceVerifyTEST06AsksForAFlagItHas(t *testing.T) {
	dir := t.TempDir()
	code, msg := runMlperf(t, nil, "compliance", "verify", "test06", "--compliance", dir, "--out", dir)
	if code == 0 || !strings.Contains(msg, "needs the scenario") {
		t.Fatalf("no scenario: %d %s", code, msg)
	}
	flag := regexp.MustCompile(`\((--?[a-z-]+) `).FindStringSubmatch(msg)
	if flag == nil || flag[1] != "--scenario" {
		t.Fatalf("the message names %v, want --scenario: %s", flag, msg)
	}
	code, msg = runMlperf(t, nil, "compliance", "verify", "test06", "--compliance", dir, "--out", dir, flag[1], "Server")
	if code == 0 || strings.Contains(msg, "flag provided but not defined") || strings.Contains(msg, "needs the scenario") {
		t.Fatalf("with %s Server: %d %s", flag[1], code, msg)
	}
	if !strings.Contains(msg, "mlperf_log_accuracy.json") {
		t.Errorf("with the scenario, the error should be the missing log: %s", msg)
	}
}

// TestComplianceVerifyTEST09 verifies an output-length log with the
// gpt-oss-120b bounds of `mlperf compliance audit-config test09`: a mean
// at the lower bound passes (exit 0, verify_output_len.txt ending TEST
// PASS, which check reads), one token fewer in all fails (exit 1, TEST
// FAIL), and no bounds at all is a usage of the audit.config.
func TestComplianceVerifyTEST09(t *testing.T) {
	dir := t.TempDir()
	code, audit := runMlperf(t, nil, "compliance", "audit-config", "test09", "gpt-oss-120b")
	if code != 0 || !strings.Contains(audit, "*.*.test09_min_output_tokens = 1150.38") {
		t.Fatalf("audit-config: %d %s", code, audit)
	}
	auditPath := filepath.Join(dir, "audit.config")
	os.WriteFile(auditPath, []byte(audit), 0o644)
	for _, c := range []struct {
		total int
		code  int
		want  string
	}{{57519, 0, "TEST PASS"}, {57518, 1, "TEST FAIL"}} {
		comp := filepath.Join(dir, fmt.Sprint(c.total))
		os.MkdirAll(comp, 0o755)
		var entries []string
		for i := 0; i < 50; i++ {
			n := c.total / 50
			if i < c.total%50 {
				n++
			}
			entries = append(entries, fmt.Sprintf(`{"seq_id": %d, "qsl_idx": %d, "data": "%s", "token_count": %d}`, i, i, strings.Repeat("01000000", n), n))
		}
		os.WriteFile(filepath.Join(comp, "mlperf_log_accuracy.json"), []byte("[\n"+strings.Join(entries, ",\n")+"\n]\n"), 0o644)
		out := filepath.Join(comp, "scenario")
		got, msg := runMlperf(t, nil, "compliance", "verify", "test09", "--compliance", comp, "--out", out, "--audit-config", auditPath)
		if got != c.code || !strings.Contains(msg, "Overall: "+c.want) {
			t.Errorf("mean %d/50: exit %d, want %d:\n%s", c.total, got, c.code, msg)
		}
		b, err := os.ReadFile(filepath.Join(out, "TEST09", "verify_output_len.txt"))
		if err != nil || !strings.HasSuffix(string(b), "\n"+c.want+"\n") {
			t.Errorf("verify_output_len.txt: %v\n%s", err, b)
		}
	}
	code, msg := runMlperf(t, nil, "compliance", "verify", "test09", "--compliance", filepath.Join(dir, "57519"), "--out", dir)
	if code == 0 || !strings.Contains(msg, "test09_min_output_tokens") {
		t.Errorf("no audit.config: %d %s", code, msg)
	}
	code, msg = runMlperf(t, nil, "compliance", "verify", "test07", "--compliance", dir, "--out", dir)
	if code != 2 || !strings.Contains(msg, "wants the benchmark") {
		t.Errorf("verify test07 without a benchmark: %d %s", code, msg)
	}
}
