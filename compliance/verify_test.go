package compliance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// testdata/cases hold logs from this suite's loadgen (SingleStream and
// Offline: accuracy and performance runs, the TEST01 and TEST04 runs);
// testdata/variants.txt breaks them; testdata/golden/<variant> holds what
// the real run_verification.py wrote and printed on each, recorded by
// testdata/make_golden.py. mutateCase applies the same rules.

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mutateCase applies the mutations of one variants.txt line: none, or
// groups of sub|subline FILE OLD NEW.
func mutateCase(t *testing.T, dir string, f []string) {
	t.Helper()
	if f[0] == "none" {
		return
	}
	if len(f)%4 != 0 {
		t.Fatalf("mutations %q: want groups of four fields", f)
	}
	for ; len(f) > 0; f = f[4:] {
		mutateOne(t, dir, f[:4])
	}
}

func mutateOne(t *testing.T, dir string, f []string) {
	t.Helper()
	p := filepath.Join(dir, f[1])
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	switch f[0] {
	case "sub":
		if !bytes.Contains(b, []byte(f[2])) {
			t.Fatalf("%s lacks %q", p, f[2])
		}
		b = bytes.ReplaceAll(b, []byte(f[2]), []byte(f[3]))
	case "subline":
		lines := strings.SplitAfter(string(b), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, f[2]) {
				lines[i] = f[3] + "\n"
			}
		}
		b = []byte(strings.Join(lines, ""))
	default:
		t.Fatalf("unknown mutation %q", f[0])
	}
	os.WriteFile(p, b, 0o644)
}

var logParserTime = regexp.MustCompile(`(?m)^\[[0-9-]+ [0-9:,]+ log_parser\.py:\d+ INFO\]`)

func normalize(s, tmp string) string {
	s = strings.ReplaceAll(s, tmp+string(filepath.Separator), "")
	return logParserTime.ReplaceAllString(s, "[TIME log_parser.py:72 INFO]")
}

func TestVerifyWritesRunVerificationsLines(t *testing.T) {
	vb, err := os.ReadFile("testdata/variants.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(vb), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		name, cs, test, dtype := f[0], f[1], f[2], f[3]
		if dtype == "-" {
			dtype = ""
		}
		n++
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			c := filepath.Join(tmp, "case")
			copyDir(t, filepath.Join("testdata/cases", cs), c)
			mutateCase(t, c, f[4:])
			var console bytes.Buffer
			res, err := Verify(&console, test, filepath.Join(c, "results"), filepath.Join(c, test), filepath.Join(c, "out"), dtype, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata/golden", name)
			want, _ := os.ReadFile(filepath.Join(golden, "console.txt"))
			if got := normalize(console.String(), tmp); got != string(want) {
				t.Errorf("console:\n%s\nrun_verification.py:\n%s", got, want)
			}
			for _, fn := range []string{"verify_accuracy.txt", "verify_performance.txt"} {
				want, werr := os.ReadFile(filepath.Join(golden, fn))
				got, gerr := os.ReadFile(filepath.Join(c, "out", test, fn))
				if (werr == nil) != (gerr == nil) {
					t.Errorf("%s: written %v, the script wrote it %v", fn, gerr == nil, werr == nil)
					continue
				}
				if werr == nil && normalize(string(got), tmp) != string(want) {
					t.Errorf("%s:\n%s\nrun_verification.py's:\n%s", fn, normalize(string(got), tmp), want)
				}
			}
			// The copies the checker reads.
			for _, fn := range []string{"performance/run_1/mlperf_log_detail.txt", "performance/run_1/mlperf_log_summary.txt"} {
				if _, err := os.Stat(filepath.Join(c, "out", test, fn)); err != nil {
					t.Errorf("%s not copied: %v", fn, err)
				}
			}
			if test == "TEST01" {
				if _, err := os.Stat(filepath.Join(c, "out", test, "accuracy/mlperf_log_accuracy.json")); err != nil {
					t.Errorf("accuracy log not copied: %v", err)
				}
				base := filepath.Join(tmp, "baseline.json")
				if err := Baseline(filepath.Join(c, "results/accuracy/mlperf_log_accuracy.json"), filepath.Join(c, test, "mlperf_log_accuracy.json"), base); err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(base)
				want, _ := os.ReadFile(filepath.Join(golden, "mlperf_log_accuracy_baseline.json"))
				if !bytes.Equal(got, want) {
					t.Errorf("baseline log differs from create_accuracy_baseline.sh's:\n%s\nwant:\n%s", got, want)
				}
			}
			wantPass := (!res.AccuracyChecked || strings.Contains(string(want), "Accuracy check pass: True")) &&
				(!res.PerformanceCheck || strings.Contains(string(want), "Performance check pass: True"))
			if res.Pass() != wantPass {
				t.Errorf("Pass() %v, run_verification.py's lines say %v", res.Pass(), wantPass)
			}
		})
	}
	if n < 31 {
		t.Fatalf("only %d variants", n)
	}
}

func TestAuditConfigs(t *testing.T) {
	for _, c := range []struct{ test, bench, want string }{
		{"TEST01", "resnet50", "*.*.accuracy_log_sampling_target = 4096\n"},
		{"TEST01", "3d-unet", "*.*.accuracy_log_sampling_target = 64\n"},
		{"TEST01", "sdxl", "*.*.accuracy_log_sampling_target = 128\n"},
		{"TEST01", "retinanet", "*.*.accuracy_log_sampling_target = 256\n"},
		{"TEST04", "resnet50", "*.Server.performance_issue_same_index = 3\n"},
		{"TEST06", "llama2-70b", "*.*.sample_concatenate_permutation = 0\n"},
	} {
		got, err := AuditConfig(c.test, c.bench)
		if err != nil || !strings.Contains(got, c.want) {
			t.Errorf("%s %s: %v\n%s", c.test, c.bench, err, got)
		}
	}
	if _, err := AuditConfig("TEST01", "llama2-70b"); err == nil {
		t.Error("TEST01 for llama2: no error")
	}
	if _, err := AuditConfig("TEST05", "resnet50"); err == nil {
		t.Error("TEST05: no error")
	}
}

func TestPyFloat(t *testing.T) {
	for v, want := range map[float64]string{1000: "1000.0", 891.541: "891.541", 822.9707598489026: "822.9707598489026", 1e16: "1e+16", 1.5e-5: "1.5e-05", 0: "0.0", 1215110: "1215110.0"} {
		if got := pyFloat(v); got != want {
			t.Errorf("pyFloat(%v) = %s, want %s", v, got, want)
		}
	}
}

// TEST01's Part III on a run whose performance-mode answers differ: the
// baseline (accuracy-run answers for the logged samples) scores 100%, the
// compliance log far less, and both files land where the checker looks.
func TestFallbackWritesBaselineAndComplianceScores(t *testing.T) {
	tmp := t.TempDir()
	c := filepath.Join(tmp, "case")
	copyDir(t, "testdata/cases/Offline", c)
	mutateCase(t, c, []string{"sub", "TEST01/mlperf_log_accuracy.json", `"data" : "`, `"data" : "FF000000`})
	var console bytes.Buffer
	res, err := Verify(&console, "TEST01", filepath.Join(c, "results"), filepath.Join(c, "TEST01"), c, "int32", "", 0)
	if err != nil || res.AccuracyPass {
		t.Fatalf("verify: %v, accuracy pass %v", err, res.AccuracyPass)
	}
	score := func(log string) ([]string, error) {
		good, total := 0, 0
		entries, err := readAccLog(log)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			total++
			if v, ok, _ := first(e.Data, "int32"); ok && uint64(v) == e.QSLIdx {
				good++
			}
		}
		return []string{fmt.Sprintf("accuracy=%.3f%%, good=%d, total=%d", 100*float64(good)/float64(total), good, total)}, nil
	}
	if err := Fallback(filepath.Join(c, "TEST01"), filepath.Join(c, "results/accuracy/mlperf_log_accuracy.json"), score); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(c, "TEST01/accuracy/baseline_accuracy.txt"))
	p, _ := os.ReadFile(filepath.Join(c, "TEST01/accuracy/compliance_accuracy.txt"))
	if string(b) != "accuracy=100.000%, good=59, total=59\n" || string(p) != "accuracy=0.000%, good=0, total=61\n" {
		t.Fatalf("baseline %q, compliance %q", b, p)
	}
	// A scorer's error names the log; a score file that cannot be written
	// is an error.
	boom := errors.New("scorer broke")
	if err := Fallback(filepath.Join(c, "TEST01"), filepath.Join(c, "results/accuracy/mlperf_log_accuracy.json"), func(string) ([]string, error) { return nil, boom }); !errors.Is(err, boom) || !strings.Contains(err.Error(), "scoring mlperf_log_accuracy_baseline.json") {
		t.Errorf("scorer error: %v", err)
	}
	out := filepath.Join(c, "TEST01/accuracy/compliance_accuracy.txt")
	os.Remove(out)
	os.Mkdir(out, 0o755)
	if err := Fallback(filepath.Join(c, "TEST01"), filepath.Join(c, "results/accuracy/mlperf_log_accuracy.json"), score); err == nil || !strings.Contains(err.Error(), "compliance_accuracy.txt") {
		t.Errorf("score file that is a folder: %v", err)
	}
}

func TestModelSpecificAuditLines(t *testing.T) {
	a, _ := AuditConfig("TEST04", "stable-diffusion-xl")
	if n := modelMinQueries(a, "stable-diffusion-xl", "Offline"); n != 500 {
		t.Errorf("sdxl Offline: %d, want 500", n)
	}
	if n := modelMinQueries(a, "wan-2.2-t2v-a14b", "SingleStream"); n != 20 {
		t.Errorf("wan SingleStream: %d, want 20", n)
	}
	if n := modelMinQueries(a, "stable-diffusion-xl", "Server"); n != 0 {
		t.Errorf("sdxl Server: %d, want 0", n)
	}
	if n := modelMinQueries(a, "resnet50", "Offline"); n != 0 {
		t.Errorf("resnet50: %d, want 0", n)
	}
}

// TestBaselineFaults: a missing compliance log, a missing accuracy log and
// an output that cannot be written are errors naming the file; logs with no
// common qsl_idx give an empty list.
func TestBaselineFaults(t *testing.T) {
	dir := t.TempDir()
	acc := filepath.Join(dir, "acc.json")
	perf := filepath.Join(dir, "perf.json")
	os.WriteFile(acc, []byte("[\n{ \"seq_id\" : 0, \"qsl_idx\" : 4, \"data\" : \"00\" },\n]\n"), 0o644)
	os.WriteFile(perf, []byte("[\n{ \"seq_id\" : 0, \"qsl_idx\" : 5, \"data\" : \"00\" },\n]\n"), 0o644)
	out := filepath.Join(dir, "base.json")
	if err := Baseline(acc, perf, out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "[\n]\n" {
		t.Errorf("no common qsl_idx: %q, want an empty list", b)
	}
	for _, c := range []struct{ acc, perf, out, want string }{
		{acc, filepath.Join(dir, "none.json"), out, "none.json"},
		{filepath.Join(dir, "gone.json"), perf, out, "gone.json"},
		{acc, perf, filepath.Join(acc, "x.json"), "acc.json/x.json"},
	} {
		if err := Baseline(c.acc, c.perf, c.out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Baseline(%s, %s, %s): %v, want an error naming %s", c.acc, c.perf, c.out, err, c.want)
		}
	}
}

// TestFirstElement: numpy's frombuffer(...)[0] of a hex response per dtype;
// an empty response has none; a partial element is the ValueError.
func TestFirstElement(t *testing.T) {
	for _, c := range []struct {
		hex, dtype string
		want       float64
		ok         bool
		err        bool
	}{
		{"FF01", "byte", -1, true, false},
		{"7F", "byte", 127, true, false},
		{"", "int32", 0, false, false},
		{"FEFFFFFF", "int32", -2, true, false},
		{"0000C03F", "float32", 1.5, true, false},
		{"0500000000000000", "int64", 5, true, false},
		{"050000", "int32", 0, false, true},
		{"05000000", "int64", 0, false, true},
		{"0G", "byte", 0, false, true},
	} {
		v, ok, err := first(c.hex, c.dtype)
		if v != c.want || ok != c.ok || (err != nil) != c.err {
			t.Errorf("first(%q, %s) = %v, %v, %v; want %v, %v, error %v", c.hex, c.dtype, v, ok, err, c.want, c.ok, c.err)
		}
	}
	if _, err := VerifyAccuracyTEST01(io.Discard, "a.json", "b.json", "uint8"); err == nil || !strings.Contains(err.Error(), `--dtype "uint8"`) {
		t.Errorf("dtype uint8: %v", err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log.json")
	os.WriteFile(log, []byte("[]"), 0o644)
	for _, c := range []struct{ acc, perf string }{{filepath.Join(dir, "none.json"), log}, {log, filepath.Join(dir, "none.json")}} {
		if _, err := VerifyAccuracyTEST01(io.Discard, c.acc, c.perf, ""); err == nil || !strings.Contains(err.Error(), "none.json") {
			t.Errorf("missing log (%s, %s): %v", c.acc, c.perf, err)
		}
	}
}

// TestVerifyArgumentErrors: TEST06 wants a known -d (int32 by default) and
// the scenario; an unknown test is refused; none reads a log first.
func TestVerifyArgumentErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ test, dtype, scenario, want string }{
		{"TEST06", "bogus", "Offline", "compliance: TEST06 --dtype: "},
		{"test06", "", "", "compliance: TEST06 needs the scenario"},
		{"TEST06", "int64", "", "compliance: TEST06 needs the scenario"},
		{"TEST05", "", "Offline", `compliance: unknown test "TEST05"`},
	} {
		_, err := Verify(io.Discard, c.test, dir, dir, dir, c.dtype, c.scenario, 2)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Verify(%s, -d %q, -s %q): %v, want %q", c.test, c.dtype, c.scenario, err, c.want)
		}
	}
}

// TestCopyIntoReportsAsTheScript: a copy that fails prints
// run_verification.py's exception line; a good one keeps the bytes and the
// modification time (shutil.copy2).
func TestCopyIntoReportsAsTheScript(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "log.txt")
	os.WriteFile(src, []byte("abc"), 0o644)
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(src, old, old)
	var w bytes.Buffer
	copyInto(&w, filepath.Join(dir, "none.txt"), dir)
	missingDir := filepath.Join(dir, "nodir")
	copyInto(&w, src, missingDir)
	folder := filepath.Join(dir, "folder") // opens, but cannot be read as a file
	os.Mkdir(folder, 0o755)
	os.Mkdir(filepath.Join(dir, "into"), 0o755)
	copyInto(&w, folder, filepath.Join(dir, "into"))
	want := "Exception occured trying to copy " + filepath.Join(dir, "none.txt") + " to " + dir + "\n" +
		"Exception occured trying to copy " + src + " to " + missingDir + "\n" +
		"Exception occured trying to copy " + folder + " to " + filepath.Join(dir, "into") + "\n"
	if w.String() != want {
		t.Errorf("printed %q, want %q", w.String(), want)
	}
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	w.Reset()
	copyInto(&w, src, out)
	st, err := os.Stat(filepath.Join(out, "log.txt"))
	b, _ := os.ReadFile(filepath.Join(out, "log.txt"))
	if w.Len() != 0 || err != nil || string(b) != "abc" || !st.ModTime().Equal(old) {
		t.Errorf("copy: printed %q, %v, %q, time %v; want abc at %v", w.String(), err, b, st.ModTime(), old)
	}
}
