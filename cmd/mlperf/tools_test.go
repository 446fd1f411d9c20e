package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLibraryCommandsAreWired(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"model", "convert", "resnet50", "--snapshot", "x", "-o", "y"}, 2, "no converter"},
		{[]string{"model", "convert", "dlrm"}, 2, "--snapshot DIR and -o OUT are required"},
		{[]string{"model", "convert", "dlrm", "--snapshot", filepath.Join(t.TempDir(), "none"), "-o", t.TempDir()}, 1, "none"},
		{[]string{"check", t.TempDir()}, 1, "no results under"},
		{[]string{"check", t.TempDir(), t.TempDir()}, 2, "unexpected argument"},
		{[]string{"compliance", "audit-config", "test01", "resnet50"}, 0, "accuracy_log_sampling_target"},
		{[]string{"compliance", "test06", "nosuchbenchmark", "--results", t.TempDir()}, 1, "unknown benchmark"},
	} {
		var stdout, stderr bytes.Buffer
		code := runMain(c.args, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("mlperf %s: exit %d, want %d with %q:\n%s", strings.Join(c.args, " "), code, c.code, c.want, out)
		}
	}
	// report names what a run folder lacks.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mlperf_log_summary.txt"), []byte("================================================\nMLPerf Results Summary\n================================================\nSUT name : x\nScenario : Offline\nMode     : PerformanceOnly\nSamples per second: 10\nResult is : VALID\n"), 0o644)
	var stdout, stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "r.html")
	if code := runMain([]string{"report", dir, "--out", out}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "no mlperf_log_detail.txt") {
		t.Errorf("report on a folder without a detail log: exit %d: %s", code, stderr.String())
	}
}
