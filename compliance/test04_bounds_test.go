package compliance

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
)

// TestTEST04ThresholdsAtTheirBounds follows verify_performance.py of
// TEST04 (mlcommons/inference compliance/TEST04): the test run passes when
// its score (1e9 / the early-stopping latency, ns) is under the
// reference's by the threshold, 10 %, or 20 % for a SingleStream reference
// scoring at most 200,000 (a latency of 5 µs or more). Each case sits on
// one side of a bound: exactly +10 % fails, just under passes; a reference
// of 4 µs keeps 10 %, one of 5 µs (exactly 200,000) gets 20 %.
func TestTEST04ThresholdsAtTheirBounds(t *testing.T) {
	dir := t.TempDir()
	summary := func(name string, latNs int) string {
		p := filepath.Join(dir, name)
		body := fmt.Sprintf("================================================\nMLPerf Results Summary\n================================================\nSUT name : x\nScenario : SingleStream\nMode     : PerformanceOnly\n90.0th percentile latency (ns) : %d\nResult is : VALID\n  Early stopping 90th percentile estimate : %d\n", latNs, latNs)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		ref, test int
		pass      bool
	}{
		{1100, 1000, false}, // test score 1e6 = reference 909,090.9 × 1.1 exactly
		{1100, 1001, true},  // 999,001: under
		{4000, 3478, false}, // 250,000 → 10 %: 287,521 is over 275,000
		{4000, 3700, true},  // 270,270: under 275,000
		{5000, 4500, true},  // 200,000 → 20 %: 222,222 is under 240,000
		{5000, 4100, false}, // 243,902: over 240,000
	} {
		var out bytes.Buffer
		ok, err := VerifyPerformanceTEST04(&out, summary("ref.txt", c.ref), summary("test.txt", c.test))
		if err != nil {
			t.Fatal(err)
		}
		if ok != c.pass || strings.Contains(out.String(), "TEST PASS") != c.pass {
			t.Errorf("reference %d ns, test %d ns: pass %v, want %v\n%s", c.ref, c.test, ok, c.pass, out.String())
		}
	}
}

// TestTEST01PerformanceNeedsBothDetailLogs: a missing detail log, of the
// accuracy-mode run or of TEST01's, is an error naming it, from
// VerifyPerformanceTEST01 and from Verify (which writes no verdict then).
func TestTEST01PerformanceNeedsBothDetailLogs(t *testing.T) {
	c := filepath.Join(t.TempDir(), "case")
	copyDir(t, filepath.Join("testdata/cases", "SingleStream"), c)
	ref := filepath.Join(c, "results", "performance", "run_1", "mlperf_log_detail.txt")
	test := filepath.Join(c, "TEST01", "mlperf_log_detail.txt")
	missing := filepath.Join(c, "none", "mlperf_log_detail.txt")
	for _, paths := range [][2]string{{missing, test}, {ref, missing}} {
		var out bytes.Buffer
		if ok, err := VerifyPerformanceTEST01(&out, paths[0], paths[1]); err == nil || ok || !strings.Contains(err.Error(), missing) {
			t.Errorf("VerifyPerformanceTEST01(%s, %s) = %v, %v; want an error naming %s", paths[0], paths[1], ok, err, missing)
		}
	}
	os.Remove(test)
	var console bytes.Buffer
	if _, err := Verify(&console, "TEST01", filepath.Join(c, "results"), filepath.Join(c, "TEST01"), filepath.Join(c, "out"), "int32", "", 0); err == nil || !strings.Contains(err.Error(), test) {
		t.Errorf("Verify without TEST01's detail log: %v", err)
	}
}

// TestTEST06UserConfKeepsTheLastLine: GPT-J's TEST06 user.conf is the
// run's own plus use_token_latencies on a line of its own, also when the
// run's file does not end in a newline (its last setting kept whole).
func TestTEST06UserConfKeepsTheLastLine(t *testing.T) {
	dir := t.TempDir()
	for _, last := range []string{"", "\n"} {
		uc := filepath.Join(dir, "user.conf")
		os.WriteFile(uc, []byte("gptj.Offline.min_duration = 1000"+last), 0o644)
		work := t.TempDir()
		p, err := testUserConf(benchmark.Options{UserConf: uc}, "TEST06", "", "gptj", work)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		lines := strings.Split(string(b), "\n")
		if p != filepath.Join(work, "user.conf") || lines[0] != "gptj.Offline.min_duration = 1000" || !slices.Contains(lines, "gptj.*.use_token_latencies = 1") {
			t.Errorf("ending %q: %s holds %q", last, p, b)
		}
	}
}
