// Package parity compares what two engines compute for the same model:
// element-wise differences of output tensors against a stated tolerance
// (numpy.isclose's rule), seeded inputs for a model's declared inputs, and
// a check that runs two backend.Sessions on those inputs and reports each
// output's largest absolute and relative difference.
//
// Everything here works on backend.Session and backend.Tensor, so it
// compares any pair: ONNX Runtime's CPU and CUDA providers, a local run and
// a remote server, an engine and reference outputs.
package parity

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/onnx"
)

// Tolerance bounds an element's difference: |got − want| ≤ Abs + Rel·|want|,
// the rule of numpy.isclose and numpy.testing.assert_allclose. Integer and
// boolean outputs must match exactly whatever the tolerance.
type Tolerance struct {
	Abs, Rel float64
}

// String prints the tolerance as the rule it applies.
func (t Tolerance) String() string {
	return fmt.Sprintf("|got-want| <= %g + %g*|want|", t.Abs, t.Rel)
}

// Diff is the comparison of one output.
type Diff struct {
	Name     string
	DType    backend.DType
	Shape    []int64
	Elements int
	// MaxAbs is the largest |got − want|; MaxRel the largest
	// |got − want| / |want| over elements where want ≠ 0. Both are 0 for
	// equal tensors and +Inf where a NaN or an infinity differs.
	MaxAbs, MaxRel float64
	// Bad counts the elements beyond the tolerance; Worst is the index of
	// the one furthest beyond it (by |got−want| − (Abs + Rel·|want|)),
	// with its two values.
	Bad                 int
	Worst               int
	WorstWant, WorstGot float64
	// Err says why the tensors cannot be compared element by element
	// (name, type, shape or length differ); then the output fails.
	Err string
}

// OK reports whether the output is within the tolerance.
func (d Diff) OK() bool { return d.Err == "" && d.Bad == 0 }

// values returns t's elements as float64 (float16 decoded), and whether
// the type is compared exactly (integers and bools).
func values(t backend.Tensor) ([]float64, bool, error) {
	if backend.DataLen(t.DType, t.Data) < 0 {
		return nil, false, fmt.Errorf("cannot compare %v data held as %T", t.DType, t.Data)
	}
	switch s := t.Data.(type) {
	case []float32:
		out := make([]float64, len(s))
		for i, v := range s {
			out[i] = float64(v)
		}
		return out, false, nil
	case []uint16:
		if t.DType != backend.Float16 {
			break
		}
		out := make([]float64, len(s))
		for i, v := range s {
			out[i] = float64(onnx.Float16ToFloat32(v))
		}
		return out, false, nil
	case []int32:
		out := make([]float64, len(s))
		for i, v := range s {
			out[i] = float64(v)
		}
		return out, true, nil
	case []uint8:
		out := make([]float64, len(s))
		for i, v := range s {
			out[i] = float64(v)
		}
		return out, true, nil
	case []bool:
		out := make([]float64, len(s))
		for i, v := range s {
			if v {
				out[i] = 1
			}
		}
		return out, true, nil
	}
	return nil, false, fmt.Errorf("cannot compare %v data held as %T", t.DType, t.Data)
}

// Compare compares got with want element by element under tol. It never
// fails: a difference in type, shape or length is reported in Diff.Err.
func Compare(want, got backend.Tensor, tol Tolerance) Diff {
	d := Diff{Name: want.Name, DType: want.DType, Shape: want.Shape, Worst: -1}
	switch {
	case got.DType != want.DType:
		d.Err = fmt.Sprintf("type %v, want %v", got.DType, want.DType)
		return d
	case backend.FormatShape(got.Shape) != backend.FormatShape(want.Shape):
		d.Err = fmt.Sprintf("shape %s, want %s", backend.FormatShape(got.Shape), backend.FormatShape(want.Shape))
		return d
	}
	if w, ok := want.Data.([]int64); ok {
		g, ok := got.Data.([]int64)
		if !ok || len(g) != len(w) {
			d.Err = fmt.Sprintf("data %T of %d elements, want []int64 of %d", got.Data, backend.DataLen(got.DType, got.Data), len(w))
			return d
		}
		d.Elements = len(w)
		worst := 0.0
		for i := range w {
			if g[i] != w[i] {
				diff := math.Abs(float64(g[i]) - float64(w[i]))
				d.Bad++
				d.MaxAbs = math.Max(d.MaxAbs, diff)
				if w[i] != 0 {
					d.MaxRel = math.Max(d.MaxRel, diff/math.Abs(float64(w[i])))
				}
				if diff > worst || d.Worst < 0 {
					worst, d.Worst, d.WorstWant, d.WorstGot = diff, i, float64(w[i]), float64(g[i])
				}
			}
		}
		return d
	}
	w, exact, err := values(want)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	g, _, err := values(got)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	if len(g) != len(w) {
		d.Err = fmt.Sprintf("%d elements, want %d", len(g), len(w))
		return d
	}
	d.Elements = len(w)
	if exact {
		tol = Tolerance{}
	}
	worst := math.Inf(-1)
	for i := range w {
		a, b := w[i], g[i]
		var diff, excess float64
		switch {
		case math.IsNaN(a) && math.IsNaN(b), a == b:
			continue // equal (infinities of one sign included)
		case math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
			diff, excess = math.Inf(1), math.Inf(1)
		default:
			diff = math.Abs(b - a)
			excess = diff - (tol.Abs + tol.Rel*math.Abs(a))
		}
		d.MaxAbs = math.Max(d.MaxAbs, diff)
		if a != 0 {
			d.MaxRel = math.Max(d.MaxRel, diff/math.Abs(a))
		}
		if excess > 0 {
			d.Bad++
			if excess > worst {
				worst, d.Worst, d.WorstWant, d.WorstGot = excess, i, a, b
			}
		}
	}
	return d
}

// CompareAll compares two output lists matched by position (names may
// differ: reference files often carry none); a count difference is one
// failing Diff.
func CompareAll(want, got []backend.Tensor, tol Tolerance) []Diff {
	if len(got) != len(want) {
		return []Diff{{Name: "outputs", Worst: -1, Err: fmt.Sprintf("%d outputs, want %d", len(got), len(want))}}
	}
	out := make([]Diff, len(want))
	for i := range want {
		out[i] = Compare(want[i], got[i], tol)
		if out[i].Name == "" {
			out[i].Name = got[i].Name
		}
	}
	return out
}

// AllOK reports whether every diff is within its tolerance.
func AllOK(ds []Diff) bool {
	for _, d := range ds {
		if !d.OK() {
			return false
		}
	}
	return true
}

// Inputs makes seeded inputs for a model's declared inputs: an input named
// in shapes takes that shape (its rank and fixed dimensions must match the
// declaration), other dynamic dimensions take dyn (at least 1); floating-point inputs are uniform in
// [-1, 1); integer inputs are 0 or 1 (valid token ids, segment ids,
// positions and table indices of every model), and 1 where the name says
// mask; bools are random. The same infos, seed and dyn give the same
// tensors.
func Inputs(infos []backend.Info, seed uint64, dyn int64, shapes map[string][]int64) ([]backend.Tensor, error) {
	dyn = max(dyn, 1)
	rng := &onnx.SplitMix64{State: seed}
	out := make([]backend.Tensor, len(infos))
	for name := range shapes {
		if !slices.ContainsFunc(infos, func(in backend.Info) bool { return in.Name == name }) {
			return nil, fmt.Errorf("parity: the model has no input %q", name)
		}
	}
	for i, in := range infos {
		shape := make([]int64, len(in.Shape))
		given, ok := shapes[in.Name]
		if ok && len(given) != len(in.Shape) {
			return nil, fmt.Errorf("parity: input %q: shape %s given for a declared %s", in.Name, backend.FormatShape(given), backend.FormatShape(in.Shape))
		}
		n := int64(1)
		for j, d := range in.Shape {
			switch {
			case ok && d >= 0 && given[j] != d:
				return nil, fmt.Errorf("parity: input %q: shape %s given for a declared %s", in.Name, backend.FormatShape(given), backend.FormatShape(in.Shape))
			case ok:
				d = given[j]
			case d < 0:
				d = dyn
			}
			if d < 0 || (d > 0 && n > (1<<28)/d) {
				return nil, fmt.Errorf("parity: input %q: a negative dimension, or more than 2^28 elements; give smaller dimensions", in.Name)
			}
			shape[j] = d
			n *= d
		}
		mask := strings.Contains(strings.ToLower(in.Name), "mask")
		t := backend.Tensor{Name: in.Name, DType: in.DType, Shape: shape}
		switch in.DType {
		case backend.Float32:
			s := make([]float32, n)
			for k := range s {
				s[k] = float32(2*rng.Float64() - 1)
			}
			t.Data = s
		case backend.Float16:
			s := make([]uint16, n)
			for k := range s {
				s[k] = onnx.Float16Bits(float32(2*rng.Float64() - 1))
			}
			t.Data = s
		case backend.Int64:
			s := make([]int64, n)
			for k := range s {
				if mask || rng.Next()&1 == 1 {
					s[k] = 1
				}
			}
			t.Data = s
		case backend.Int32:
			s := make([]int32, n)
			for k := range s {
				if mask || rng.Next()&1 == 1 {
					s[k] = 1
				}
			}
			t.Data = s
		case backend.Uint8:
			s := make([]uint8, n)
			for k := range s {
				s[k] = uint8(rng.Next())
			}
			t.Data = s
		case backend.Bool:
			s := make([]bool, n)
			for k := range s {
				s[k] = mask || rng.Next()&1 == 1
			}
			t.Data = s
		default:
			return nil, fmt.Errorf("parity: input %q has type %v, which parity cannot generate", in.Name, in.DType)
		}
		out[i] = t
	}
	return out, nil
}

// Check runs ref and test on the same inputs and compares test's outputs
// with ref's under tol. Both sessions must fetch the same outputs.
func Check(ctx context.Context, ref, test backend.Session, in []backend.Tensor, tol Tolerance) ([]Diff, error) {
	want, err := ref.Run(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("parity: reference run: %w", err)
	}
	got, err := test.Run(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("parity: run: %w", err)
	}
	return CompareAll(want, got, tol), nil
}

// Write prints diffs as a table: output, type, shape, max abs, max rel,
// elements beyond the tolerance, and the worst one.
func Write(w io.Writer, ds []Diff) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "output\ttype\tshape\tmax abs\tmax rel\tbeyond\tworst (want → got)")
	for _, d := range ds {
		if d.Err != "" {
			fmt.Fprintf(tw, "%s\t%v\t%s\t-\t-\t-\t%s\n", d.Name, d.DType, backend.FormatShape(d.Shape), d.Err)
			continue
		}
		worst := "-"
		if d.Bad > 0 {
			worst = fmt.Sprintf("[%d] %.6g → %.6g", d.Worst, d.WorstWant, d.WorstGot)
		}
		fmt.Fprintf(tw, "%s\t%v\t%s\t%.3g\t%.3g\t%d/%d\t%s\n", d.Name, d.DType, backend.FormatShape(d.Shape), d.MaxAbs, d.MaxRel, d.Bad, d.Elements, worst)
	}
	return tw.Flush()
}

// MedianRun runs s on in once to warm up, then n times, and returns the
// median time of a run.
func MedianRun(ctx context.Context, s backend.Session, in []backend.Tensor, n int) (time.Duration, error) {
	if _, err := s.Run(ctx, in); err != nil {
		return 0, err
	}
	ts := make([]time.Duration, n)
	for i := range ts {
		start := time.Now()
		if _, err := s.Run(ctx, in); err != nil {
			return 0, err
		}
		ts[i] = time.Since(start)
	}
	slices.Sort(ts)
	return ts[n/2], nil
}
