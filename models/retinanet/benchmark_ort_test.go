//go:build cgo

package retinanet

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend/ort/orttest"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
)

// TestRunAccuracyTinySynthetic is `mlperf run retinanet --model
// synthetic:tiny --data synthetic --mode accuracy`: the whole chain from
// the synthetic data set and model through the loadgen to the COCO
// scorer's summarize() table and mAP= line.
func TestRunAccuracyTinySynthetic(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	// The first 4 of the 8 synthetic images keep the test short; the
	// path is the one the whole set takes.
	o := benchmark.Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: "synthetic:tiny", Data: "synthetic", Backend: "cpu", Out: out, Count: 4}
	if _, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr); err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	s := stdout.String()
	if !regexp.MustCompile(`(?m)^mAP=\d+\.\d{3}%$`).MatchString(s) {
		t.Errorf("stdout lacks the mAP= line:\n%s", s)
	}
	if !strings.Contains(s, " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = ") || !strings.Contains(s, benchmark.SyntheticNote) {
		t.Errorf("stdout lacks the summarize() table or the synthetic note:\n%s", s)
	}
	acc, err := os.ReadFile(filepath.Join(out, "accuracy.txt"))
	if err != nil || !strings.Contains(string(acc), "mAP=") {
		t.Errorf("accuracy.txt = %q, %v", acc, err)
	}
	// Every image answered, with whole 28-byte records whose first field
	// is the qsl_idx.
	log, err := os.ReadFile(filepath.Join(out, "mlperf_log_accuracy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), `"qsl_idx"`); n != 4 {
		t.Errorf("accuracy log has %d entries, want 4", n)
	}
	if !strings.Contains(stderr.String(), "detections") {
		t.Errorf("stderr lacks the scorer's counts:\n%s", stderr.String())
	}
}

// TestRunScenarios runs a fast stand-in model with the contract's I/O
// through each scenario in performance mode (short settings) and checks
// that LoadGen completed and reported the scenario.
func TestRunScenarios(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	model := writeModel(t, inputName, 1, inputSize, true)
	for _, sc := range descriptor.Scenarios {
		t.Run(sc.String(), func(t *testing.T) {
			o := benchmark.Options{Scenario: sc, Mode: loadgen.PerformanceOnly, Model: model, Data: "synthetic", Backend: "cpu",
				Out: t.TempDir(), Duration: time.Millisecond, MinQueries: 2, QPS: 20}
			var stdout, stderr bytes.Buffer
			res, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if res.Scenario != sc || res.SampleCount == 0 || !strings.Contains(stdout.String(), "Scenario : "+sc.String()) {
				t.Errorf("result %+v\n%s", res, stdout.String())
			}
		})
	}
}

// TestAccuracyCommand is `mlperf accuracy retinanet --benchmark
// retinanet`: a log answering every synthetic image with its ground-truth
// boxes scores mAP=100.000% and meets the closed target; a log of the tiny
// model does not.
func TestAccuracyCommand(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	ds, err := loadData("synthetic", 0, "", benchmark.CacheDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	log.WriteString("[\n")
	for i, im := range ds.GT.Images {
		var data []byte
		for _, a := range ds.GT.Annotations {
			if a.ImageID != im.ID {
				continue
			}
			d := &detections{
				Boxes:  []float32{float32(a.BBox[0] / im.Width * inputSize), float32(a.BBox[1] / im.Height * inputSize), float32((a.BBox[0] + a.BBox[2]) / im.Width * inputSize), float32((a.BBox[1] + a.BBox[3]) / im.Height * inputSize)},
				Scores: []float32{0.9},
				Labels: []int64{a.CategoryID},
			}
			data = encodeResponse(data, i, d)
		}
		if i > 0 {
			log.WriteString(",\n")
		}
		fmt.Fprintf(&log, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%X" }`, i, i, data)
	}
	log.WriteString("\n]\n")
	path := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	os.WriteFile(path, []byte(log.String()), 0o644)
	out := filepath.Join(t.TempDir(), "accuracy.txt")
	var stdout bytes.Buffer
	req := &benchmark.AccuracyRequest{Log: path, Data: "synthetic", Out: out, CheckerID: "retinanet"}
	if _, err := benchmark.Accuracy(context.Background(), descriptor, req, &stdout); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "mAP=100.000%") {
		t.Errorf("perfect log:\n%s", stdout.String())
	}
	if acc, _ := os.ReadFile(out); !strings.Contains(string(acc), "mAP=100.000%") {
		t.Errorf("accuracy.txt: %q", acc)
	}
	// A stand-in model's own log misses the target.
	runOut := t.TempDir()
	o := benchmark.Options{Scenario: loadgen.SingleStream, Mode: loadgen.AccuracyOnly, Model: writeModel(t, inputName, 1, inputSize, true), Data: "synthetic", Backend: "cpu", Out: runOut, Count: 2}
	if _, err := benchmark.Run(context.Background(), descriptor, o, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	req = &benchmark.AccuracyRequest{Log: filepath.Join(runOut, "mlperf_log_accuracy.json"), Data: "synthetic", Count: 2, CheckerID: "retinanet"}
	stdout.Reset()
	if _, err := benchmark.Accuracy(context.Background(), descriptor, req, &stdout); err == nil || !strings.Contains(err.Error(), "accuracy target of retinanet not met") {
		t.Errorf("synthetic run: err = %v\n%s", err, stdout.String())
	}
}
