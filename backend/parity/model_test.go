package parity

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
)

// ONNXFiles: a file is itself whatever its name; a folder gives every
// .onnx below it in lexical order and nothing else; a folder without one
// and a missing path are errors, the latter os.Stat's *fs.PathError.
func TestONNXFilesFileFolderEmptyAndMissing(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"b/model.onnx", "a/z.onnx", "a/notes.txt", "a/model.onnx.data", "top.onnx"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ONNXFiles(dir)
	want := []string{filepath.Join(dir, "a/z.onnx"), filepath.Join(dir, "b/model.onnx"), filepath.Join(dir, "top.onnx")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("folder: %q, %v; want %q", got, err, want)
	}
	txt := filepath.Join(dir, "a/notes.txt")
	if got, err := ONNXFiles(txt); err != nil || !reflect.DeepEqual(got, []string{txt}) {
		t.Errorf("file: %q, %v; want the file itself", got, err)
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if _, err := ONNXFiles(empty); err == nil || !strings.Contains(err.Error(), "no .onnx file under "+empty) {
		t.Errorf("empty folder: %v", err)
	}
	missing := filepath.Join(dir, "missing.onnx")
	_, err = ONNXFiles(missing)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "stat" || pe.Path != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing path: %v; want os.Stat's *fs.PathError", err)
	}
}

// scaleSession is a session whose one output is k times its input x.
func scaleSession(k float32) *backendtest.Session {
	return &backendtest.Session{
		In:  []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 2}}},
		Out: []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{-1, 2}}},
		RunFunc: func(_ context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
			x := in[0].Data.([]float32)
			y := make([]float32, len(x))
			for i, v := range x {
				y[i] = k * v
			}
			return []backend.Tensor{{Name: "y", DType: backend.Float32, Shape: in[0].Shape, Data: y}}, nil
		}}
}

// CheckModel opens the file on both engines, feeds both the same seeded
// inputs (a shape given for one of the model's inputs applies, others
// are ignored), and reports PASS within the tolerance and FAIL beyond it,
// with the timing line only when Runs > 0; both sessions are closed.
func TestCheckModelPassFailTimingAndShapes(t *testing.T) {
	for _, c := range []struct {
		k    float32
		runs int
		ok   bool
	}{{1.00001, 0, true}, {1.5, 2, false}} {
		ref, test := scaleSession(1), scaleSession(c.k)
		var opened []string
		mc := ModelCheck{Ref: "cpu", Test: "cuda", Seed: 7, Dim: 3, Tol: Tolerance{Abs: 1e-3, Rel: 1e-3}, Runs: c.runs,
			Shapes:  map[string][]int64{"x": {5, 2}, "not_an_input": {1}},
			OpenRef: func(f string) (backend.Session, error) { opened = append(opened, "ref "+f); return ref, nil },
			OpenTest: func(f string) (backend.Session, error) {
				opened = append(opened, "test "+f)
				return test, nil
			}}
		var w bytes.Buffer
		ok, err := mc.CheckModel(context.Background(), "m.onnx", &w)
		if err != nil || ok != c.ok {
			t.Fatalf("k=%g: ok %v, %v; want %v\n%s", c.k, ok, err, c.ok, w.String())
		}
		s := w.String()
		verdict := map[bool]string{true: "PASS", false: "FAIL"}[c.ok]
		if !strings.HasPrefix(s, "m.onnx: cuda against cpu, inputs seed 7, dynamic dims 3, tolerance |got-want| <= 0.001 + 0.001*|want|\n") ||
			!strings.Contains(s, "[5,2]") || !strings.HasSuffix(s, verdict+"\n\n") {
			t.Errorf("k=%g: report:\n%s", c.k, s)
		}
		if timed := strings.Contains(s, "time per run (median of 2): cpu "); timed != (c.runs > 0) {
			t.Errorf("k=%g runs %d: timing line present %v:\n%s", c.k, c.runs, timed, s)
		}
		if !reflect.DeepEqual(opened, []string{"ref m.onnx", "test m.onnx"}) || !ref.Closed() || !test.Closed() {
			t.Errorf("k=%g: opened %q, closed %v %v", c.k, opened, ref.Closed(), test.Closed())
		}
	}
}

// An engine that cannot open the model is CheckModel's error, and the
// reference session opened before it is closed.
func TestCheckModelOpenFailureClosesTheOther(t *testing.T) {
	ref := scaleSession(1)
	boom := errors.New("provider cannot start")
	mc := ModelCheck{Dim: 1, OpenRef: func(string) (backend.Session, error) { return ref, nil },
		OpenTest: func(string) (backend.Session, error) { return nil, boom }}
	var w bytes.Buffer
	if ok, err := mc.CheckModel(context.Background(), "m.onnx", &w); ok || !errors.Is(err, boom) || !ref.Closed() || w.Len() != 0 {
		t.Errorf("ok %v, err %v, ref closed %v, wrote %q", ok, err, ref.Closed(), w.String())
	}
}
