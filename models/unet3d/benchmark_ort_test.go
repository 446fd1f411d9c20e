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

	"github.com/mlperf-go/inference/backend/ort/orttest"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/datasets/kits19"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/onnx"
)

// TestRunAccuracyTiny is `mlperf run unet3d --model synthetic:tiny --data
// synthetic --mode accuracy`: the tiny synthetic model over the three
// synthetic cases (four 128³ windows) in Offline, and over the first case
// in SingleStream, scored as accuracy_kits.py does.
func TestRunAccuracyTiny(t *testing.T) {
	orttest.Need(t)
	for _, tc := range []struct {
		sc    loadgen.Scenario
		count int
	}{{loadgen.Offline, 0}, {loadgen.SingleStream, 1}} {
		sc := tc.sc
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		o := benchmark.Options{Scenario: sc, Mode: loadgen.AccuracyOnly, Model: "synthetic:tiny", Data: "synthetic", Backend: "cpu", Out: out, Batch: 2, Count: tc.count}
		if _, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr); err != nil {
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

// TestWrongModelRejected: a model whose output has 2 channels instead of
// the 3 classes ends in a contract error naming the fix, before any run.
func TestWrongModelRejected(t *testing.T) {
	orttest.Need(t)
	for _, tc := range []struct {
		name    string
		in, out int64
	}{{"two output channels", 1, 2}, {"two input channels", 2, 3}} {
		g := onnx.NewGraph(onnx.Config{Name: "wrong", Seed: 1})
		x := g.Input(inputName, onnx.Float, onnx.Sym("N"), onnx.Fix(tc.in), onnx.Fix(window), onnx.Fix(window), onnx.Fix(window))
		w := g.Param("w", onnx.Float, []int64{tc.out, tc.in, 1, 1, 1}, onnx.Uniform(-1, 1))
		g.Rename(g.Conv(x, w, "", onnx.ConvOpts{}), outputName)
		g.Output(outputName, onnx.Float, onnx.Sym("N"), onnx.Fix(tc.out), onnx.Fix(window), onnx.Fix(window), onnx.Fix(window))
		path := filepath.Join(t.TempDir(), "wrong.onnx")
		if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		o := benchmark.Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: path, Data: "synthetic", Backend: "cpu", Out: t.TempDir()}
		_, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr)
		if !errors.Is(err, errContract) || !strings.Contains(err.Error(), "download_model.sh") {
			t.Errorf("%s: Run = %v; want ErrContract naming download_model.sh", tc.name, err)
		}
	}
}

// TestRawDataRejected: --data pointing at raw cases asks for preprocessing.
func TestRawDataRejected(t *testing.T) {
	raw := t.TempDir()
	if _, err := kits19.Synth(raw, 1, 1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := resolveData(raw, t.TempDir(), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "mlperf dataset preprocess kits19") {
		t.Errorf("raw --data: %v", err)
	}
	if _, _, err := resolveData(t.TempDir(), t.TempDir(), &bytes.Buffer{}); !errors.Is(err, kits19.ErrNotPreprocessed) {
		t.Errorf("empty --data folder: %v", err)
	}
}
