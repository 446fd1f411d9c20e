package torchgolden

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/onnx"
)

func writeWeights(t *testing.T, index string, vals []float32) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "weights.txt"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	if err := os.WriteFile(filepath.Join(dir, "weights.bin"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadAndReplace(t *testing.T) {
	dir := writeWeights(t, "fc.weight 2,3\nfc.bias 3\n", []float32{1, 2, 3, 4, 5, 6, 7, 8, 9})
	ws, err := ReadWeights(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Name != "fc.weight" || ws[1].Elements() != 3 {
		t.Fatalf("weights %v", ws)
	}
	if v, _ := ws[1].Values(); v[2] != 9 {
		t.Fatalf("fc.bias = %v, want [7 8 9]", v)
	}
	build := func(biasDims int64) *onnx.Graph {
		g := onnx.NewGraph(onnx.Config{Name: "t"})
		x := g.Input("x", onnx.Float, onnx.Fix(1), onnx.Fix(2))
		w := g.Param("fc.weight", onnx.Float, []int64{2, 3}, onnx.Uniform(0, 1))
		b := g.Param("fc.bias", onnx.Float, []int64{biasDims}, onnx.Uniform(0, 1))
		g.Output(g.Add(g.Mul(g.MatMul(x, w), g.Scalar(onnx.Float, 2)), b), onnx.Float, onnx.Fix(1), onnx.Fix(3))
		return g
	}
	g := build(3)
	if err := Replace(g, ws); err != nil {
		t.Fatal(err)
	}
	for _, in := range g.Initializers() {
		if in.Name == "fc.weight" {
			if v, _ := in.Values(); v[5] != 6 {
				t.Fatalf("fc.weight not replaced: %v", v)
			}
		}
	}
	if err := Replace(build(4), ws); err == nil || !strings.Contains(err.Error(), "fc.bias") {
		t.Errorf("shape mismatch: %v", err)
	}
	if err := Replace(build(3), ws[:1]); err == nil || !strings.Contains(err.Error(), "fc.bias has no PyTorch weight") {
		t.Errorf("missing weight: %v", err)
	}
	if _, err := ReadWeights(writeWeights(t, "a.b 4\n", []float32{1, 2})); err == nil {
		t.Error("short weights.bin accepted")
	}
}

func TestDiff(t *testing.T) {
	want := []float32{1, 100, 0}
	if bad, _ := Diff([]float32{1.00001, 100.005, 1e-7}, want, 1e-6, 1e-4); bad != 0 {
		t.Errorf("within tolerance: %d differ", bad)
	}
	if bad, s := Diff([]float32{1.01, 100, float32(math.NaN())}, want, 1e-6, 1e-4); bad != 2 || !strings.Contains(s, "[0]") {
		t.Errorf("2 off: %d differ (%s)", bad, s)
	}
}
