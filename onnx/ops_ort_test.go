//go:build cgo

package onnx_test

// Small graphs built with the onnx package, run in ONNX Runtime, checked
// against the operators' definitions computed here in Go.

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx"
)

// nd is a dense row-major array for the Go references.
type nd struct {
	shape []int
	v     []float64
}

func size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func strides(shape []int) []int {
	s := make([]int, len(shape))
	k := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = k
		k *= shape[i]
	}
	return s
}

// seq returns an array of the given shape holding f(i) for flat index i.
func seq(f func(i int) float64, shape ...int) nd {
	a := nd{shape: shape, v: make([]float64, size(shape))}
	for i := range a.v {
		a.v[i] = f(i)
	}
	return a
}

// wave is a deterministic, sign-changing fill.
func wave(i int) float64 { return math.Round(100*math.Sin(float64(i)*1.7+0.3)) / 50 }

// unravel converts a flat index to coordinates.
func unravel(i int, shape []int) []int {
	c := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		c[d] = i % shape[d]
		i /= shape[d]
	}
	return c
}

// broadcast applies f elementwise with numpy broadcasting.
func broadcast(a, b nd, f func(x, y float64) float64) nd {
	r := max(len(a.shape), len(b.shape))
	pad := func(s []int) []int {
		p := make([]int, r)
		for i := range p {
			p[i] = 1
		}
		copy(p[r-len(s):], s)
		return p
	}
	as, bs := pad(a.shape), pad(b.shape)
	out := make([]int, r)
	for i := range out {
		out[i] = max(as[i], bs[i])
	}
	ast, bst := strides(as), strides(bs)
	res := nd{shape: out, v: make([]float64, size(out))}
	for i := range res.v {
		c := unravel(i, out)
		ai, bi := 0, 0
		for d := range c {
			if as[d] > 1 {
				ai += c[d] * ast[d]
			}
			if bs[d] > 1 {
				bi += c[d] * bst[d]
			}
		}
		res.v[i] = f(a.v[ai], b.v[bi])
	}
	return res
}

func unary(a nd, f func(float64) float64) nd {
	r := nd{shape: a.shape, v: make([]float64, len(a.v))}
	for i, x := range a.v {
		r.v[i] = f(x)
	}
	return r
}

// matmul multiplies [..., m, k] by [k, n].
func matmul(a, b nd) nd {
	k, n := b.shape[0], b.shape[1]
	m := a.shape[len(a.shape)-2]
	batch := size(a.shape) / (m * k)
	shape := append(append([]int{}, a.shape[:len(a.shape)-1]...), n)
	r := nd{shape: shape, v: make([]float64, batch*m*n)}
	for bt := 0; bt < batch; bt++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for l := 0; l < k; l++ {
					s += a.v[bt*m*k+i*k+l] * b.v[l*n+j]
				}
				r.v[bt*m*n+i*n+j] = s
			}
		}
	}
	return r
}

// conv2d: x [N,C,H,W], w [M,C/group,kh,kw], bias [M] or nil.
func conv2d(x, w nd, bias []float64, stride, pad, dil, group int) nd {
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	M, Cg, kh, kw := w.shape[0], w.shape[1], w.shape[2], w.shape[3]
	oh := (H+2*pad-dil*(kh-1)-1)/stride + 1
	ow := (W+2*pad-dil*(kw-1)-1)/stride + 1
	r := nd{shape: []int{N, M, oh, ow}, v: make([]float64, N*M*oh*ow)}
	mPer := M / group
	for n := 0; n < N; n++ {
		for m := 0; m < M; m++ {
			g := m / mPer
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					s := 0.0
					if bias != nil {
						s = bias[m]
					}
					for c := 0; c < Cg; c++ {
						ci := g*Cg + c
						for ky := 0; ky < kh; ky++ {
							for kx := 0; kx < kw; kx++ {
								iy, ix := oy*stride-pad+ky*dil, ox*stride-pad+kx*dil
								if iy < 0 || iy >= H || ix < 0 || ix >= W {
									continue
								}
								s += x.v[((n*C+ci)*H+iy)*W+ix] * w.v[((m*Cg+c)*kh+ky)*kw+kx]
							}
						}
					}
					r.v[((n*M+m)*oh+oy)*ow+ox] = s
				}
			}
		}
	}
	_ = C
	return r
}

// pool2d with padding [top,left,bottom,right]; avg excludes padding.
func pool2d(x nd, k, stride int, pads [4]int, avg bool) nd {
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	oh := (H+pads[0]+pads[2]-k)/stride + 1
	ow := (W+pads[1]+pads[3]-k)/stride + 1
	r := nd{shape: []int{N, C, oh, ow}, v: make([]float64, N*C*oh*ow)}
	for nc := 0; nc < N*C; nc++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				best, sum, cnt := math.Inf(-1), 0.0, 0
				for ky := 0; ky < k; ky++ {
					for kx := 0; kx < k; kx++ {
						iy, ix := oy*stride-pads[0]+ky, ox*stride-pads[1]+kx
						if iy < 0 || iy >= H || ix < 0 || ix >= W {
							continue
						}
						v := x.v[(nc*H+iy)*W+ix]
						best = max(best, v)
						sum += v
						cnt++
					}
				}
				if avg {
					best = sum / float64(cnt)
				}
				r.v[(nc*oh+oy)*ow+ox] = best
			}
		}
	}
	return r
}

// lastAxis applies f to each row along the last axis.
func lastAxis(a nd, f func(row []float64) []float64) nd {
	n := a.shape[len(a.shape)-1]
	r := nd{shape: a.shape, v: make([]float64, 0, len(a.v))}
	for i := 0; i < len(a.v); i += n {
		r.v = append(r.v, f(a.v[i:i+n])...)
	}
	return r
}

func softmax(row []float64) []float64 {
	m := math.Inf(-1)
	for _, x := range row {
		m = max(m, x)
	}
	out := make([]float64, len(row))
	s := 0.0
	for i, x := range row {
		out[i] = math.Exp(x - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// transpose permutes axes.
func transpose(a nd, perm ...int) nd {
	shape := make([]int, len(perm))
	for i, p := range perm {
		shape[i] = a.shape[p]
	}
	st := strides(a.shape)
	r := nd{shape: shape, v: make([]float64, len(a.v))}
	for i := range r.v {
		c := unravel(i, shape)
		src := 0
		for d, p := range perm {
			src += c[d] * st[p]
		}
		r.v[i] = a.v[src]
	}
	return r
}

// reduce reduces axis ax of a with f over the values.
func reduce(a nd, ax int, f func(v []float64) float64) nd {
	shape := append([]int{}, a.shape...)
	shape[ax] = 1
	st := strides(a.shape)
	r := nd{shape: shape, v: make([]float64, size(shape))}
	for i := range r.v {
		c := unravel(i, shape)
		vals := make([]float64, a.shape[ax])
		for k := range vals {
			src := 0
			for d := range c {
				idx := c[d]
				if d == ax {
					idx = k
				}
				src += idx * st[d]
			}
			vals[k] = a.v[src]
		}
		r.v[i] = f(vals)
	}
	return r
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

type input struct {
	name string
	dt   onnx.DType
	a    nd
}

type opCase struct {
	name  string
	opset int64
	in    []input
	// build declares nothing itself: inputs are declared from in; it
	// returns the output value.
	build func(g *onnx.Graph, in []string) string
	outDT onnx.DType
	want  nd
	tol   float64
}

func f32(a nd) input { return input{dt: onnx.Float, a: a} }
func i64(a nd) input { return input{dt: onnx.Int64, a: a} }

func toTensor(name string, in input) backend.Tensor {
	shape := make([]int64, len(in.a.shape))
	for i, d := range in.a.shape {
		shape[i] = int64(d)
	}
	t := backend.Tensor{Name: name, Shape: shape}
	switch in.dt {
	case onnx.Float:
		d := make([]float32, len(in.a.v))
		for i, v := range in.a.v {
			d[i] = float32(v)
		}
		t.DType, t.Data = backend.Float32, d
	case onnx.Int64:
		d := make([]int64, len(in.a.v))
		for i, v := range in.a.v {
			d[i] = int64(v)
		}
		t.DType, t.Data = backend.Int64, d
	}
	return t
}

func asFloat64(t backend.Tensor) []float64 {
	var out []float64
	switch d := t.Data.(type) {
	case []float32:
		for _, v := range d {
			out = append(out, float64(v))
		}
	case []int64:
		for _, v := range d {
			out = append(out, float64(v))
		}
	case []int32:
		for _, v := range d {
			out = append(out, float64(v))
		}
	case []bool:
		for _, v := range d {
			out = append(out, map[bool]float64{false: 0, true: 1}[v])
		}
	}
	return out
}

func runCase(t *testing.T, c opCase) {
	g := onnx.NewGraph(onnx.Config{Name: c.name, Opset: c.opset, Seed: 5})
	var names []string
	var feeds []backend.Tensor
	for i, in := range c.in {
		name := fmt.Sprintf("in%d", i)
		dims := make([]onnx.Dim, len(in.a.shape))
		for k, d := range in.a.shape {
			dims[k] = onnx.Fix(int64(d))
		}
		names = append(names, g.Input(name, in.dt, dims...))
		feeds = append(feeds, toTensor(name, in))
	}
	y := c.build(g, names)
	g.OutputUnknownShape(y, c.outDT)
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := ort.OpenBytes(buf.Bytes(), ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	gotShape := fmt.Sprint(out[0].Shape)
	if want := fmt.Sprint(c.want.shape); gotShape != want {
		t.Fatalf("shape %s, want %s", gotShape, want)
	}
	got := asFloat64(out[0])
	tol := c.tol
	if tol == 0 {
		tol = 1e-5
	}
	for i := range c.want.v {
		w := c.want.v[i]
		if math.Abs(got[i]-w) > tol*max(1, math.Abs(w)) {
			t.Fatalf("element %d = %v, want %v (got %v)", i, got[i], w, got)
		}
	}
}

func TestOpsAgainstGo(t *testing.T) {
	orttest.Need(t)
	a23 := seq(wave, 2, 3)
	b3 := seq(func(i int) float64 { return float64(i) + 1.5 }, 3)
	pos := unary(seq(wave, 2, 3), func(x float64) float64 { return math.Abs(x) + 0.25 })
	x4 := seq(wave, 1, 2, 6, 7)
	erf := func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }
	gather := nd{shape: []int{2, 2}, v: []float64{3, 0, 1, 3}}
	table := seq(wave, 4, 3)
	var gatherWant nd
	gatherWant.shape = []int{2, 2, 3}
	for _, idx := range gather.v {
		gatherWant.v = append(gatherWant.v, table.v[int(idx)*3:int(idx)*3+3]...)
	}
	cases := []opCase{
		{name: "Add broadcast", in: []input{f32(a23), f32(b3)}, build: func(g *onnx.Graph, in []string) string { return g.Add(in[0], in[1]) },
			want: broadcast(a23, b3, func(x, y float64) float64 { return x + y })},
		{name: "Sub outer", in: []input{f32(seq(wave, 2, 1)), f32(seq(wave, 1, 3))}, build: func(g *onnx.Graph, in []string) string { return g.Sub(in[0], in[1]) },
			want: broadcast(seq(wave, 2, 1), seq(wave, 1, 3), func(x, y float64) float64 { return x - y })},
		{name: "Mul", in: []input{f32(a23), f32(a23)}, build: func(g *onnx.Graph, in []string) string { return g.Mul(in[0], in[1]) },
			want: broadcast(a23, a23, func(x, y float64) float64 { return x * y })},
		{name: "Div", in: []input{f32(a23), f32(b3)}, build: func(g *onnx.Graph, in []string) string { return g.Div(in[0], in[1]) },
			want: broadcast(a23, b3, func(x, y float64) float64 { return x / y })},
		{name: "Pow", in: []input{f32(pos)}, build: func(g *onnx.Graph, in []string) string { return g.Pow(in[0], g.Scalar(onnx.Float, 1.5)) },
			want: unary(pos, func(x float64) float64 { return math.Pow(x, 1.5) })},
		{name: "Sqrt", in: []input{f32(pos)}, build: func(g *onnx.Graph, in []string) string { return g.Sqrt(in[0]) }, want: unary(pos, math.Sqrt)},
		{name: "Erf", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string { return g.Erf(in[0]) }, want: unary(a23, math.Erf)},
		{name: "Relu", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string { return g.Relu(in[0]) },
			want: unary(a23, func(x float64) float64 { return max(x, 0) })},
		{name: "Sigmoid Tanh Exp Neg", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string {
			return g.Neg(g.Exp(g.Tanh(g.Sigmoid(in[0]))))
		}, want: unary(a23, func(x float64) float64 { return -math.Exp(math.Tanh(1 / (1 + math.Exp(-x)))) })},
		{name: "Gelu opset 17", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string { return g.Gelu(in[0]) }, want: unary(a23, erf)},
		{name: "Gelu opset 20", opset: 20, in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string { return g.Gelu(in[0]) }, want: unary(a23, erf)},
		{name: "MatMul batched", in: []input{f32(seq(wave, 2, 3, 4))}, build: func(g *onnx.Graph, in []string) string {
			return g.MatMul(in[0], g.Const("w", onnx.Float, []int64{4, 5}, f32s(seq(wave, 4, 5))))
		}, want: matmul(seq(wave, 2, 3, 4), seq(wave, 4, 5))},
		{name: "Gemm transB", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string {
			return g.Gemm(in[0], g.Const("w", onnx.Float, []int64{4, 3}, f32s(seq(wave, 4, 3))), g.Const("c", onnx.Float, []int64{4}, []float32{1, 2, 3, 4}), false, true)
		}, want: broadcast(matmul(a23, transpose(seq(wave, 4, 3), 1, 0)), nd{shape: []int{4}, v: []float64{1, 2, 3, 4}}, func(x, y float64) float64 { return x + y })},
		{name: "Linear seeded", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string {
			return g.Linear("fc", in[0], 3, 2, true)
		}, want: matmul(a23, seeded(onnx.Xavier(3, 2), "fc.weight", 3, 2))},
		{name: "Conv stride pad bias", in: []input{f32(x4)}, build: func(g *onnx.Graph, in []string) string {
			w := g.Const("w", onnx.Float, []int64{3, 2, 3, 3}, f32s(seq(wave, 3, 2, 3, 3)))
			return g.Conv(in[0], w, g.Const("b", onnx.Float, []int64{3}, []float32{0.5, -1, 2}), onnx.ConvOpts{Strides: []int64{2, 2}, Pads: []int64{1, 1, 1, 1}})
		}, want: conv2d(x4, seq(wave, 3, 2, 3, 3), []float64{0.5, -1, 2}, 2, 1, 1, 1), tol: 1e-4},
		{name: "Conv group dilation", in: []input{f32(x4)}, build: func(g *onnx.Graph, in []string) string {
			w := g.Const("w", onnx.Float, []int64{4, 1, 2, 2}, f32s(seq(wave, 4, 1, 2, 2)))
			return g.Conv(in[0], w, "", onnx.ConvOpts{Dilations: []int64{2, 2}, Group: 2})
		}, want: conv2d(x4, seq(wave, 4, 1, 2, 2), nil, 1, 0, 2, 2), tol: 1e-4},
		{name: "BatchNorm", in: []input{f32(x4)}, build: func(g *onnx.Graph, in []string) string {
			c := func(v ...float32) string { return g.Const("", onnx.Float, []int64{2}, v) }
			return g.BatchNorm(in[0], c(2, 0.5), c(1, -1), c(0.1, -0.2), c(4, 0.25), 1e-5)
		}, want: bnRef(x4, []float64{2, 0.5}, []float64{1, -1}, []float64{0.1, -0.2}, []float64{4, 0.25}, 1e-5), tol: 1e-4},
		{name: "MaxPool TF SAME", in: []input{f32(x4)}, build: func(g *onnx.Graph, in []string) string {
			return g.MaxPool(in[0], []int64{3, 3}, onnx.ConvOpts{Strides: []int64{2, 2}, Pads: []int64{0, 0, 1, 1}})
		}, want: pool2d(x4, 3, 2, [4]int{0, 0, 1, 1}, false)},
		{name: "AveragePool", in: []input{f32(x4)}, build: func(g *onnx.Graph, in []string) string {
			return g.AveragePool(in[0], []int64{2, 2}, onnx.ConvOpts{Strides: []int64{2, 2}, Pads: []int64{1, 1, 1, 1}})
		}, want: pool2d(x4, 2, 2, [4]int{1, 1, 1, 1}, true)},
		{name: "GlobalAveragePool Flatten", in: []input{f32(x4)}, build: func(g *onnx.Graph, in []string) string {
			return g.Flatten(g.GlobalAveragePool(in[0]), 1)
		}, want: reshape(reduce(reduce(x4, 3, mean), 2, mean), 1, 2)},
		{name: "Softmax", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string { return g.Softmax(in[0], -1) }, want: lastAxis(a23, softmax)},
		{name: "LogSoftmax", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string { return g.LogSoftmax(in[0], 1) },
			want: unary(lastAxis(a23, softmax), math.Log)},
		{name: "LayerNorm", in: []input{f32(seq(wave, 2, 5))}, build: func(g *onnx.Graph, in []string) string {
			return g.LayerNorm(in[0], g.Const("s", onnx.Float, []int64{5}, []float32{1, 2, 0.5, -1, 1}), g.Const("b", onnx.Float, []int64{5}, []float32{0, 1, 0, 0, -2}), -1, 1e-5)
		}, want: lnRef(seq(wave, 2, 5), []float64{1, 2, 0.5, -1, 1}, []float64{0, 1, 0, 0, -2}, 1e-5), tol: 1e-4},
		{name: "ReduceMean opset 17", in: []input{f32(seq(wave, 2, 3, 4))}, build: func(g *onnx.Graph, in []string) string {
			return g.ReduceMean(in[0], []int64{1}, true)
		}, want: reduce(seq(wave, 2, 3, 4), 1, mean)},
		{name: "ReduceMean opset 18", opset: 18, in: []input{f32(seq(wave, 2, 3, 4))}, build: func(g *onnx.Graph, in []string) string {
			return g.ReduceMean(in[0], []int64{-1}, false)
		}, want: reshape(reduce(seq(wave, 2, 3, 4), 2, mean), 2, 3)},
		{name: "ReduceSum ReduceMax", in: []input{f32(seq(wave, 2, 3, 4))}, build: func(g *onnx.Graph, in []string) string {
			return g.Add(g.ReduceSum(in[0], []int64{2}, true), g.ReduceMax(in[0], []int64{2}, true))
		}, want: broadcast(reduce(seq(wave, 2, 3, 4), 2, func(v []float64) float64 {
			s := 0.0
			for _, x := range v {
				s += x
			}
			return s
		}),
			reduce(seq(wave, 2, 3, 4), 2, func(v []float64) float64 {
				m := math.Inf(-1)
				for _, x := range v {
					m = max(m, x)
				}
				return m
			}),
			func(x, y float64) float64 { return x + y })},
		{name: "ArgMax", in: []input{f32(seq(wave, 3, 5))}, outDT: onnx.Int64, build: func(g *onnx.Graph, in []string) string {
			return g.ArgMax(in[0], 1, false)
		}, want: reshape(reduce(seq(wave, 3, 5), 1, argmax), 3)},
		{name: "Reshape Transpose", in: []input{f32(seq(wave, 2, 3, 4))}, build: func(g *onnx.Graph, in []string) string {
			return g.Transpose(g.ReshapeTo(in[0], 4, -1, 2), 2, 0, 1)
		}, want: transpose(reshape(seq(wave, 2, 3, 4), 4, 3, 2), 2, 0, 1)},
		{name: "Concat", in: []input{f32(a23), f32(seq(wave, 2, 1))}, build: func(g *onnx.Graph, in []string) string {
			return g.Concat(1, in[0], in[1])
		}, want: concat1(a23, seq(wave, 2, 1))},
		{name: "Unsqueeze Squeeze", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string {
			return g.Squeeze(g.Unsqueeze(in[0], 0, 3), 0)
		}, want: reshape(a23, 2, 3, 1)},
		{name: "Slice", in: []input{f32(seq(wave, 4, 6))}, build: func(g *onnx.Graph, in []string) string {
			return g.Slice(in[0], g.Int64s(1, 0), g.Int64s(3, 6), g.Int64s(0, 1), g.Int64s(1, 2))
		}, want: sliceRef(seq(wave, 4, 6), 1, 3, 0, 6, 2)},
		{name: "SliceConst negative", in: []input{f32(seq(wave, 4, 6))}, build: func(g *onnx.Graph, in []string) string {
			return g.SliceConst(in[0], []int64{-2}, []int64{math.MaxInt64}, []int64{1})
		}, want: sliceRef(seq(wave, 4, 6), 0, 4, 4, 6, 1)},
		{name: "Gather embedding", in: []input{i64(gather)}, build: func(g *onnx.Graph, in []string) string {
			return g.Gather(g.Const("table", onnx.Float, []int64{4, 3}, f32s(table)), in[0], 0)
		}, want: gatherWant},
		{name: "Split", in: []input{f32(seq(wave, 2, 5))}, build: func(g *onnx.Graph, in []string) string {
			return g.Split(in[0], 1, 2, 3)[1]
		}, want: sliceRef(seq(wave, 2, 5), 0, 2, 2, 5, 1)},
		{name: "Cast truncates", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string {
			return g.Cast(g.Cast(in[0], onnx.Int64), onnx.Float)
		}, want: unary(a23, math.Trunc)},
		{name: "Where Greater", in: []input{f32(a23), f32(b3)}, build: func(g *onnx.Graph, in []string) string {
			return g.Where(g.Greater(in[0], g.Scalar(onnx.Float, 0)), in[0], in[1])
		}, want: broadcast(a23, b3, func(x, y float64) float64 { return map[bool]float64{true: x, false: y}[x > 0] })},
		{name: "Equal Less Not", in: []input{f32(a23), f32(seq(wave, 1, 3))}, outDT: onnx.Bool, build: func(g *onnx.Graph, in []string) string {
			return g.Not(g.Less(in[0], in[1]))
		}, want: broadcast(a23, seq(wave, 1, 3), func(x, y float64) float64 { return map[bool]float64{true: 1, false: 0}[!(x < y)] })},
		{name: "Shape", in: []input{f32(seq(wave, 2, 3, 4))}, outDT: onnx.Int64, build: func(g *onnx.Graph, in []string) string { return g.Shape(in[0]) },
			want: nd{shape: []int{3}, v: []float64{2, 3, 4}}},
		{name: "Range Expand", in: []input{f32(b3)}, build: func(g *onnx.Graph, in []string) string {
			r := g.Cast(g.Range(g.Const("", onnx.Int64, []int64{}, []int64{0}), g.Const("", onnx.Int64, []int64{}, []int64{4}), g.Const("", onnx.Int64, []int64{}, []int64{1})), onnx.Float)
			return g.Add(g.Expand(in[0], g.Int64s(4, 3)), g.Unsqueeze(r, 1))
		}, want: broadcast(b3, seq(func(i int) float64 { return float64(i) }, 4, 1), func(x, y float64) float64 { return x + y })},
		{name: "Trilu ConstantOfShape", in: []input{f32(seq(wave, 3, 3))}, build: func(g *onnx.Graph, in []string) string {
			return g.Add(g.Trilu(in[0], true), g.ConstantOfShape(g.Int64s(3, 3), onnx.Float, 0.5))
		}, want: seq(func(i int) float64 {
			if i%3 >= i/3 {
				return wave(i) + 0.5
			}
			return 0.5
		}, 3, 3)},
		{name: "seeded int64", in: []input{i64(nd{shape: []int{1}, v: []float64{3}})}, outDT: onnx.Int64, build: func(g *onnx.Graph, in []string) string {
			return g.Add(g.Param("ids", onnx.Int64, []int64{5}, onnx.Uniform(0, 100)), in[0])
		}, want: unary(seededInt("ids", 5), func(x float64) float64 { return x + 3 })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.outDT == 0 {
				c.outDT = onnx.Float
			}
			runCase(t, c)
		})
	}
}

func f32s(a nd) []float32 {
	out := make([]float32, len(a.v))
	for i, v := range a.v {
		out[i] = float32(v)
	}
	return out
}

// seeded reproduces a seeded float initializer from the documented stream.
func seeded(init onnx.Init, name string, shape ...int) nd {
	r := onnx.SplitMix64{State: onnx.StreamSeed(5, name)}
	return seq(func(int) float64 { return float64(float32(init.Low + (init.High-init.Low)*r.Float64())) }, shape...)
}

func seededInt(name string, n int) nd {
	r := onnx.SplitMix64{State: onnx.StreamSeed(5, name)}
	return seq(func(int) float64 { return math.Floor(100 * r.Float64()) }, n)
}

func reshape(a nd, shape ...int) nd { return nd{shape: shape, v: a.v} }

func argmax(v []float64) float64 {
	b := 0
	for i, x := range v {
		if x > v[b] {
			b = i
		}
	}
	return float64(b)
}

func bnRef(x nd, scale, bias, m, v []float64, eps float64) nd {
	C, HW := x.shape[1], x.shape[2]*x.shape[3]
	r := nd{shape: x.shape, v: make([]float64, len(x.v))}
	for i, val := range x.v {
		c := (i / HW) % C
		r.v[i] = scale[c]*(val-m[c])/math.Sqrt(v[c]+eps) + bias[c]
	}
	return r
}

func lnRef(x nd, scale, bias []float64, eps float64) nd {
	return lastAxis(x, func(row []float64) []float64 {
		mu := mean(row)
		vr := 0.0
		for _, v := range row {
			vr += (v - mu) * (v - mu) / float64(len(row))
		}
		out := make([]float64, len(row))
		for i, v := range row {
			out[i] = (v-mu)/math.Sqrt(vr+eps)*scale[i] + bias[i]
		}
		return out
	})
}

func concat1(a, b nd) nd {
	r := nd{shape: []int{a.shape[0], a.shape[1] + b.shape[1]}}
	for i := 0; i < a.shape[0]; i++ {
		r.v = append(r.v, a.v[i*a.shape[1]:(i+1)*a.shape[1]]...)
		r.v = append(r.v, b.v[i*b.shape[1]:(i+1)*b.shape[1]]...)
	}
	return r
}

// sliceRef slices a 2-D array: rows [r0,r1), columns [c0,c1) step cs.
func sliceRef(a nd, r0, r1, c0, c1, cs int) nd {
	r := nd{}
	cols := 0
	for i := r0; i < r1; i++ {
		cols = 0
		for j := c0; j < c1; j += cs {
			r.v = append(r.v, a.v[i*a.shape[1]+j])
			cols++
		}
	}
	r.shape = []int{r1 - r0, cols}
	return r
}

// TestExternalDataRuns checks that ONNX Runtime reads weights from the side
// file exactly as from an inline model.
func TestExternalDataRuns(t *testing.T) {
	orttest.Need(t)
	build := func() *onnx.Graph {
		g := onnx.NewGraph(onnx.Config{Seed: 9})
		x := g.Input("x", onnx.Float, onnx.Sym("N"), onnx.Fix(32))
		h := g.Relu(g.Linear("l1", x, 32, 64, true))
		y := g.Rename(g.Linear("l2", h, 64, 8, true), "y")
		g.Output(y, onnx.Float, onnx.Sym("N"), onnx.Fix(8))
		return g
	}
	dir := t.TempDir()
	run := func(name string, o onnx.FileOptions) []float32 {
		p := filepath.Join(dir, name)
		if err := build().WriteFile(p, o); err != nil {
			t.Fatal(err)
		}
		s, err := ort.Open(p, ort.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		x := make([]float32, 2*32)
		for i := range x {
			x[i] = float32(wave(i))
		}
		out, err := s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{2, 32}, Data: x}})
		if err != nil {
			t.Fatal(err)
		}
		return out[0].Data.([]float32)
	}
	inline := run("inline.onnx", onnx.FileOptions{})
	ext := run("ext.onnx", onnx.FileOptions{External: onnx.ExternalAlways})
	if fmt.Sprint(inline) != fmt.Sprint(ext) {
		t.Errorf("inline %v\nexternal %v", inline, ext)
	}
}
