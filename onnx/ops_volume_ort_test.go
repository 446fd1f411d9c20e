//go:build cgo

package onnx_test

// The volumetric operators (ops_volume.go) run in ONNX Runtime against
// direct Go computations of their ONNX definitions.

import (
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"math"
	"testing"

	"github.com/mlperf-go/inference/onnx"
)

// instanceNormRef normalises each (n, c) slice of x over its spatial
// elements: (x − mean) / sqrt(var + eps) · scale[c] + bias[c].
func instanceNormRef(x nd, scale, bias []float64, eps float64) nd {
	n, c := x.shape[0], x.shape[1]
	sp := size(x.shape[2:])
	r := nd{shape: x.shape, v: make([]float64, len(x.v))}
	for i := range n * c {
		v := x.v[i*sp : (i+1)*sp]
		m := 0.0
		for _, a := range v {
			m += a
		}
		m /= float64(sp)
		s := 0.0
		for _, a := range v {
			s += (a - m) * (a - m)
		}
		s /= float64(sp)
		ch := i % c
		for k, a := range v {
			r.v[i*sp+k] = (a-m)/math.Sqrt(s+eps)*scale[ch] + bias[ch]
		}
	}
	return r
}

// conv3dRef: x [N,C,D,H,W], w [M,C,k,k,k], bias [M] or nil, symmetric pad.
func conv3dRef(x, w nd, bias []float64, stride, pad int) nd {
	N, C, D, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3], x.shape[4]
	M, k := w.shape[0], w.shape[2]
	od, oh, ow := (D+2*pad-k)/stride+1, (H+2*pad-k)/stride+1, (W+2*pad-k)/stride+1
	r := nd{shape: []int{N, M, od, oh, ow}, v: make([]float64, N*M*od*oh*ow)}
	o := 0
	for n := range N {
		for m := range M {
			for z := range od {
				for y := range oh {
					for xx := range ow {
						s := 0.0
						if bias != nil {
							s = bias[m]
						}
						for c := range C {
							for a := range k {
								for b := range k {
									for e := range k {
										iz, iy, ix := z*stride-pad+a, y*stride-pad+b, xx*stride-pad+e
										if iz < 0 || iz >= D || iy < 0 || iy >= H || ix < 0 || ix >= W {
											continue
										}
										s += x.v[(((n*C+c)*D+iz)*H+iy)*W+ix] * w.v[(((m*C+c)*k+a)*k+b)*k+e]
									}
								}
							}
						}
						r.v[o] = s
						o++
					}
				}
			}
		}
	}
	return r
}

// convTranspose3dRef: x [N,C,D,H,W], w [C,M,k,k,k], stride s, no padding:
// y[n, m, z·s+a, …] += x[n, c, z, …] · w[c, m, a, …], plus bias[m].
func convTranspose3dRef(x, w nd, bias []float64, s int) nd {
	N, C, D, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3], x.shape[4]
	M, k := w.shape[1], w.shape[2]
	od, oh, ow := (D-1)*s+k, (H-1)*s+k, (W-1)*s+k
	r := nd{shape: []int{N, M, od, oh, ow}, v: make([]float64, N*M*od*oh*ow)}
	for i := range r.v {
		r.v[i] = bias[(i/(od*oh*ow))%M]
	}
	for n := range N {
		for c := range C {
			for z := range D {
				for y := range H {
					for xx := range W {
						v := x.v[(((n*C+c)*D+z)*H+y)*W+xx]
						for m := range M {
							for a := range k {
								for b := range k {
									for e := range k {
										r.v[(((n*M+m)*od+z*s+a)*oh+y*s+b)*ow+xx*s+e] += v * w.v[(((c*M+m)*k+a)*k+b)*k+e]
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return r
}

// padRef pads x with pads [b0, b1, …, e0, e1, …] in mode constant (fill
// value) or edge.
func padRef(x nd, pads []int, edge bool, value float64) nd {
	r := len(x.shape)
	shape := make([]int, r)
	for d := range r {
		shape[d] = x.shape[d] + pads[d] + pads[r+d]
	}
	out := nd{shape: shape, v: make([]float64, size(shape))}
	st := strides(x.shape)
	for i := range out.v {
		c := unravel(i, shape)
		src, inside := 0, true
		for d := range r {
			j := c[d] - pads[d]
			if j < 0 || j >= x.shape[d] {
				if !edge {
					inside = false
					break
				}
				j = min(max(j, 0), x.shape[d]-1)
			}
			src += j * st[d]
		}
		if inside {
			out.v[i] = x.v[src]
		} else {
			out.v[i] = value
		}
	}
	return out
}

func TestVolumeOpsAgainstGo(t *testing.T) {
	orttest.Need(t)
	x := seq(wave, 1, 2, 4, 5, 6)
	scale, bias := []float64{1.5, -0.5}, []float64{0.25, 2}
	w3 := seeded(onnx.He(2*27), "w3", 3, 2, 3, 3, 3)
	wt := seeded(onnx.Uniform(-1, 1), "wt", 2, 3, 2, 2, 2)
	bt := []float64{0.1, -0.2, 0.3}
	cases := []opCase{
		{name: "InstanceNormalization 3-D", in: []input{f32(x)}, build: func(g *onnx.Graph, in []string) string {
			s := g.Const("s", onnx.Float, []int64{2}, []float32{1.5, -0.5})
			b := g.Const("b", onnx.Float, []int64{2}, []float32{0.25, 2})
			return g.InstanceNorm(in[0], s, b, 1e-5)
		}, want: instanceNormRef(x, scale, bias, 1e-5), tol: 1e-4},
		{name: "Conv 3-D stride 2 pad 1 no bias", in: []input{f32(x)}, build: func(g *onnx.Graph, in []string) string {
			w := g.Param("w3", onnx.Float, []int64{3, 2, 3, 3, 3}, onnx.He(2*27))
			return g.Conv(in[0], w, "", onnx.ConvOpts{Strides: []int64{2, 2, 2}, Pads: []int64{1, 1, 1, 1, 1, 1}})
		}, want: conv3dRef(x, w3, nil, 2, 1), tol: 1e-4},
		{name: "ConvTranspose 3-D k2 s2 bias", in: []input{f32(x)}, build: func(g *onnx.Graph, in []string) string {
			w := g.Param("wt", onnx.Float, []int64{2, 3, 2, 2, 2}, onnx.Uniform(-1, 1))
			b := g.Const("bt", onnx.Float, []int64{3}, []float32{0.1, -0.2, 0.3})
			return g.ConvTranspose(in[0], w, b, onnx.ConvTransposeOpts{Strides: []int64{2, 2, 2}})
		}, want: convTranspose3dRef(x, wt, bt, 2), tol: 1e-4},
		{name: "Pad constant", in: []input{f32(x)}, build: func(g *onnx.Graph, in []string) string {
			return g.Pad(in[0], []int64{0, 0, 1, 0, 2, 0, 0, 2, 1, 0}, onnx.PadConstant, onnx.Float, -2.2)
		}, want: padRef(x, []int{0, 0, 1, 0, 2, 0, 0, 2, 1, 0}, false, float64(float32(-2.2)))},
		{name: "Pad edge", in: []input{f32(x)}, build: func(g *onnx.Graph, in []string) string {
			return g.Pad(in[0], []int64{0, 0, 2, 1, 0, 0, 0, 1, 0, 3}, onnx.PadEdge, onnx.Float, 0)
		}, want: padRef(x, []int{0, 0, 2, 1, 0, 0, 0, 1, 0, 3}, true, 0)},
		{name: "Pad constant opset 10 (attributes)", opset: 10, in: []input{f32(x)}, build: func(g *onnx.Graph, in []string) string {
			return g.Pad(in[0], []int64{0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, onnx.PadConstant, onnx.Float, 3)
		}, want: padRef(x, []int{0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, false, 3)},
	}
	for _, c := range cases {
		if c.outDT == 0 {
			c.outDT = onnx.Float
		}
		t.Run(c.name, func(t *testing.T) { runCase(t, c) })
	}
}
