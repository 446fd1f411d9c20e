package conformance

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
	"github.com/mlperf-go/inference/backend/parity"
)

// floatProto encodes a float TensorProto (dims, FLOAT, float_data).
func floatProto(dims []int64, v ...float32) []byte {
	var b []byte
	for _, d := range dims {
		b = protowire.AppendVarint(protowire.AppendTag(b, 1, protowire.VarintType), uint64(d))
	}
	b = protowire.AppendVarint(protowire.AppendTag(b, 2, protowire.VarintType), 1)
	var p []byte
	for _, x := range v {
		p = protowire.AppendFixed32(p, math.Float32bits(x))
	}
	return protowire.AppendBytes(protowire.AppendTag(b, 4, protowire.BytesType), p)
}

// writeCase writes root/name with a model.onnx placeholder and one data
// set of the given input and output files.
func writeCase(t *testing.T, root, name string, in, out [][]byte) {
	t.Helper()
	dir := filepath.Join(root, filepath.FromSlash(name))
	set := filepath.Join(dir, "test_data_set_0")
	if err := os.MkdirAll(set, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("model"), 0o644)
	for i, b := range in {
		os.WriteFile(filepath.Join(set, "input_"+string(rune('0'+i))+".pb"), b, 0o644)
	}
	for i, b := range out {
		os.WriteFile(filepath.Join(set, "output_"+string(rune('0'+i))+".pb"), b, 0o644)
	}
}

// A fake engine doubles its input; the cases cover every status.
func TestRunClassifiesEveryCase(t *testing.T) {
	root := t.TempDir()
	vec := []int64{2}
	writeCase(t, root, "node/test_pass", [][]byte{floatProto(vec, 1, 2)}, [][]byte{floatProto(vec, 2, 4.001)})
	writeCase(t, root, "node/test_fail", [][]byte{floatProto(vec, 1, 2)}, [][]byte{floatProto(vec, 2, 4.1)})
	writeCase(t, root, "node/test_noload", [][]byte{floatProto(vec, 1)}, [][]byte{floatProto(vec, 1)})
	writeCase(t, root, "node/test_notype", [][]byte{floatProto(vec, 1, 2)}, [][]byte{floatProto(vec, 2, 4)})
	writeCase(t, root, "node/test_nodata", nil, [][]byte{floatProto(vec, 2, 4)})
	writeCase(t, root, "node/test_scalar", [][]byte{floatProto(nil, 3)}, [][]byte{floatProto(nil, 6)})
	writeCase(t, root, "simple/test_badfile", [][]byte{floatProto(vec, 1, 2)[:5]}, [][]byte{floatProto(vec, 2, 4)})
	writeCase(t, root, "simple/test_runerror", [][]byte{floatProto(vec, 1, 2)}, [][]byte{floatProto(vec, 2, 4)})

	open := func(path string) (backend.Session, error) {
		name := filepath.Base(filepath.Dir(path))
		if name == "test_noload" {
			return nil, errors.New("Could not find an implementation for Foo(1)\nsecond line")
		}
		out := backend.Info{Name: "y", DType: backend.Float32, Shape: []int64{-1}}
		if name == "test_notype" {
			out.DType = 0
		}
		s := &backendtest.Session{In: []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1}}}, Out: []backend.Info{out}}
		s.RunFunc = func(_ context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
			if name == "test_runerror" {
				return nil, errors.New("engine broke")
			}
			x := in[0].Data.([]float32)
			y := make([]float32, len(x))
			for i := range x {
				y[i] = 2 * x[i]
			}
			return []backend.Tensor{{Name: "y", DType: backend.Float32, Shape: in[0].Shape, Data: y}}, nil
		}
		return s, nil
	}
	cfg := Config{Dir: root, Open: open, Workers: 3, Tol: parity.Tolerance{Abs: 1e-7, Rel: 1e-3}}
	cases, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Case{}
	var names []string
	for _, c := range cases {
		got[c.Name] = c
		names = append(names, c.Name)
	}
	if !slices.IsSorted(names) || len(names) != 8 {
		t.Fatalf("cases %v, want 8 in name order", names)
	}
	for name, want := range map[string]struct {
		st     Status
		detail string
	}{
		"node/test_pass":       {Pass, ""},
		"node/test_fail":       {Fail, "test_data_set_0: y: 1/2 beyond, max abs 0.1, max rel 0.0244, worst [1] want 4.1 got 4"},
		"node/test_noload":     {NoLoad, "Could not find an implementation for Foo(1)"},
		"node/test_notype":     {NoType, "y has a type backend.Tensor does not carry"},
		"node/test_nodata":     {NoData, "test_data_set_0: 0 input and 1 output files for a model of 1 inputs and 1 outputs"},
		"node/test_scalar":     {Pass, ""},
		"simple/test_badfile":  {Fail, "test_data_set_0/input_0.pb: onnx: tensor proto"},
		"simple/test_runerror": {Fail, "engine broke"},
	} {
		c := got[name]
		if c.Status != want.st || !strings.HasPrefix(c.Detail, want.detail) {
			t.Errorf("%s: %s %q, want %s %q", name, c.Status, c.Detail, want.st, want.detail)
		}
	}
	// An engine without scalars: the rank-0 case is not run.
	cfg.NoScalars = true
	cfg.Match = func(n string) bool { return strings.Contains(n, "scalar") }
	cases, _ = Run(context.Background(), cfg)
	if len(cases) != 1 || cases[0].Status != NoType || !strings.Contains(cases[0].Detail, "rank-0") {
		t.Errorf("NoScalars: %+v", cases)
	}
	n := Counts(mustRun(t, Config{Dir: root, Open: open, Workers: 1, Tol: cfg.Tol}))
	if n[Pass] != 2 || n[Fail] != 3 || n[NoLoad] != 1 || n[NoType] != 1 || n[NoData] != 1 {
		t.Errorf("counts %v", n)
	}
	var sb strings.Builder
	WriteSummary(&sb, cases)
	if !strings.HasPrefix(sb.String(), "1 cases: pass 0, fail 0, no-load 0, no-type 1, no-data 0\nno-type node/test_scalar: ") {
		t.Errorf("summary:\n%s", sb.String())
	}
}

func mustRun(t *testing.T, cfg Config) []Case {
	cs, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// A folder without test data is an error naming it; a cancelled context
// stops the run with ctx's error.
func TestRunErrors(t *testing.T) {
	empty := t.TempDir()
	if _, err := Run(context.Background(), Config{Dir: empty}); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty folder: %v", err)
	}
	root := t.TempDir()
	writeCase(t, root, "node/test_a", [][]byte{floatProto([]int64{1}, 1)}, [][]byte{floatProto([]int64{1}, 1)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{Dir: root, Open: func(string) (backend.Session, error) { return nil, errors.New("x") }})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	for st, want := range []string{"pass", "fail", "no-load", "no-type", "no-data"} {
		if got := Status(st).String(); got != want {
			t.Errorf("Status(%d) = %q, want %q", st, got, want)
		}
	}
	if got := Status(9).String(); got != "status(9)" {
		t.Errorf("Status(9) = %q", got)
	}
}

// WriteComparison prints the reference's counts and exactly the cases
// whose status differs, and returns their number.
func TestWriteComparisonListsOnlyDifferingCases(t *testing.T) {
	test := []Case{{Name: "node/a", Status: Pass}, {Name: "node/b", Status: Fail, Detail: "y beyond"}, {Name: "node/c", Status: NoLoad, Detail: "no kernel"}}
	ref := []Case{{Name: "node/a", Status: Pass}, {Name: "node/b", Status: Fail}, {Name: "node/c", Status: Pass}}
	var w strings.Builder
	if n := WriteComparison(&w, "cuda", test, "cpu", ref); n != 1 {
		t.Errorf("%d differ, want 1", n)
	}
	want := "\non cpu:\n3 cases: pass 2, fail 1, no-load 0, no-type 0, no-data 0\n\ncases whose status differs (cuda | cpu):\nnode/c: no-load (no kernel) | pass\n1 cases differ\n"
	if w.String() != want {
		t.Errorf("got\n%q\nwant\n%q", w.String(), want)
	}
	w.Reset()
	if n := WriteComparison(&w, "cuda", test, "cpu", test); n != 0 || !strings.HasSuffix(w.String(), "(cuda | cpu):\n0 cases differ\n") {
		t.Errorf("same cases: %d differ:\n%s", n, w.String())
	}
}
