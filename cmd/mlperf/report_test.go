package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// reportRun writes a short Offline run's logs into dir.
func reportRun(t *testing.T, dir string) {
	t.Helper()
	s := loadgen.DefaultSettings()
	s.Scenario, s.MinDurationMs, s.MinQueryCount = loadgen.Offline, 0, 50
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = dir
	if _, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 16, Performance: 16}, s, logs); err != nil {
		t.Fatal(err)
	}
}

// `mlperf report` takes one folder or two (A and B, before or after the
// flags), writes --out (or stdout for -), refuses a third folder and a
// bad flag as usage errors (exit 2), and leaves an earlier --out alone
// when the report fails.
func TestReportCommand(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	reportRun(t, a)
	reportRun(t, b)
	out := filepath.Join(t.TempDir(), "r.html")
	if code, msg := runMlperf(t, nil, "report", a, "--out", out); code != 0 || !strings.Contains(msg, "report: wrote "+out) {
		t.Fatalf("report A: %d %s", code, msg)
	}
	if page, _ := os.ReadFile(out); !strings.Contains(string(page), `<section class="run"`) || strings.Contains(string(page), "A against B") {
		t.Error("report A: not a single run's page")
	}
	if code, msg := runMlperf(t, nil, "report", "--out", out, a, b); code != 0 {
		t.Fatalf("report --out FILE A B: %d %s", code, msg)
	}
	if page, _ := os.ReadFile(out); !strings.Contains(string(page), "A against B") {
		t.Error("report A B: no comparison")
	}
	if code, msg := runMlperf(t, nil, "report", a, "--out", "-"); code != 0 || !strings.HasPrefix(msg, "<!DOCTYPE html>") {
		t.Fatalf("report --out -: %d %.100s", code, msg)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report", a, b, a}, 2, "give one folder, or two to compare"},
		{[]string{"report"}, 2, "no folder given"},
		{[]string{"report", a, "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"report", t.TempDir(), "--out", out}, 1, "no mlperf_log_detail.txt"},
		{[]string{"report", a, "--out", t.TempDir()}, 1, "is a folder; give the HTML file to write"},
	} {
		before, _ := os.ReadFile(out)
		code, msg := runMlperf(t, nil, c.args...)
		if code != c.code || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s", c.args, code, c.code, c.want, msg)
		}
		if after, _ := os.ReadFile(out); string(after) != string(before) {
			t.Errorf("%v changed %s", c.args, out)
		}
	}
	if code, msg := runMlperf(t, nil, "report", "-h"); code != 0 || !strings.Contains(msg, "usage: mlperf report DIR [DIR_B]") {
		t.Errorf("report -h: %d %s", code, msg)
	}
}
