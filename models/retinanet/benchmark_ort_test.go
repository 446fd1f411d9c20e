//go:build cgo

package retinanet

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
)

// TestRunAccuracyTinySynthetic is `mlperf run retinanet --model
// synthetic:tiny --data synthetic --mode accuracy`: the whole chain from
// the synthetic data set and model through the loadgen to the COCO
// scorer's summarize() table and mAP= line.
func TestRunAccuracyTinySynthetic(t *testing.T) {
	needORT(t)
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	o := benchmark.Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: "synthetic:tiny", Data: "synthetic", Backend: "cpu", Out: out}
	if _, err := benchmark.Run(context.Background(), Desc, o, &stdout, &stderr); err != nil {
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
	if n := strings.Count(string(log), `"qsl_idx"`); n != SynthSamples {
		t.Errorf("accuracy log has %d entries, want %d", n, SynthSamples)
	}
	if !strings.Contains(stderr.String(), "detections") {
		t.Errorf("stderr lacks the scorer's counts:\n%s", stderr.String())
	}
}
