//go:build cgo

package sdxl

import (
	"bytes"
	"context"
	"github.com/mlperf-go/inference/benchmark/spec"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
)

// `mlperf run sdxl --model synthetic:tiny --data synthetic --mode accuracy`
// end to end: the loadgen run, the FID / CLIP line, accuracy.txt and the
// review images of the round's ids (here 0 and 2) with their captions.
func TestRunAccuracyTinyEndToEnd(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	o := benchmark.Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: "synthetic:tiny", Data: "synthetic",
		Backend: "cpu", Threads: 1, Out: out, Extra: spec.Extra{optWarmup: "1"},
		AccuracyFiles: map[string][]string{"images": {"2", "0"}}}
	if _, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr); err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	line := regexp.MustCompile(`Accuracy Results: \{'FID_SCORE': '([0-9.e+-]+)', 'CLIP_SCORE': '(-?[0-9.e+-]+)'\}`)
	m := line.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no FID/CLIP line in:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), benchmark.SyntheticNote) {
		t.Error("no synthetic note")
	}
	acc, err := os.ReadFile(filepath.Join(out, "accuracy.txt"))
	if err != nil || !strings.Contains(string(acc), m[0]) {
		t.Errorf("accuracy.txt %q, %v", acc, err)
	}
	if !strings.Contains(stderr.String(), "3 steps, not the reference's 20") {
		t.Errorf("the run does not state the tiny model's steps:\n%s", stderr.String())
	}
	caps, err := os.ReadFile(filepath.Join(out, "images", "captions.txt"))
	if lines := strings.Split(strings.TrimSpace(string(caps)), "\n"); err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], "2  ") || !strings.HasPrefix(lines[1], "0  ") {
		t.Errorf("captions.txt %q (%v): want the captions of ids 2 and 0", caps, err)
	}
	for id, want := range map[string]bool{"0": true, "1": false, "2": true} {
		if _, err := os.Stat(filepath.Join(out, "images", id+".png")); (err == nil) != want {
			t.Errorf("images/%s.png: %v, want present %v", id, err, want)
		}
	}
	// `mlperf accuracy sdxl` on the same log and data gives the same scores.
	var acc2 bytes.Buffer
	if _, err := benchmark.Accuracy(context.Background(), descriptor, &benchmark.AccuracyRequest{
		Log: filepath.Join(out, "mlperf_log_accuracy.json"), Data: "synthetic"}, &acc2); err != nil {
		t.Fatal(err)
	}
	m2 := line.FindStringSubmatch(acc2.String())
	if m2 == nil {
		t.Fatalf("mlperf accuracy printed %q", acc2.String())
	}
	for i := 1; i <= 2; i++ {
		a, _ := strconv.ParseFloat(m[i], 64)
		b, _ := strconv.ParseFloat(m2[i], 64)
		if math.Abs(a-b) > 1e-4*math.Abs(a) {
			t.Errorf("run scored %s, accuracy %s", m[i], m2[i])
		}
	}
	t.Log(m[0])
}
