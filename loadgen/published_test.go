package loadgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The logs under testdata/published are a published MLPerf Inference
// submission's performance runs of llama2-70b-99.9 (LoadGen 5.1.0, token
// latencies, sample_concatenate_permutation), the detail log without its
// long loaded_qsl_set line. They are goldens of the log formats: the test
// writes the logs of a run with the same settings flags and compares the
// summary's lines and the detail's result keys, numbers masked (the
// values are checked against the C++ LoadGen in oracle_test.go).
//
// LoadGen 6.0 (the version this package follows) changed two things the
// test applies to the published text: "Min/Max/Mean Time to Output Token"
// became "Time per Output Token" (mlcommons/inference #2360) and the
// parameters gained "accuracy_sample_count".

var numberRE = regexp.MustCompile(`[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?`)

// maskLines returns the lines of s with every number replaced by #.
func maskLines(s string) []string {
	return strings.Split(numberRE.ReplaceAllString(s, "#"), "\n")
}

func TestPublishedLogFormats(t *testing.T) {
	const ms = 1_000_000
	for _, sc := range []Scenario{Server, Offline} {
		t.Run(sc.String(), func(t *testing.T) {
			dir := filepath.Join("testdata", "published", "llama2-70b-99.9", sc.String())
			want, err := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			s := DefaultSettings()
			s.Scenario, s.MinDurationMs, s.MinQueryCount = sc, 1000, 100
			s.ServerTargetQPS, s.ServerTargetLatencyNs, s.OfflineExpectedQPS = 83.5, 0, 100
			s.UseTokenLatencies, s.ServerTTFTLatencyNs, s.ServerTPOTLatencyNs = true, 2000*ms, 200*ms
			s.SampleConcatenatePermutation = true
			sr := synthRun{s: s, nq: 2000, sched: func(q int) int64 { return int64(q) * 12 * ms },
				lat: func(i int) int64 { return 30*ms + int64(i%7)*ms }, ttft: func(i int) int64 { return 10*ms + int64(i%5)*ms }}
			if sc == Offline {
				sr.nq, sr.spq = 1, 200
				sr.sched = func(int) int64 { return 0 }
				sr.lat = func(i int) int64 { return 1500*ms + int64(i)*ms }
				sr.ttft = func(i int) int64 { return 10*ms + int64(i)*ms }
			}
			res, _, detail := evaluateSynth(t, sr)
			if !res.Valid {
				t.Fatalf("the run is INVALID: %v", res.InvalidReasons)
			}
			// Render the summary again with the published SUT name and
			// warning count.
			e, err := deriveSettings(s, 24576, 24576)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			lw, err := openLogs(LogSettings{OutDir: out}, true, sc)
			if err != nil {
				t.Fatal(err)
			}
			lw.sutName = "PySUT"
			if !strings.Contains(string(want), "No warnings encountered") {
				lw.warnings = 2 // as the published run
			}
			lw.writeSummary(res, e)
			if err := lw.close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(out, "mlperf_log_summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			pub := strings.ReplaceAll(string(want), " Time to Output Token (ns)", " Time per Output Token (ns)")
			pub = strings.Replace(pub, "performance_sample_count : 24576\n", "performance_sample_count : 24576\naccuracy_sample_count : 24576\n", 1)
			wl, gl := maskLines(pub), maskLines(string(got))
			for i := 0; i < max(len(wl), len(gl)); i++ {
				var w, g string
				if i < len(wl) {
					w = wl[i]
				}
				if i < len(gl) {
					g = gl[i]
				}
				if w != g {
					t.Errorf("summary line %d:\n got %q\nwant %q", i+1, g, w)
				}
			}

			// The detail log's result keys, in order.
			var wantKeys, gotKeys []string
			for _, en := range readDetail(t, filepath.Join(dir, "mlperf_log_detail.txt")) {
				wantKeys = append(wantKeys, en.key)
				if en.key == "num_errors" { // later lines are not results
					break
				}
			}
			for _, en := range detail {
				gotKeys = append(gotKeys, en.key)
			}
			if strings.Join(gotKeys, "\n") != strings.Join(wantKeys, "\n") {
				t.Errorf("detail result keys:\n got %v\nwant %v", gotKeys, wantKeys)
			}
		})
	}
}
