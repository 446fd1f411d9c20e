package compliance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/internal/pystr"
	"github.com/mlperf-go/inference/loadgen"
)

// case0709 is one case of testdata/cases0709.json (written with the
// goldens by testdata/make_golden0709.py from cases0709.py).
type case0709 struct {
	Name, Test string
	Lengths    []int
	Entries    []json.RawMessage
	Raw        *string
	Audit      string
	Args       []string
	Scorer     *string
}

// build writes the case's folder as cases0709.py's build does.
func (c case0709) build(t *testing.T, root string) {
	t.Helper()
	d := filepath.Join(root, c.Test)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	var text string
	switch {
	case c.Raw != nil:
		text = *c.Raw
	default:
		var lines []string
		if c.Entries != nil {
			for _, e := range c.Entries {
				lines = append(lines, pyDumps(e))
			}
		} else {
			for i, n := range c.Lengths {
				lines = append(lines, fmt.Sprintf(`{"seq_id": %d, "qsl_idx": %d, "data": "%s", "token_count": %d}`, i, i, strings.Repeat("00000000", n), n))
			}
		}
		text = "[\n" + strings.Join(lines, ",\n") + "\n]\n"
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(d, "mlperf_log_accuracy.json"), text)
	for _, n := range []string{"mlperf_log_summary.txt", "mlperf_log_detail.txt"} {
		write(filepath.Join(d, n), n+" of the "+c.Test+" run\n")
	}
	write(filepath.Join(root, "audit.config"), c.Audit)
	if c.Scorer != nil {
		write(filepath.Join(root, "scorer.txt"), *c.Scorer)
	}
}

// pyDumps writes a JSON object as json.dumps does (", " and ": ").
func pyDumps(raw json.RawMessage) string {
	var b bytes.Buffer
	json.Compact(&b, raw)
	s := b.String()
	var out strings.Builder
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		out.WriteByte(c)
		switch {
		case c == '"' && (i == 0 || s[i-1] != '\\'):
			inStr = !inStr
		case !inStr && (c == ',' || c == ':'):
			out.WriteByte(' ')
		}
	}
	return out.String()
}

func floatArg(t *testing.T, s string) *float64 {
	v, ok := pystr.Float(s)
	if !ok {
		t.Fatalf("bad float %q", s)
	}
	return &v
}

// TestTEST07AndTEST09MatchRunVerification builds each case's compliance
// folder, verifies it, and compares the console, the verify file and the
// exit status with what compliance/TEST07 and TEST09 run_verification.py
// printed, wrote and returned on the same folder (testdata/golden0709):
// TEST09 means at each bound (1150.38 and 1406.02 of gpt-oss-120b's
// audit.config) and one token-sum past it, odd entries (bad hex, odd
// lengths, white space, no data, a number), a JSON-lines log, inline
// comments, command-line overrides, missing bounds; TEST07 scores at the
// threshold (60.698) and just under, overrides, no score, another pattern.
func TestTEST07AndTEST09MatchRunVerification(t *testing.T) {
	b, err := os.ReadFile("testdata/cases0709.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []case0709
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs("testdata/golden0709")
	if err != nil {
		t.Fatal(err)
	}
	passes, fails := 0, 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			tmp := t.TempDir()
			c.build(t, tmp)
			t.Chdir(tmp)
			var console bytes.Buffer
			var res Result
			var verr error
			switch c.Test {
			case "TEST09":
				opt := TEST09Options{AuditConfig: "audit.config"}
				for i := 0; i+1 < len(c.Args); i += 2 {
					switch c.Args[i] {
					case "--min-output-tokens":
						opt.Min = floatArg(t, c.Args[i+1])
					case "--max-output-tokens":
						opt.Max = floatArg(t, c.Args[i+1])
					}
				}
				res, verr = VerifyTEST09(&console, "TEST09", "out", opt)
			case "TEST07":
				opt := TEST07Options{AuditConfig: "audit.config", Command: "cat scorer.txt #TEST07/mlperf_log_accuracy.json",
					Score: func(log string) ([]string, error) {
						if log != filepath.Join("TEST07", "mlperf_log_accuracy.json") {
							t.Errorf("scored %s", log)
						}
						b, err := os.ReadFile("scorer.txt")
						return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), err
					}}
				for i := 0; i+1 < len(c.Args); i += 2 {
					switch c.Args[i] {
					case "--accuracy-threshold":
						opt.Threshold = floatArg(t, c.Args[i+1])
					case "--score-pattern":
						opt.ScorePattern = c.Args[i+1]
					}
				}
				res, verr = VerifyTEST07(&console, "TEST07", "out", opt)
			}
			dir := filepath.Join(golden, c.Name)
			want, _ := os.ReadFile(filepath.Join(dir, "console.txt"))
			if console.String() != string(want) {
				t.Errorf("console:\n%s\nrun_verification.py:\n%s", console.String(), want)
			}
			rcB, _ := os.ReadFile(filepath.Join(dir, "rc"))
			rc := strings.TrimSpace(string(rcB))
			gotRC := "0"
			if verr != nil || c.Test == "TEST09" && !res.Pass() {
				gotRC = "1" // TEST09 exits 1 on a failed check, TEST07 only when it cannot verify
			}
			if gotRC != rc {
				t.Errorf("exit status %s (%v, pass %v), run_verification.py %s", gotRC, verr, res.Pass(), rc)
			}
			name := map[string]string{"TEST07": "verify_accuracy.txt", "TEST09": "verify_output_len.txt"}[c.Test]
			wantF, werr := os.ReadFile(filepath.Join(dir, name))
			gotF, gerr := os.ReadFile(filepath.Join("out", c.Test, name))
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("%s written: %v, by the script: %v", name, gerr == nil, werr == nil)
			}
			if werr == nil {
				if string(gotF) != string(wantF) {
					t.Errorf("%s:\n%s\nrun_verification.py's:\n%s", name, gotF, wantF)
				}
				if res.Pass() != strings.Contains(string(wantF), "TEST PASS") {
					t.Errorf("Pass() %v, the script's file says otherwise", res.Pass())
				}
				if res.Pass() {
					passes++
				} else {
					fails++
				}
				for _, f := range []string{"accuracy/mlperf_log_accuracy.json", "performance/run_1/mlperf_log_summary.txt", "performance/run_1/mlperf_log_detail.txt"} {
					if _, err := os.Stat(filepath.Join("out", c.Test, f)); err != nil {
						t.Errorf("%s not copied: %v", f, err)
					}
				}
			}
		})
	}
	if passes < 5 || fails < 5 {
		t.Errorf("%d passing and %d failing cases: the goldens should hold both", passes, fails)
	}
}

// TestTEST07AndTEST09AuditConfigs: the settings of the reference's
// gpt-oss-120b audit.config files — what LoadGen reads (every sample
// logged and issued once, no minimum duration) and the thresholds
// run_verification.py reads — for the model and its interactive variant,
// and no audit.config for a benchmark the reference gives none.
func TestTEST07AndTEST09AuditConfigs(t *testing.T) {
	for _, c := range []struct {
		test, bench string
		lines       []string
		thresholds  map[string]float64
	}{
		{"TEST07", "gpt-oss-120b", []string{"*.*.mode = 2", "*.*.accuracy_log_sampling_target = 990", "*.*.min_query_count = 990", "*.*.min_duration = 0", "*.*.performance_issue_unique = 1", "*.*.sample_concatenate_permutation = 0", "*.*.accuracy_log_rng_seed = 720381539243781796"},
			map[string]float64{"test07_accuracy_threshold": 60.698}},
		{"TEST09", "gpt-oss-120b-interactive", []string{"*.*.mode = 2", "*.*.accuracy_log_sampling_target = 10000", "*.*.min_query_count = 6396", "*.*.min_duration = 0", "*.*.performance_issue_unique = 1"},
			map[string]float64{"test09_min_output_tokens": 1150.38, "test09_max_output_tokens": 1406.02}},
	} {
		got, err := AuditConfig(c.test, c.bench)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range c.lines {
			if !strings.Contains(got, l+"\n") {
				t.Errorf("%s %s lacks %q:\n%s", c.test, c.bench, l, got)
			}
		}
		p := filepath.Join(t.TempDir(), "audit.config")
		os.WriteFile(p, []byte(got), 0o644)
		var s loadgen.Settings
		if applied, err := s.ApplyAuditConfig(p); !applied || err != nil || !s.PerformanceIssueUnique || s.AccuracyLogSamplingTarget < s.MinQueryCount || s.MinQueryCount < 990 {
			t.Errorf("%s: LoadGen reads %v %v: unique %v, sampling target %d, min queries %d", c.test, applied, err, s.PerformanceIssueUnique, s.AccuracyLogSamplingTarget, s.MinQueryCount)
		}
		th, err := auditThresholds(&bytes.Buffer{}, p, c.test)
		if err != nil || len(th) != len(c.thresholds) {
			t.Fatalf("%s thresholds %v, %v", c.test, th, err)
		}
		for k, v := range c.thresholds {
			if th[k] != v {
				t.Errorf("%s %s = %v, want %v", c.test, k, th[k], v)
			}
		}
	}
	if _, err := AuditConfig("TEST07", "llama3.1-8b"); err == nil {
		t.Error("TEST07 for llama3.1-8b: no error")
	}
}

// TestWithTestOptionsPicksTheComplianceSet: gpt-oss-120b's TEST07 runs on
// its GPQA compliance set, without changing the caller's options; other
// tests and benchmarks keep theirs.
func TestWithTestOptionsPicksTheComplianceSet(t *testing.T) {
	b := &spec.Benchmark{Name: "gpt-oss-120b"}
	o := benchmark.Options{Extra: spec.Extra{"tokenizer": "/tok"}}
	got := WithTestOptions(b, "TEST07", o)
	if got.Extra["eval-set"] != "gpqa-compliance" || got.Extra["tokenizer"] != "/tok" || o.Extra["eval-set"] != "" {
		t.Errorf("TEST07: %v (caller's %v)", got.Extra, o.Extra)
	}
	if got := WithTestOptions(b, "TEST09", o); got.Extra["eval-set"] != "" {
		t.Errorf("TEST09: %v", got.Extra)
	}
	if got := WithTestOptions(&spec.Benchmark{Name: "resnet50"}, "TEST07", o); len(got.Extra) != 1 {
		t.Errorf("resnet50: %v", got.Extra)
	}
}
