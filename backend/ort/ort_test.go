package ort_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/onnx"
)

// needORT skips the test when the ONNX Runtime library is not installed.
func needORT(t testing.TB) {
	t.Helper()
	if err := ort.Init(); err != nil {
		if errors.Is(err, ort.ErrNoLibrary) {
			t.Skipf("ONNX Runtime not available: %v", err)
		}
		t.Fatal(err)
	}
}

func modelBytes(t testing.TB, g *onnx.Graph) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeModel(t testing.TB, g *onnx.Graph) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "model.onnx")
	if err := g.WriteFile(p, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// linearModel: y = relu(x·W + b), a = argmax(y, 1); x [N,4], W [4,3].
func linearModel() *onnx.Graph {
	g := onnx.NewGraph(onnx.Config{Name: "linear"})
	x := g.Input("x", onnx.Float, onnx.Sym("N"), onnx.Fix(4))
	w := g.Const("w", onnx.Float, []int64{4, 3}, []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, -1, 0.5})
	b := g.Const("b", onnx.Float, []int64{3}, []float32{0.5, 0, -1})
	y := g.Rename(g.Relu(g.Add(g.MatMul(x, w), b)), "y")
	g.Output(y, onnx.Float, onnx.Sym("N"), onnx.Fix(3))
	a := g.Rename(g.ArgMax(y, 1, false), "a")
	g.Output(a, onnx.Int64, onnx.Sym("N"))
	return g
}

func linearRef(x []float32) (y []float32, a []int64) {
	w := []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, -1, 0.5}
	b := []float32{0.5, 0, -1}
	for n := 0; n < len(x)/4; n++ {
		best := 0
		row := make([]float32, 3)
		for j := 0; j < 3; j++ {
			s := b[j]
			for k := 0; k < 4; k++ {
				s += x[n*4+k] * w[k*3+j]
			}
			row[j] = max(s, 0)
			if row[j] > row[best] {
				best = j
			}
		}
		y = append(y, row...)
		a = append(a, int64(best))
	}
	return y, a
}

func TestRunLinear(t *testing.T) {
	needORT(t)
	s, err := ort.Open(writeModel(t, linearModel()), ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantIn := []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 4}}}
	wantOut := []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{-1, 3}}, {Name: "a", DType: backend.Int64, Shape: []int64{-1}}}
	if err := backend.Validate(s, wantIn, wantOut); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 8} {
		x := make([]float32, n*4)
		for i := range x {
			x[i] = float32((i*7)%11) - 5
		}
		out, err := s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{int64(n), 4}, Data: x}})
		if err != nil {
			t.Fatal(err)
		}
		wy, wa := linearRef(x)
		if fmt.Sprint(out[0].Shape) != fmt.Sprint([]int64{int64(n), 3}) || fmt.Sprint(out[1].Shape) != fmt.Sprint([]int64{int64(n)}) {
			t.Fatalf("batch %d: shapes %v %v", n, out[0].Shape, out[1].Shape)
		}
		if got := out[0].Data.([]float32); fmt.Sprint(got) != fmt.Sprint(wy) {
			t.Errorf("batch %d: y = %v, want %v", n, got, wy)
		}
		if got := out[1].Data.([]int64); fmt.Sprint(got) != fmt.Sprint(wa) {
			t.Errorf("batch %d: a = %v, want %v", n, got, wa)
		}
	}
}

// identityModel passes one input of type dt and shape [2,3] through to the
// output, the output's first dimension dynamic when dynOut.
func identityModel(dt onnx.DType) *onnx.Graph {
	g := onnx.NewGraph(onnx.Config{Name: "identity"})
	x := g.Input("x", dt, onnx.Sym("N"), onnx.Fix(3))
	y := g.Rename(g.Identity(x), "y")
	g.Output(y, dt, onnx.Sym("N"), onnx.Fix(3))
	return g
}

func TestDTypes(t *testing.T) {
	needORT(t)
	cases := []struct {
		odt  onnx.DType
		bdt  backend.DType
		data any
	}{
		{onnx.Float, backend.Float32, []float32{1, -2, 3.5, 0, 1e-30, -1e30}},
		{onnx.Float16, backend.Float16, []uint16{0x3c00, 0xc000, 0x7bff, 0, 1, 0x8001}},
		{onnx.Int64, backend.Int64, []int64{1, -2, 1 << 40, 0, -1 << 62, 7}},
		{onnx.Int32, backend.Int32, []int32{1, -2, 1 << 30, 0, -5, 7}},
		{onnx.Uint8, backend.Uint8, []uint8{0, 1, 255, 128, 7, 9}},
		{onnx.Bool, backend.Bool, []bool{true, false, true, true, false, false}},
	}
	for _, c := range cases {
		t.Run(c.bdt.String(), func(t *testing.T) {
			s, err := ort.OpenBytes(modelBytes(t, identityModel(c.odt)), ort.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.Inputs()[0].DType; got != c.bdt {
				t.Fatalf("input dtype %v, want %v", got, c.bdt)
			}
			in := []backend.Tensor{{Name: "x", DType: c.bdt, Shape: []int64{2, 3}, Data: c.data}}
			// Caller-provided output: zero-copy, works for every dtype.
			dst := zeroLike(c.data)
			out := []backend.Tensor{{Name: "y", DType: c.bdt, Shape: []int64{2, 3}, Data: dst}}
			if err := s.RunInto(context.Background(), in, out); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(dst) != fmt.Sprint(c.data) {
				t.Errorf("RunInto: got %v, want %v", dst, c.data)
			}
			// Allocated output (float16 of dynamic shape cannot be, see RunInto).
			res, err := s.Run(context.Background(), in)
			if c.bdt == backend.Float16 {
				if err == nil || !strings.Contains(err.Error(), "give it a buffer") {
					t.Errorf("Run, float16 output of dynamic shape: err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res[0].DType != c.bdt || fmt.Sprint(res[0].Data) != fmt.Sprint(c.data) {
				t.Errorf("Run: got %v %v, want %v", res[0].DType, res[0].Data, c.data)
			}
		})
	}
}

func zeroLike(v any) any {
	switch x := v.(type) {
	case []float32:
		return make([]float32, len(x))
	case []uint16:
		return make([]uint16, len(x))
	case []int64:
		return make([]int64, len(x))
	case []int32:
		return make([]int32, len(x))
	case []uint8:
		return make([]uint8, len(x))
	case []bool:
		return make([]bool, len(x))
	}
	return nil
}

func TestConcurrentRun(t *testing.T) {
	needORT(t)
	s, err := ort.OpenBytes(modelBytes(t, linearModel()), ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				n := 1 + (w+i)%5
				x := make([]float32, 4*n)
				for k := range x {
					x[k] = float32((k+w*13+i*7)%9) - 4
				}
				out, err := s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{int64(n), 4}, Data: x}})
				if err != nil {
					errs <- err
					return
				}
				wy, wa := linearRef(x)
				if fmt.Sprint(out[0].Data) != fmt.Sprint(wy) || fmt.Sprint(out[1].Data) != fmt.Sprint(wa) {
					errs <- fmt.Errorf("worker %d run %d: got %v %v, want %v %v", w, i, out[0].Data, out[1].Data, wy, wa)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestOutputsSubset(t *testing.T) {
	needORT(t)
	s, err := ort.OpenBytes(modelBytes(t, linearModel()), ort.Options{Outputs: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if outs := s.Outputs(); len(outs) != 1 || outs[0].Name != "a" {
		t.Fatalf("outputs %v", outs)
	}
	out, err := s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 4}, Data: []float32{0, 0, 5, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Data.([]int64); len(got) != 1 || got[0] != 2 {
		t.Errorf("a = %v, want [2]", got)
	}
	if _, err := ort.OpenBytes(modelBytes(t, linearModel()), ort.Options{Outputs: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown output: err = %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	needORT(t)
	s, err := ort.OpenBytes(modelBytes(t, linearModel()), ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := []float32{1, 2, 3, 4}
	cases := []struct {
		name string
		in   []backend.Tensor
		want string
	}{
		{"no inputs", nil, "got 0 inputs"},
		{"wrong name", []backend.Tensor{{Name: "z", DType: backend.Float32, Shape: []int64{1, 4}, Data: x}}, `unknown input "z"`},
		{"wrong dtype", []backend.Tensor{{Name: "x", DType: backend.Int64, Shape: []int64{1, 4}, Data: []int64{1, 2, 3, 4}}}, "dtype int64, the model wants float32"},
		{"wrong rank", []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{4}, Data: x}}, "shape [4], the model wants [N,4]"},
		{"wrong dim", []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{2, 2}, Data: x}}, "shape [2,2]"},
		{"short data", []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{2, 4}, Data: x}}, "4 elements of data for shape [2,4]"},
		{"wrong Go type", []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 4}, Data: []float64{1, 2, 3, 4}}}, "data is []float64"},
		{"negative dim", []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 4}, Data: x}}, "shape [N,4]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Run(context.Background(), c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestCancelAndClose(t *testing.T) {
	needORT(t)
	s, err := ort.OpenBytes(modelBytes(t, linearModel()), ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 4}, Data: []float32{1, 2, 3, 4}}}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := s.Run(ctx, in); err != nil {
		t.Fatalf("cancellable context, not cancelled: %v", err)
	}
	cancel()
	if _, err := s.Run(ctx, in); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, err := s.Run(context.Background(), in); !errors.Is(err, ort.ErrClosed) {
		t.Errorf("after close: err = %v", err)
	}
}

func TestValidate(t *testing.T) {
	needORT(t)
	s, err := ort.OpenBytes(modelBytes(t, linearModel()), ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := func(dt backend.DType, shape ...int64) []backend.Info {
		return []backend.Info{{Name: "x", DType: dt, Shape: shape}}
	}
	outA := []backend.Info{{Name: "a", DType: backend.Int64, Shape: []int64{-1}}}
	cases := []struct {
		name    string
		in, out []backend.Info
		want    string
	}{
		{"ok", in(backend.Float32, -1, 4), outA, ""},
		{"fixed batch wanted, dynamic in model", in(backend.Float32, 8, 4), outA, ""},
		{"dtype", in(backend.Int32, -1, 4), outA, `input "x" is float32, want int32`},
		{"shape", in(backend.Float32, -1, 5), outA, `input "x" has shape [N,4], want [N,5]`},
		{"rank", in(backend.Float32, -1), outA, `has shape [N,4], want [N]`},
		{"missing input", []backend.Info{{Name: "input_tensor:0", DType: backend.Float32, Shape: []int64{-1, 4}}}, outA, `input "input_tensor:0" missing`},
		{"missing output", in(backend.Float32, -1, 4), []backend.Info{{Name: "ArgMax:0", DType: backend.Int64, Shape: []int64{-1}}}, `output "ArgMax:0" missing (model outputs: "y", "a")`},
		{"output dtype", in(backend.Float32, -1, 4), []backend.Info{{Name: "a", DType: backend.Float32, Shape: []int64{-1}}}, `output "a" is int64, want float32`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := backend.Validate(s, c.in, c.out)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, backend.ErrContract) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestBadModelFiles(t *testing.T) {
	needORT(t)
	good := modelBytes(t, linearModel())
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := map[string]string{
		"missing": filepath.Join(dir, "absent.onnx"),
		"empty":   write("empty.onnx", nil),
		"garbage": write("garbage.onnx", []byte("this is not an onnx model at all\x00\xff\xfe")),
		"dir":     dir,
	}
	for _, frac := range []int{1, 10, 50, 90, 99} {
		n := len(good) * frac / 100
		cases[fmt.Sprintf("truncated %d%%", frac)] = write(fmt.Sprintf("trunc%d.onnx", frac), good[:n])
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := ort.Open(p, ort.Options{})
			if err == nil {
				s.Close()
				t.Fatalf("opened %s", p)
			}
			if !strings.Contains(err.Error(), p) && !strings.Contains(err.Error(), filepath.Base(p)) {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func TestProviderUnavailable(t *testing.T) {
	needORT(t)
	lib, err := ort.LibraryPath()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(lib), "libonnxruntime_providers_cuda.so")); err == nil {
		t.Skip("this ONNX Runtime has the CUDA provider")
	}
	for _, prov := range []string{"cuda", "tensorrt"} {
		_, err := ort.OpenBytes(modelBytes(t, linearModel()), ort.Options{Provider: prov})
		if err == nil || !strings.Contains(err.Error(), "libonnxruntime_providers_") || !strings.Contains(err.Error(), "missing") {
			t.Errorf("%s: err = %v, want one naming the missing provider library", prov, err)
		}
	}
	if _, err := ort.OpenBytes(modelBytes(t, linearModel()), ort.Options{Provider: "tpu"}); err == nil || !strings.Contains(err.Error(), `unknown backend "tpu"`) {
		t.Errorf("tpu: err = %v", err)
	}
}

// TestMissingLibrary runs this test binary again with the library variable
// pointing nowhere: Open must fail with an error naming the path and the fix.
func TestMissingLibrary(t *testing.T) {
	if os.Getenv("ORT_TEST_CHILD") == "1" {
		_, err := ort.OpenBytes([]byte{1}, ort.Options{})
		fmt.Println("ERR:", err)
		return
	}
	missing := filepath.Join(t.TempDir(), "no", "libonnxruntime.so.1")
	cmd := exec.Command(os.Args[0], "-test.run=^TestMissingLibrary$")
	cmd.Env = append(os.Environ(), "ORT_TEST_CHILD=1", ort.EnvLibrary+"="+missing)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, want := range []string{"ERR: ort: ONNX Runtime library unavailable", missing, "make setup"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
}

func TestFloat16StaticOutput(t *testing.T) {
	needORT(t)
	g := onnx.NewGraph(onnx.Config{Name: "f16"})
	x := g.Input("x", onnx.Float16, onnx.Fix(2), onnx.Fix(2))
	y := g.Rename(g.Add(x, x), "y")
	g.Output(y, onnx.Float16, onnx.Fix(2), onnx.Fix(2))
	s, err := ort.OpenBytes(modelBytes(t, g), ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := []uint16{onnx.Float16Bits(1), onnx.Float16Bits(-2.5), onnx.Float16Bits(0.125), onnx.Float16Bits(1000)}
	out, err := s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float16, Shape: []int64{2, 2}, Data: in}})
	if err != nil {
		t.Fatal(err)
	}
	got := out[0].Data.([]uint16)
	for i, h := range got {
		if want := 2 * onnx.Float16ToFloat32(in[i]); onnx.Float16ToFloat32(h) != want {
			t.Errorf("y[%d] = %v, want %v", i, onnx.Float16ToFloat32(h), want)
		}
	}
}

func TestNoInputModel(t *testing.T) {
	needORT(t)
	g := onnx.NewGraph(onnx.Config{})
	c := g.Const("c", onnx.Float, []int64{2}, []float32{1, 2})
	g.Output(g.Identity(c), onnx.Float, onnx.Fix(2))
	if _, err := ort.OpenBytes(modelBytes(t, g), ort.Options{}); err == nil || !strings.Contains(err.Error(), "0 inputs") {
		t.Errorf("err = %v", err)
	}
}

func TestOptions(t *testing.T) {
	needORT(t)
	model := modelBytes(t, linearModel())
	cases := []ort.Options{
		{},
		{IntraOpThreads: 2, InterOpThreads: 2},
		{OptLevel: ort.OptDisable},
		{OptLevel: ort.OptBasic, Provider: "CPU"},
		{OptLevel: ort.OptExtended, Config: map[string]string{"session.intra_op.allow_spinning": "0"}},
	}
	for i, o := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			s, err := ort.OpenBytes(model, o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			out, err := s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 4}, Data: []float32{1, 2, 3, 4}}})
			if err != nil {
				t.Fatal(err)
			}
			if wy, _ := linearRef([]float32{1, 2, 3, 4}); fmt.Sprint(out[0].Data) != fmt.Sprint(wy) {
				t.Errorf("y = %v, want %v", out[0].Data, wy)
			}
		})
	}
	if _, err := ort.OpenBytes(model, ort.Options{IntraOpThreads: -1}); err == nil {
		t.Error("negative threads accepted")
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"": "cpu", "CPU": "cpu", " cuda ": "cuda", "TensorRT": "tensorrt"} {
		if got, err := ort.ParseProvider(in); err != nil || got != want {
			t.Errorf("ParseProvider(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ort.ParseProvider("rocm"); err == nil || !strings.Contains(err.Error(), "cpu, cuda, tensorrt") {
		t.Errorf("rocm: %v", err)
	}
	for in, want := range map[string]ort.OptLevel{"": ort.OptAll, "all": ort.OptAll, "extended": ort.OptExtended, "basic": ort.OptBasic, "disable": ort.OptDisable} {
		if got, err := ort.ParseOptLevel(in); err != nil || got != want {
			t.Errorf("ParseOptLevel(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ort.ParseOptLevel("max"); err == nil {
		t.Error("ParseOptLevel(max) accepted")
	}
}

// BenchmarkRunOverhead is the cost of one Run of a trivial model: the
// wrapper's binding work plus ONNX Runtime's fixed cost per call.
func BenchmarkRunOverhead(b *testing.B) {
	needORT(b)
	s, err := ort.OpenBytes(modelBytes(b, linearModel()), ort.Options{IntraOpThreads: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	in := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 4}, Data: []float32{1, 2, 3, 4}}}
	b.Run("Run", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Run(context.Background(), in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("RunInto", func(b *testing.B) {
		out := []backend.Tensor{
			{Name: "y", DType: backend.Float32, Shape: []int64{1, 3}, Data: make([]float32, 3)},
			{Name: "a", DType: backend.Int64, Shape: []int64{1}, Data: make([]int64, 1)},
		}
		for b.Loop() {
			if err := s.RunInto(context.Background(), in, out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Absurd thread counts are refused before ONNX Runtime sees them (it
// crashes creating 100000 threads); no library is needed for the check.
func TestAbsurdThreadCountsAreRefused(t *testing.T) {
	for _, o := range []ort.Options{{IntraOpThreads: 100000}, {InterOpThreads: 1 << 20}, {IntraOpThreads: -2}} {
		_, err := ort.OpenBytes([]byte("not a model"), o)
		if err == nil || !strings.Contains(err.Error(), "thread") {
			t.Errorf("%+v: err = %v", o, err)
		}
	}
	_, err := ort.OpenBytes([]byte("x"), ort.Options{IntraOpThreads: 100000})
	if !errors.Is(err, backend.ErrTooLarge) {
		t.Errorf("err = %v, want backend.ErrTooLarge", err)
	}
}

// Open with the cuda provider either runs the model as the CPU does (a
// GPU machine with the providers and CUDA) or fails with the one message of
// gpu.go: every missing library on its own line, and none of them present
// in any folder the message says was searched.
func TestOpenCUDARunsOrNamesEachMissingLibrary(t *testing.T) {
	needORT(t)
	path := writeModel(t, linearModel())
	s, err := ort.Open(path, ort.Options{Provider: ort.CUDA})
	if err == nil {
		defer s.Close()
		x := []float32{1, 2, 3, 4, -1, -2, -3, -4}
		out, err := s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{2, 4}, Data: x}})
		if err != nil {
			t.Fatal(err)
		}
		y, _ := linearRef(x)
		for i, v := range out[0].Data.([]float32) {
			if d := v - y[i]; d > 1e-5 || d < -1e-5 {
				t.Fatalf("cuda y[%d] = %g, want %g", i, v, y[i])
			}
		}
		return
	}
	msg := err.Error()
	header, rest, ok := strings.Cut(msg, "\n")
	if !ok || !strings.HasPrefix(header, "ort: execution provider cuda cannot start: ") {
		t.Fatalf("not the provider's message:\n%s", msg)
	}
	missingPart, looked, ok := strings.Cut(rest, "\nlooked in:\n")
	if !ok || !strings.HasSuffix(msg, "fix: install what is missing, or add the folders holding it to LD_LIBRARY_PATH") {
		t.Fatalf("message lacks the searched places or the fix:\n%s", msg)
	}
	var missing []string
	for _, l := range strings.Split(missingPart, "\n") {
		name, _, ok := strings.Cut(strings.TrimPrefix(l, "  "), ": ")
		if !ok || !strings.HasPrefix(l, "  lib") || !strings.Contains(name, ".so") {
			t.Fatalf("bad line %q in:\n%s", l, msg)
		}
		missing = append(missing, name)
	}
	if want := fmt.Sprintf("%d libraries are missing:", len(missing)); len(missing) > 1 && !strings.HasSuffix(header, want) {
		t.Errorf("header %q does not count %d libraries", header, len(missing))
	}
	var dirs []string
	for _, l := range strings.Split(looked, "\n") {
		_, list, ok := strings.Cut(strings.TrimPrefix(l, "  "), ": ")
		if !ok || !strings.HasPrefix(list, "/") {
			continue // "unset", or a note
		}
		dirs = append(dirs, strings.Split(list, ", ")...)
	}
	for _, name := range missing {
		if strings.HasPrefix(name, "libonnxruntime_providers_") {
			lib, _ := ort.LibraryPath()
			if _, err := os.Stat(filepath.Join(filepath.Dir(lib), name)); err == nil {
				t.Errorf("%s is listed missing but is beside %s", name, lib)
			}
			continue
		}
		for _, d := range dirs {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				t.Errorf("%s is listed missing but is in %s, a folder the message says was searched", name, d)
			}
		}
	}
	// The second attempt gives the same message (nothing half-loaded).
	if _, err2 := ort.Open(path, ort.Options{Provider: ort.CUDA}); err2 == nil || err2.Error() != msg {
		t.Errorf("second Open: %v", err2)
	}
}

// Provider options name the provider they configure: the CPU takes none.
func TestOpenRefusesProviderOptionsOnCPU(t *testing.T) {
	needORT(t)
	_, err := ort.Open(writeModel(t, linearModel()), ort.Options{ProviderOptions: map[string]string{"use_tf32": "0", "gpu_mem_limit": "1024"}})
	want := "ort: provider options gpu_mem_limit=1024 use_tf32=0 are for the cuda and tensorrt providers; the cpu provider takes none"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
