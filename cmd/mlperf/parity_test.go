package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx"
)

// parityModelFile writes y = relu(x·W + b), x [N,4], into dir/name.
func parityModelFile(t *testing.T, dir, name string) string {
	t.Helper()
	g := onnx.NewGraph(onnx.Config{Name: "linear"})
	x := g.Input("x", onnx.Float, onnx.Sym("N"), onnx.Fix(4))
	w := g.Const("w", onnx.Float, []int64{4, 3}, []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, -1, 0.5})
	b := g.Const("b", onnx.Float, []int64{3}, []float32{0.5, 0, -1})
	g.Output(g.Rename(g.Relu(g.Add(g.MatMul(x, w), b)), "y"), onnx.Float, onnx.Sym("N"), onnx.Fix(3))
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := g.WriteFile(p, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// parity on the CPU against itself: every model of a folder is checked,
// with the given input shape, and passes with zero differences.
func TestParityCPUAgainstCPUPasses(t *testing.T) {
	orttest.Need(t)
	dir := t.TempDir()
	parityModelFile(t, dir, "a/model.onnx")
	parityModelFile(t, dir, "b/model.onnx")
	var out, errb bytes.Buffer
	code := runMain([]string{"parity", "--model", dir, "--backend", "cpu", "--against", "cpu", "--shape", "x=5,4", "--runs", "1", "--threads", "1"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	s := out.String()
	for _, want := range []string{"a/model.onnx: cpu against cpu", "b/model.onnx: cpu against cpu", "y       float32  [5,3]  0        0        0/15", "time per run (median of 1): cpu ", "parity: 2 of 2 models within |got-want| <= 0.0001 + 0.001*|want|"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "PASS\n") != 2 {
		t.Errorf("want two PASS lines:\n%s", s)
	}
}

// parity --backend cuda where the provider cannot start: the model is
// reported unavailable with the provider's message, exit status 1.
func TestParityUnavailableProviderFails(t *testing.T) {
	orttest.Need(t)
	if ort.Ready(ort.CUDA) == nil {
		t.Skip("the CUDA provider starts on this machine; TestParityCPUAgainstCPUPasses covers the rest")
	}
	p := parityModelFile(t, t.TempDir(), "model.onnx")
	var out, errb bytes.Buffer
	code := runMain([]string{"parity", "--model", p, "--backend", "cuda"}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "ort: execution provider cuda cannot start: ") || !strings.Contains(out.String(), "UNAVAILABLE") ||
		!strings.Contains(errb.String(), "1 of 1 models not within the tolerance or not available") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
}

func TestParityUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"parity"}, "give --model FILE|DIR (repeatable) or --onnx-testdata DIR"},
		{[]string{"parity", "--model", "x.onnx", "--onnx-testdata", "d"}, "give --model FILE|DIR (repeatable) or --onnx-testdata DIR"},
		{[]string{"parity", "--model", "x.onnx", "--backend", "rocm"}, `unknown backend "rocm"`},
		{[]string{"parity", "--model", "x.onnx", "--atol", "-1"}, "--atol and --rtol must be at least 0"},
		{[]string{"parity", "--model", "x.onnx", "--dim", "0"}, "--dim must be at least 1"},
		{[]string{"parity", "--model", "x.onnx", "--backend", "cpu", "--ep-option", "use_tf32=0"}, "--ep-option is for --backend cuda or tensorrt"},
		{[]string{"parity", "--model", "x.onnx", "--ep-option", "novalue"}, "want KEY=VALUE"},
		{[]string{"parity", "--model", "x.onnx", "--shape", "x=1,a"}, `dimension "a" is not a whole number`},
		{[]string{"parity", "--model", filepath.Join(t.TempDir(), "missing.onnx")}, "no such file"},
	} {
		var out, errb bytes.Buffer
		if code := runMain(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}
