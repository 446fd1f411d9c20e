//go:build cgo

package onnx_test

// The diffusion helpers (ops_diffusion.go) run in ONNX Runtime and checked
// against their PyTorch definitions written out here in Go.

import (
	"math"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx"
)

// groupNormRef is torch.nn.GroupNorm on x [N, C, H, W].
func groupNormRef(x nd, groups int, scale, bias []float64, eps float64) nd {
	n, c, hw := x.shape[0], x.shape[1], x.shape[2]*x.shape[3]
	out := nd{shape: x.shape, v: make([]float64, len(x.v))}
	per := c / groups * hw
	for b := range n {
		for gi := range groups {
			lo := b*c*hw + gi*per
			v := x.v[lo : lo+per]
			m := mean(v)
			vr := 0.0
			for _, e := range v {
				vr += (e - m) * (e - m)
			}
			vr /= float64(per)
			for i, e := range v {
				ch := gi*(c/groups) + i/hw
				out.v[lo+i] = (e-m)/math.Sqrt(vr+eps)*scale[ch] + bias[ch]
			}
		}
	}
	return out
}

func upsampleRef(x nd) nd {
	n, c, h, w := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	out := nd{shape: []int{n, c, 2 * h, 2 * w}, v: make([]float64, 4*len(x.v))}
	for b := range n * c {
		for i := range 2 * h {
			for j := range 2 * w {
				out.v[b*4*h*w+i*2*w+j] = x.v[b*h*w+(i/2)*w+j/2]
			}
		}
	}
	return out
}

// attentionRef is multi-head softmax(q·kᵀ/√d + mask)·v with the heads
// split from the last axis of q, k, v [B, L, H·d].
func attentionRef(q, k, v nd, heads int, causal bool) nd {
	b, lq, dm := q.shape[0], q.shape[1], q.shape[2]
	lk := k.shape[1]
	d := dm / heads
	out := nd{shape: q.shape, v: make([]float64, len(q.v))}
	for bi := range b {
		for h := range heads {
			for i := range lq {
				s := make([]float64, lk)
				for j := range lk {
					for e := range d {
						s[j] += q.v[(bi*lq+i)*dm+h*d+e] * k.v[(bi*lk+j)*dm+h*d+e]
					}
					s[j] /= math.Sqrt(float64(d))
					if causal && j > i {
						s[j] = math.Inf(-1)
					}
				}
				p := softmax(s)
				for e := range d {
					acc := 0.0
					for j := range lk {
						acc += p[j] * v.v[(bi*lk+j)*dm+h*d+e]
					}
					out.v[(bi*lq+i)*dm+h*d+e] = acc
				}
			}
		}
	}
	return out
}

func TestDiffusionOpsAgainstGo(t *testing.T) {
	orttest.Need(t)
	x := seq(wave, 2, 6, 3, 4)
	scale := seq(func(i int) float64 { return 0.5 + 0.25*float64(i) }, 6)
	bias := seq(func(i int) float64 { return float64(i)/3 - 1 }, 6)
	q := seq(wave, 2, 5, 8)
	k := seq(func(i int) float64 { return wave(i + 7) }, 2, 5, 8)
	v := seq(func(i int) float64 { return wave(3*i + 1) }, 2, 5, 8)
	kc := seq(func(i int) float64 { return wave(i + 3) }, 2, 3, 8)
	vc := seq(func(i int) float64 { return wave(2*i + 5) }, 2, 3, 8)
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	cases := []opCase{
		{name: "GroupNorm", in: []input{f32(x), f32(scale), f32(bias)},
			build: func(g *onnx.Graph, in []string) string { return g.GroupNorm(in[0], in[1], in[2], 3, 1e-5) },
			want:  groupNormRef(x, 3, scale.v, bias.v, 1e-5), tol: 1e-4},
		{name: "GroupNorm one channel per group", in: []input{f32(x), f32(scale), f32(bias)},
			build: func(g *onnx.Graph, in []string) string { return g.GroupNorm(in[0], in[1], in[2], 6, 1e-6) },
			want:  groupNormRef(x, 6, scale.v, bias.v, 1e-6), tol: 1e-4},
		{name: "UpsampleNearest2x", in: []input{f32(x)},
			build: func(g *onnx.Graph, in []string) string { return g.UpsampleNearest2x(in[0]) },
			want:  upsampleRef(x)},
		{name: "Attention causal", in: []input{f32(q), f32(k), f32(v)},
			build: func(g *onnx.Graph, in []string) string {
				return g.Attention(in[0], in[1], in[2], 2, 4, g.CausalMask(5))
			},
			want: attentionRef(q, k, v, 2, true), tol: 1e-5},
		{name: "Attention cross", in: []input{f32(q), f32(kc), f32(vc)},
			build: func(g *onnx.Graph, in []string) string { return g.Attention(in[0], in[1], in[2], 4, 2, "") },
			want:  attentionRef(q, kc, vc, 4, false), tol: 1e-5},
		{name: "Sin", in: []input{f32(q)}, build: func(g *onnx.Graph, in []string) string { return g.Sin(in[0]) },
			want: unary(q, math.Sin)},
		{name: "Cos", in: []input{f32(q)}, build: func(g *onnx.Graph, in []string) string { return g.Cos(in[0]) },
			want: unary(q, math.Cos)},
		{name: "SiLU", in: []input{f32(q)}, build: func(g *onnx.Graph, in []string) string { return g.SiLU(in[0]) },
			want: unary(q, func(x float64) float64 { return x * sig(x) })},
		{name: "QuickGelu", in: []input{f32(q)}, build: func(g *onnx.Graph, in []string) string { return g.QuickGelu(in[0]) },
			want: unary(q, func(x float64) float64 { return x * sig(1.702*x) })},
	}
	for _, c := range cases {
		c.outDT = onnx.Float
		t.Run(c.name, func(t *testing.T) { runCase(t, c) })
	}
}
