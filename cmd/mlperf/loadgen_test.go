package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `mlperf loadgen` writes the issue and QSL logs that can be compared with
// the C++ LoadGen's: here with the golden sequences taken from it.
func TestLoadgenCommandLogsMatchLoadGen(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "user.conf")
	os.WriteFile(conf, []byte("*.*.min_duration = 0\n*.*.min_query_count = 100\n"), 0o644)
	issue, qsl := filepath.Join(dir, "issue.csv"), filepath.Join(dir, "qsl.csv")
	code, out := runMlperf(t, nil, "loadgen", "--scenario", "SingleStream", "--user-conf", conf,
		"--total-samples", "1024", "--performance-samples", "1024", "--out", filepath.Join(dir, "logs"),
		"--issue-log", issue, "--qsl-log", qsl)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "VALID") {
		t.Fatalf("no result line:\n%s", out)
	}
	read := func(path string) []string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	gold := read("../../loadgen/testdata/golden/singlestream_perf_first64_minq100.csv")[1:]
	got := read(issue)
	if got[0] != "query,position,sample_index,scheduled_ns" {
		t.Fatalf("issue log header %q", got[0])
	}
	for i, g := range gold {
		want := strings.Split(g, ",")
		f := strings.Split(got[i+1], ",")
		if f[0] != want[0] || f[1] != "0" || f[2] != want[2] {
			t.Fatalf("issue log row %d %q, golden %q", i, got[i+1], g)
		}
	}
	goldQSL := read("../../loadgen/testdata/golden/qsl_load_set_total1024_perf1024.csv")
	gotQSL := read(qsl)
	if len(gotQSL) != len(goldQSL) {
		t.Fatalf("qsl log has %d lines, golden %d", len(gotQSL), len(goldQSL))
	}
	for i := 1; i < len(goldQSL); i++ {
		if gotQSL[i] != goldQSL[i] {
			t.Fatalf("qsl log line %d %q, golden %q", i, gotQSL[i], goldQSL[i])
		}
	}
}

func TestLoadgenCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.conf")
	os.WriteFile(bad, []byte("*.*.min_duration=5\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"loadgen", "--scenario", "Sideways"}, 2, "unknown scenario"},
		{[]string{"loadgen", "--mode", "fast"}, 2, "unknown mode"},
		{[]string{"loadgen", "--sut", "gpu"}, 2, "unknown --sut"},
		{[]string{"loadgen", "--user-conf", bad, "--out", dir}, 1, "bad.conf:1"},
		{[]string{"loadgen", "--user-conf", filepath.Join(dir, "missing.conf")}, 1, "missing.conf"},
	} {
		code, out := runMlperf(t, nil, c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, output %q; want exit %d mentioning %q", c.args, code, out, c.code, c.want)
		}
	}
}

// An INVALID run says why under its result line (make run's showcase once
// ended INVALID without a word); a VALID one prints no reason.
func TestLoadgenCommandSaysWhyARunIsInvalid(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "user.conf")
	// SingleStream: 3 generated queries, each instant: far under 300 ms.
	os.WriteFile(conf, []byte("*.*.min_duration = 300\n*.*.min_query_count = 1\n*.SingleStream.target_latency = 100\n"), 0o644)
	code, out := runMlperf(t, nil, "loadgen", "--scenario", "SingleStream", "--user-conf", conf, "--out", filepath.Join(dir, "ss"))
	if code != 0 || !strings.Contains(out, "INVALID") || !strings.Contains(out, "why: the test ran") || !strings.Contains(out, "lower SingleStream.target_latency") {
		t.Fatalf("an invalid run: exit %d:\n%s", code, out)
	}
	os.WriteFile(conf, []byte("*.*.min_duration = 0\n*.*.min_query_count = 100\n*.Offline.target_qps = 1\n"), 0o644)
	code, out = runMlperf(t, nil, "loadgen", "--scenario", "Offline", "--user-conf", conf, "--out", filepath.Join(dir, "off"))
	if code != 0 || !strings.Contains(out, " VALID") || strings.Contains(out, "why:") {
		t.Fatalf("a valid run: exit %d:\n%s", code, out)
	}
}
