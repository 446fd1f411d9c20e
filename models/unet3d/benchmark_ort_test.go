//go:build cgo

package unet3d

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
)

func needORT(t testing.TB) {
	t.Helper()
	if err := ort.Init(); err != nil {
		if errors.Is(err, ort.ErrNoLibrary) {
			t.Skipf("ONNX Runtime not available: %v", err)
		}
		t.Fatal(err)
	}
}

// TestRunAccuracyTiny is `mlperf run unet3d --model synthetic:tiny --data
// synthetic --mode accuracy`: the tiny synthetic model over the three
// synthetic cases (four 128³ windows), scored as accuracy_kits.py does.
func TestRunAccuracyTiny(t *testing.T) {
	needORT(t)
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	for _, sc := range []loadgen.Scenario{loadgen.Offline, loadgen.SingleStream} {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		o := benchmark.Options{Scenario: sc, Mode: loadgen.AccuracyOnly, Model: "synthetic:tiny", Data: "synthetic", Backend: "cpu", Out: out, Batch: 2}
		if _, err := benchmark.Run(context.Background(), Benchmark, o, &stdout, &stderr); err != nil {
			t.Fatalf("%v: Run: %v\n%s", sc, err, stderr.String())
		}
		t.Logf("%v:\n%s%s", sc, stdout.String(), stderr.String())
		re := regexp.MustCompile(`Accuracy: mean = [01]\.\d{5}, kidney = [01]\.\d{4}, tumor = [01]\.\d{4}\n`)
		if !re.MatchString(stdout.String()) || !strings.Contains(stdout.String(), benchmark.SyntheticNote) {
			t.Errorf("%v: stdout lacks the accuracy line and the synthetic note:\n%s", sc, stdout.String())
		}
		acc, err := os.ReadFile(filepath.Join(out, "accuracy.txt"))
		if err != nil || !re.Match(acc) {
			t.Errorf("%v: accuracy.txt = %q, %v", sc, acc, err)
		}
		if !strings.Contains(stderr.String(), "engine busy") {
			t.Errorf("%v: no engine-busy line on stderr:\n%s", sc, stderr.String())
		}
	}
}
