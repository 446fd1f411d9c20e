package compliance

import (
	"bytes"
	"context"
	"errors"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/benchmarktest"
	"github.com/mlperf-go/inference/loadgen"
)

func init() { spec.Register(benchmarktest.New(64, time.Millisecond)) }

// A run of TEST01 and TEST04 against a benchmark's own accuracy and
// performance runs: both pass (the model answers the same in both modes
// and is not faster on a repeated sample), and TEST0X/ holds what the
// checker reads.
func TestRunVerifiesTEST01AndTEST04(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	conf := filepath.Join(dir, "user.conf")
	os.WriteFile(conf, []byte("*.SingleStream.target_latency = 1\n*.SingleStream.min_duration = 150\n*.SingleStream.min_query_count = 100\n"), 0o644)
	results := filepath.Join(dir, "SingleStream")
	b, _ := spec.Lookup(benchmarktest.Name)
	for _, m := range []struct {
		mode loadgen.Mode
		out  string
	}{{loadgen.AccuracyOnly, "accuracy"}, {loadgen.PerformanceOnly, "performance/run_1"}} {
		o := benchmark.Options{Scenario: loadgen.SingleStream, Mode: m.mode, Model: "synthetic", Data: "synthetic", Backend: "cpu", UserConf: conf, Out: filepath.Join(results, m.out)}
		if _, err := benchmark.Run(context.Background(), b, o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, test := range []string{"test01", "test04"} {
		var out, errb bytes.Buffer
		o := benchmark.Options{Scenario: loadgen.SingleStream, Model: "synthetic", Data: "synthetic", Backend: "cpu", UserConf: conf}
		res, err := Run(context.Background(), b, test, o, results, filepath.Join(dir, "work_"+test), &out, &errb)
		if err == nil && !res.Pass() {
			err = errors.New("compliance: " + strings.ToUpper(test) + " failed")
		}
		T := strings.ToUpper(test)
		vp, _ := os.ReadFile(filepath.Join(results, T, "verify_performance.txt"))
		// The scores of two short runs on a busy machine may differ by
		// more than the threshold; that verdict is the script's, and only
		// it may fail the run.
		if err != nil && !(err.Error() == "compliance: "+T+" failed" && bytes.Contains(vp, []byte("TEST FAIL: Test score invalid"))) {
			t.Fatalf("%s: %v\n%s%s", test, err, out.String(), errb.String())
		}
		if !bytes.Contains(vp, []byte("Verifying performance.\n")) || !bytes.Contains(bytes.ToLower(vp), []byte("test score = ")) {
			t.Errorf("%s verify_performance.txt:\n%s", test, vp)
		}
		if !strings.Contains(out.String(), T+" verification complete") {
			t.Errorf("%s output:\n%s", test, out.String())
		}
		for _, f := range []string{"verify_performance.txt", "performance/run_1/mlperf_log_detail.txt"} {
			if _, err := os.Stat(filepath.Join(results, T, f)); err != nil {
				t.Errorf("%s: %v", test, err)
			}
		}
		detail, _ := os.ReadFile(filepath.Join(results, T, "performance/run_1/mlperf_log_detail.txt"))
		if !bytes.Contains(detail, []byte(auditConfigWarningText)) {
			t.Errorf("%s: the compliance log lacks LoadGen's audit.config warning", test)
		}
	}
	va, _ := os.ReadFile(filepath.Join(results, "TEST01/verify_accuracy.txt"))
	if !bytes.Contains(va, []byte("TEST PASS")) {
		t.Errorf("TEST01 verify_accuracy.txt:\n%s", va)
	}
	if audit, err := AuditConfig("test01", RefName(b, b.ConfNames[0])); err != nil || !strings.Contains(audit, "accuracy_log_sampling_target = 4096") {
		t.Errorf("audit-config: %v\n%s", err, audit)
	}
}

const auditConfigWarningText = "Found Audit Config file (audit.config). Overriding TestSettings from audit.config file."

// A --results folder that does not exist is refused before the run (which
// takes minutes), naming the flag.
func TestRunRefusesMissingResultsBeforeRunning(t *testing.T) {
	var out, errb bytes.Buffer
	missing := filepath.Join(t.TempDir(), "results")
	work := filepath.Join(t.TempDir(), "work")
	b, _ := spec.Lookup(benchmarktest.Name)
	o := benchmark.Options{Scenario: loadgen.SingleStream, Model: "synthetic", Data: "synthetic", Backend: "cpu"}
	_, err := Run(context.Background(), b, "test01", o, missing, work, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "--results "+missing+" is not a folder") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(work); err == nil {
		t.Fatal("a run started: the work folder exists")
	}
}

// A --results path that is a file is refused the same way.
func TestRunRefusesAResultsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "results")
	os.WriteFile(file, nil, 0o644)
	b, _ := spec.Lookup(benchmarktest.Name)
	o := benchmark.Options{Scenario: loadgen.SingleStream, Model: "synthetic", Data: "synthetic", Backend: "cpu"}
	if _, err := Run(context.Background(), b, "test01", o, file, t.TempDir(), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "--results "+file+" is not a folder") {
		t.Fatalf("err = %v", err)
	}
}

// modelMinQueries: the model's scenario line wins over its "*" line in
// either order; lines of other models, other keys and malformed lines are
// ignored.
func TestModelMinQueries(t *testing.T) {
	for _, c := range []struct {
		audit string
		want  int
	}{
		{"sdxl.*.min_query_count = 7\nsdxl.Offline.min_query_count = 9\n", 9},
		{"sdxl.Offline.min_query_count = 9\nsdxl.*.min_query_count = 7\n", 9},
		{"sdxl.*.min_query_count = 7\n", 7},
		{"*.*.min_query_count = 5\nbert.Offline.min_query_count = 3\nsdxl.Offline.max_query_count = 4\n", 0},
		{"sdxl.Offline.min_query_count=9\nsdxl.Offline.min_query_count = x\nsdxl.Offline.min_query_count = 9 # note\n", 0},
	} {
		if got := modelMinQueries(c.audit, "sdxl", "Offline"); got != c.want {
			t.Errorf("modelMinQueries(%q) = %d, want %d", c.audit, got, c.want)
		}
	}
}
