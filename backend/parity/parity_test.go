package parity

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
	"github.com/mlperf-go/inference/onnx"
)

func f32(name string, v ...float32) backend.Tensor {
	return backend.Tensor{Name: name, DType: backend.Float32, Shape: []int64{int64(len(v))}, Data: v}
}

// The bound |got-want| <= Abs + Rel*|want| holds at equality and fails
// just beyond it, for both terms.
func TestCompareToleranceBoundBothSides(t *testing.T) {
	tol := Tolerance{Abs: 0.5, Rel: 0.25}
	for _, c := range []struct {
		want, got float32
		bad       int
	}{
		{0, 0.5, 0},    // |d| = Abs
		{0, 0.5001, 1}, // just beyond Abs
		{4, 5.5, 0},    // |d| = 0.5 + 0.25*4
		{4, 5.5001, 1}, // just beyond
		{-4, -2.5, 0},  // |want| is used
		{-4, -2.4, 1},
	} {
		d := Compare(f32("y", c.want), f32("y", c.got), tol)
		if d.Bad != c.bad || d.OK() != (c.bad == 0) {
			t.Errorf("want %g got %g: bad %d ok %v, want bad %d", c.want, c.got, d.Bad, d.OK(), c.bad)
		}
		if abs := math.Abs(float64(c.got) - float64(c.want)); math.Abs(d.MaxAbs-abs) > 1e-12 {
			t.Errorf("want %g got %g: MaxAbs %g, want %g", c.want, c.got, d.MaxAbs, abs)
		}
	}
}

// MaxAbs, MaxRel and the worst element over a whole tensor; NaN equals NaN,
// infinities equal themselves only.
func TestCompareStatisticsNaNAndInf(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	want := f32("y", 1, 2, 100, nan, inf, 0)
	got := f32("y", 1.01, 2.2, 100.5, nan, inf, 0.0005)
	d := Compare(want, got, Tolerance{Abs: 1e-3, Rel: 1e-3})
	if d.Elements != 6 || d.Bad != 3 {
		t.Fatalf("elements %d bad %d, want 6 and 3", d.Elements, d.Bad)
	}
	if math.Abs(d.MaxAbs-0.5) > 1e-6 || math.Abs(d.MaxRel-0.1) > 1e-6 {
		t.Errorf("MaxAbs %g MaxRel %g, want 0.5 and 0.1", d.MaxAbs, d.MaxRel)
	}
	if d.Worst != 2 || d.WorstWant != 100 {
		t.Errorf("worst [%d] %g, want [2] 100 (excess 0.5-0.101)", d.Worst, d.WorstWant)
	}
	for _, g := range []float32{nan, float32(math.Inf(-1)), 1} {
		d := Compare(f32("y", inf), f32("y", g), Tolerance{Abs: 10, Rel: 10})
		if d.OK() || !math.IsInf(d.MaxAbs, 1) {
			t.Errorf("inf vs %g: ok %v MaxAbs %g, want a failure with MaxAbs +Inf", g, d.OK(), d.MaxAbs)
		}
	}
	if d := Compare(f32("y", nan), f32("y", 0), Tolerance{Abs: 10}); d.OK() {
		t.Error("NaN vs 0 passed")
	}
}

// Integer and bool outputs match exactly whatever the tolerance; int64
// beyond float64's precision is compared as integers.
func TestCompareIntegersExactly(t *testing.T) {
	big := backend.Tensor{Name: "i", DType: backend.Int64, Shape: []int64{2}, Data: []int64{1 << 60, 7}}
	bigPlus := backend.Tensor{Name: "i", DType: backend.Int64, Shape: []int64{2}, Data: []int64{1<<60 + 1, 7}}
	if d := Compare(big, bigPlus, Tolerance{Abs: 100, Rel: 1}); d.OK() || d.Bad != 1 || d.Worst != 0 {
		t.Errorf("int64 off by one at 2^60: %+v", d)
	}
	if d := Compare(big, big, Tolerance{}); !d.OK() {
		t.Errorf("equal int64: %+v", d)
	}
	i32 := backend.Tensor{Name: "c", DType: backend.Int32, Shape: []int64{1}, Data: []int32{3}}
	i32b := backend.Tensor{Name: "c", DType: backend.Int32, Shape: []int64{1}, Data: []int32{4}}
	if d := Compare(i32, i32b, Tolerance{Abs: 5}); d.OK() {
		t.Error("int32 3 vs 4 passed under Abs 5")
	}
	b1 := backend.Tensor{Name: "b", DType: backend.Bool, Shape: []int64{2}, Data: []bool{true, false}}
	b2 := backend.Tensor{Name: "b", DType: backend.Bool, Shape: []int64{2}, Data: []bool{true, true}}
	if d := Compare(b1, b2, Tolerance{Abs: 5}); d.Bad != 1 {
		t.Errorf("bools: bad %d, want 1", d.Bad)
	}
}

// Float16 outputs are decoded before comparing.
func TestCompareFloat16(t *testing.T) {
	h := func(v ...float32) backend.Tensor {
		s := make([]uint16, len(v))
		for i, x := range v {
			s[i] = onnx.Float16Bits(x)
		}
		return backend.Tensor{Name: "h", DType: backend.Float16, Shape: []int64{int64(len(v))}, Data: s}
	}
	d := Compare(h(1, 2), h(1, 2.001953125), Tolerance{Abs: 0.002})
	if !d.OK() || math.Abs(d.MaxAbs-0.001953125) > 1e-9 {
		t.Errorf("one float16 ulp at 2 under Abs 0.002: %+v", d)
	}
	if d := Compare(h(1, 2), h(1, 2.001953125), Tolerance{Abs: 0.001}); d.OK() {
		t.Error("one float16 ulp at 2 passed under Abs 0.001")
	}
}

// Type, shape, length and output-count differences are failures with a
// reason, never a panic.
func TestCompareMismatchedTensors(t *testing.T) {
	a := f32("y", 1, 2)
	for _, c := range []struct {
		got  backend.Tensor
		want string
	}{
		{backend.Tensor{Name: "y", DType: backend.Int64, Shape: []int64{2}, Data: []int64{1, 2}}, "type int64, want float32"},
		{backend.Tensor{Name: "y", DType: backend.Float32, Shape: []int64{1, 2}, Data: []float32{1, 2}}, "shape [1,2], want [2]"},
		{backend.Tensor{Name: "y", DType: backend.Float32, Shape: []int64{2}, Data: []float32{1}}, "1 elements, want 2"},
		{backend.Tensor{Name: "y", DType: backend.Float32, Shape: []int64{2}, Data: []int32{1, 2}}, "cannot compare float32 data held as []int32"},
	} {
		d := Compare(a, c.got, Tolerance{Abs: 1})
		if d.OK() || !strings.Contains(d.Err, c.want) {
			t.Errorf("got %q, want an error containing %q", d.Err, c.want)
		}
	}
	ds := CompareAll([]backend.Tensor{a}, nil, Tolerance{})
	if AllOK(ds) || ds[0].Err != "0 outputs, want 1" {
		t.Errorf("output count: %+v", ds)
	}
}

// Inputs follow the declared shapes (dynamic dims from dyn), are the same
// for the same seed and differ for another, and keep integers in {0, 1}
// with masks all ones.
func TestInputsSeededAndShaped(t *testing.T) {
	infos := []backend.Info{
		{Name: "x", DType: backend.Float32, Shape: []int64{-1, 3}},
		{Name: "input_ids", DType: backend.Int64, Shape: []int64{-1, 8}},
		{Name: "attention_mask", DType: backend.Int64, Shape: []int64{-1, 8}},
		{Name: "h", DType: backend.Float16, Shape: []int64{2}},
	}
	a, err := Inputs(infos, 7, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Inputs(infos, 7, 2, nil)
	c, _ := Inputs(infos, 8, 2, nil)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different inputs")
	}
	if reflect.DeepEqual(a[0].Data, c[0].Data) {
		t.Error("another seed, same inputs")
	}
	if !reflect.DeepEqual(a[0].Shape, []int64{2, 3}) {
		t.Errorf("shape %v, want [2 3]", a[0].Shape)
	}
	for _, v := range a[0].Data.([]float32) {
		if v < -1 || v >= 1 {
			t.Errorf("float input %g outside [-1, 1)", v)
		}
	}
	ones := 0
	for _, v := range a[1].Data.([]int64) {
		if v != 0 && v != 1 {
			t.Errorf("token id %d, want 0 or 1", v)
		}
		ones += int(v)
	}
	if ones == 0 || ones == 16 {
		t.Errorf("%d ones in 16 ids: not random", ones)
	}
	for _, v := range a[2].Data.([]int64) {
		if v != 1 {
			t.Fatalf("mask value %d, want 1", v)
		}
	}
	if _, err := Inputs([]backend.Info{{Name: "huge", DType: backend.Float32, Shape: []int64{-1, 1 << 20}}}, 1, 1<<10, nil); err == nil {
		t.Error("an input of 2^30 elements was made")
	}
	// Shapes given by name: used as given; rank, fixed dimensions and
	// names are checked.
	s, err := Inputs(infos, 7, 2, map[string][]int64{"x": {5, 3}})
	if err != nil || !reflect.DeepEqual(s[0].Shape, []int64{5, 3}) || len(s[0].Data.([]float32)) != 15 || !reflect.DeepEqual(s[1].Shape, []int64{2, 8}) {
		t.Errorf("given shape: %v %v", s[0].Shape, err)
	}
	for _, bad := range []map[string][]int64{{"x": {5, 4}}, {"x": {5}}, {"y": {1, 3}}, {"x": {-2, 3}}} {
		if _, err := Inputs(infos, 7, 2, bad); err == nil {
			t.Errorf("shape %v accepted", bad)
		}
	}
}

// Check runs both sessions on the same inputs and reports the test
// session's outputs against the reference's; Write prints them.
func TestCheckTwoSessions(t *testing.T) {
	out := []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{2}}}
	scale := func(k float32) *backendtest.Session {
		return &backendtest.Session{Out: out, RunFunc: func(_ context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
			x := in[0].Data.([]float32)
			return []backend.Tensor{f32("y", k*x[0], k*x[1])}, nil
		}}
	}
	in := []backend.Tensor{f32("x", 1, -2)}
	ds, err := Check(context.Background(), scale(1), scale(1.0001), in, Tolerance{Abs: 1e-3})
	if err != nil || !AllOK(ds) {
		t.Fatalf("1.0001x within 1e-3: %v %+v", err, ds)
	}
	ds, _ = Check(context.Background(), scale(1), scale(1.01), in, Tolerance{Abs: 1e-3})
	if AllOK(ds) || ds[0].Bad != 2 || ds[0].Worst != 1 {
		t.Fatalf("1.01x beyond 1e-3: %+v", ds)
	}
	var buf bytes.Buffer
	Write(&buf, ds)
	if !strings.Contains(buf.String(), "2/2") || !strings.Contains(buf.String(), "[1] -2 → -2.02") {
		t.Errorf("table:\n%s", buf.String())
	}
	if _, err := Check(context.Background(), scale(1), &backendtest.Session{Out: out}, in, Tolerance{}); err == nil {
		t.Error("a failing test session gave no error")
	}
}
