package submission

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/internal/fakebench"
)

func init() { benchmark.Register(fakebench.New(256, 200*time.Microsecond)) }

// gates are the checks a short run on a test benchmark cannot pass: the
// 600 s minimum duration, the data set size and sample counts of the real
// resnet50, the Offline minimum query size, and verdicts that depend on
// the timing of two short runs on a busy machine.
var gates = regexp.MustCompile(`Test duration less than 600s|accurcy run does not cover all dataset|performance_sample_count, found|Required minimum samples per query|Compliance test performance check .* failed|Early stopping condition was not met|^Some (performance|accuracy|compliance) checks? Checks failed for|^NoResults `)

func TestMainRunsAndWritesATreeTheCheckerAccepts(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	conf := filepath.Join(dir, "user.conf")
	os.WriteFile(conf, []byte("*.*.min_duration = 100\n*.*.min_query_count = 64\n*.SingleStream.target_latency = 0.2\n*.MultiStream.target_latency = 0.2\n*.Offline.target_qps = 4000\n"), 0o644)
	out := filepath.Join(dir, "tree")
	var stdout, stderr bytes.Buffer
	err := Main(context.Background(), []string{"--benchmark", fakebench.Name, "--out", out, "--user-conf", conf, "--submitter", "Tester", "--system-name", "box", "--test01-dtype", "int32"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	sc := filepath.Join(out, "closed/Tester/results/box/resnet")
	for _, s := range []string{"SingleStream", "MultiStream", "Offline"} {
		for _, f := range []string{"measurements.json", "user.conf", "README.md", "accuracy/accuracy.txt", "accuracy/mlperf_log_accuracy.json",
			"performance/run_1/mlperf_log_detail.txt", "TEST01/verify_accuracy.txt", "TEST01/verify_performance.txt", "TEST04/verify_performance.txt",
			"TEST04/performance/run_1/mlperf_log_summary.txt"} {
			if _, err := os.Stat(filepath.Join(sc, s, f)); err != nil {
				t.Errorf("%s: %v", s, err)
			}
		}
		readme, _ := os.ReadFile(filepath.Join(sc, s, "README.md"))
		if !strings.Contains(string(readme), "mlperf submission --benchmark "+fakebench.Name) || !strings.Contains(string(readme), "mlperf run "+fakebench.Name+" --scenario "+s) || !strings.Contains(string(readme), "LoadGen 6.0.17") {
			t.Errorf("%s README.md:\n%s", s, readme)
		}
		acc, _ := os.ReadFile(filepath.Join(sc, s, "accuracy/accuracy.txt"))
		if !regexp.MustCompile(`(?m)^accuracy=100\.000%.*\n\nhash=[0-9a-f]{64}$`).Match(acc) {
			t.Errorf("%s accuracy.txt:\n%s", s, acc)
		}
		if st, _ := os.Stat(filepath.Join(sc, s, "accuracy/mlperf_log_accuracy.json")); st == nil || st.Size() > 10240 {
			t.Errorf("%s accuracy log not truncated", s)
		}
	}
	for _, f := range []string{"closed/Tester/systems/box.json", "closed/Tester/src/README.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	rep, err := check.Check(out, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep.Errors() {
		if !gates.MatchString(e) {
			t.Errorf("checker error beyond the short-run gates: %s", e)
		}
	}
	if len(rep.Errors()) == 0 {
		t.Error("no errors: a 100 ms run cannot meet the 600 s minimum")
	}

	// --from collects the same runs into a second tree.
	out2 := filepath.Join(dir, "tree2")
	stdout.Reset()
	err = Main(context.Background(), []string{"--benchmark", fakebench.Name, "--out", out2, "--from", out + "-runs", "--submitter", "Tester", "--system-name", "box", "--test01-dtype", "int32"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("--from: %v\n%s", err, stderr.String())
	}
	rep2, err := check.Check(out2, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep2.Errors() {
		if !gates.MatchString(e) {
			t.Errorf("--from tree: checker error beyond the gates: %s", e)
		}
	}
}

func TestTruncateAccuracyAsTheScript(t *testing.T) {
	dir := t.TempDir()
	log := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16000 bytes
	os.WriteFile(filepath.Join(dir, "mlperf_log_accuracy.json"), log, 0o644)
	os.WriteFile(filepath.Join(dir, "accuracy.txt"), []byte("accuracy=76.500%, good=1, total=1\n"), 0o644)
	if err := TruncateAccuracy(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_accuracy.json"))
	want := string(log[:4096]) + "\n\n...\n\n" + string(log[len(log)-4096:])
	if string(got) != want {
		t.Fatalf("truncated log of %d bytes, want %d", len(got), len(want))
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "accuracy.txt"))
	// sha256 of the 16000 bytes, from Python's hashlib.
	if string(txt) != "accuracy=76.500%, good=1, total=1\n\nhash=0c7cdca23b2eaad05f07c63161c741609a847b8a87a32accee995ec9cf546856\n" {
		t.Fatalf("accuracy.txt:\n%s", txt)
	}
	// A second pass leaves a hashed, truncated folder alone.
	if err := TruncateAccuracy(dir); err != nil {
		t.Fatal(err)
	}
	txt2, _ := os.ReadFile(filepath.Join(dir, "accuracy.txt"))
	if string(txt2) != string(txt) {
		t.Fatal("second pass changed accuracy.txt")
	}
}

// A --from folder that does not exist is named as such, not as a missing
// scenario folder inside it.
func TestMainFromMissingFolder(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	missing := filepath.Join(dir, "runs")
	err := Main(context.Background(), []string{"--benchmark", fakebench.Name, "--out", filepath.Join(dir, "out"), "--from", missing, "--submitter", "Tester", "--system-name", "box"}, &stdout, &stderr)
	if !errors.Is(err, ErrNoRuns) || !strings.Contains(err.Error(), "--from "+missing+" does not exist") {
		t.Fatalf("err = %v", err)
	}
}
