//go:build cgo

package onnx_test

import (
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"math"
	"sort"
	"testing"

	"github.com/mlperf-go/inference/onnx"
)

// topkRef returns the k largest values of each row and their indices,
// ties keeping the lower index first.
func topkRef(a nd, k int) (vals, idx nd) {
	rows, n := a.shape[0], a.shape[1]
	vals = nd{shape: []int{rows, k}}
	idx = nd{shape: []int{rows, k}}
	for r := range rows {
		row := a.v[r*n : (r+1)*n]
		o := make([]int, n)
		for i := range o {
			o[i] = i
		}
		sort.SliceStable(o, func(i, j int) bool { return row[o[i]] > row[o[j]] })
		for _, i := range o[:k] {
			vals.v = append(vals.v, row[i])
			idx.v = append(idx.v, float64(i))
		}
	}
	return vals, idx
}

// nmsRef is greedy NMS over corner boxes [y1 x1 y2 x2] of one batch and
// class: boxes in decreasing score order, each kept unless its IoU with a
// kept box exceeds thr.
func nmsRef(boxes []float64, scores []float64, thr float64) []float64 {
	o := make([]int, len(scores))
	for i := range o {
		o[i] = i
	}
	sort.SliceStable(o, func(i, j int) bool { return scores[o[i]] > scores[o[j]] })
	iou := func(a, b int) float64 {
		A, B := boxes[4*a:4*a+4], boxes[4*b:4*b+4]
		ih := math.Min(A[2], B[2]) - math.Max(A[0], B[0])
		iw := math.Min(A[3], B[3]) - math.Max(A[1], B[1])
		if ih <= 0 || iw <= 0 {
			return 0
		}
		inter := ih * iw
		return inter / ((A[2]-A[0])*(A[3]-A[1]) + (B[2]-B[0])*(B[3]-B[1]) - inter)
	}
	var kept []int
	var out []float64
	for _, i := range o {
		ok := true
		for _, k := range kept {
			if iou(i, k) > thr {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, i)
			out = append(out, 0, 0, float64(i))
		}
	}
	return out
}

func TestDetectionOpsAgainstGo(t *testing.T) {
	orttest.Need(t)
	a23 := seq(wave, 2, 3)
	scores := seq(func(i int) float64 { return math.Mod(float64(i)*0.37+0.11, 1) }, 2, 7)
	vals, idx := topkRef(scores, 3)
	// Five boxes [y1 x1 y2 x2]: 0 and 1 overlap with IoU 0.6, 2 and 3 with
	// IoU 1/3, 4 stands alone.
	boxes := nd{shape: []int{1, 5, 4}, v: []float64{
		0, 0, 10, 10,
		0, 2.5, 10, 12.5,
		20, 20, 30, 30,
		20, 25, 30, 35,
		50, 50, 51, 51,
	}}
	nmsScores := nd{shape: []int{1, 1, 5}, v: []float64{0.6, 0.9, 0.5, 0.4, 0.05}}
	keep := nmsRef(boxes.v, nmsScores.v, 0.5)
	img := seq(wave, 1, 1, 2, 3)
	var up nd // nearest ×2
	up.shape = []int{1, 1, 4, 6}
	for y := range 4 {
		for x := range 6 {
			up.v = append(up.v, img.v[(y/2)*3+x/2])
		}
	}
	// Linear 1×4 → 1×8 with half-pixel centres.
	row := seq(wave, 1, 1, 1, 4)
	var lin nd
	lin.shape = []int{1, 1, 1, 8}
	for x := range 8 {
		s := math.Max((float64(x)+0.5)/2-0.5, 0)
		x0 := int(s)
		x1 := min(x0+1, 3)
		f := s - float64(x0)
		lin.v = append(lin.v, row.v[x0]*(1-f)+row.v[x1]*f)
	}
	gi := nd{shape: []int{2, 2}, v: []float64{2, 0, 1, 1}}
	var ge nd
	ge.shape = []int{2, 2}
	for r := range 2 {
		for c := range 2 {
			ge.v = append(ge.v, a23.v[r*3+int(gi.v[r*2+c])])
		}
	}
	halves := nd{shape: []int{6}, v: []float64{-2.5, -1.5, -0.5, 0.5, 1.5, 2.4}}
	pos := unary(a23, func(x float64) float64 { return math.Abs(x) + 0.5 })
	var nz nd
	nz.shape = []int{2, 0}
	var rowsNZ, colsNZ []float64
	for i, v := range a23.v {
		if v > 0 {
			rowsNZ = append(rowsNZ, float64(i/3))
			colsNZ = append(colsNZ, float64(i%3))
		}
	}
	nz.shape[1] = len(rowsNZ)
	nz.v = append(rowsNZ, colsNZ...)
	var tile nd
	tile.shape = []int{4, 6}
	for r := range 4 {
		for c := range 6 {
			tile.v = append(tile.v, a23.v[(r%2)*3+c%3])
		}
	}
	b := seq(func(i int) float64 { return float64(i%3) - 1 }, 2, 3)
	cases := []opCase{
		{name: "TopK values", in: []input{f32(scores)}, build: func(g *onnx.Graph, in []string) string {
			v, _ := g.TopK(in[0], g.Int64s(3), 1, true)
			return v
		}, want: vals},
		{name: "TopK indices", in: []input{f32(scores)}, build: func(g *onnx.Graph, in []string) string {
			_, i := g.TopK(in[0], g.Int64s(3), 1, true)
			return i
		}, outDT: onnx.Int64, want: idx},
		{name: "NonMaxSuppression", in: []input{f32(boxes), f32(nmsScores)}, build: func(g *onnx.Graph, in []string) string {
			return g.NonMaxSuppression(in[0], in[1], onnx.NMSOpts{IoUThreshold: 0.5})
		}, outDT: onnx.Int64, want: nd{shape: []int{len(keep) / 3, 3}, v: keep}},
		{name: "NonMaxSuppression score threshold and cap", in: []input{f32(boxes), f32(nmsScores)}, build: func(g *onnx.Graph, in []string) string {
			return g.NonMaxSuppression(in[0], in[1], onnx.NMSOpts{IoUThreshold: 0.5, ScoreThreshold: 0.45, HasScoreThreshold: true, MaxPerClass: 1})
		}, outDT: onnx.Int64, want: nd{shape: []int{1, 3}, v: []float64{0, 0, 1}}},
		{name: "ResizeNearest x2", in: []input{f32(img)}, build: func(g *onnx.Graph, in []string) string {
			return g.ResizeNearest(in[0], 1, 1, 2, 2)
		}, want: up},
		{name: "ResizeLinear", in: []input{f32(row)}, build: func(g *onnx.Graph, in []string) string {
			return g.ResizeLinear(in[0], 1, 1, 1, 8)
		}, want: lin},
		{name: "Min Max", in: []input{f32(a23), f32(b)}, build: func(g *onnx.Graph, in []string) string {
			return g.Sub(g.Max(in[0], in[1]), g.Min(in[0], in[1]))
		}, want: broadcast(a23, b, func(x, y float64) float64 { return math.Abs(x - y) })},
		{name: "Clip", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string {
			return g.Clip(in[0], g.Scalar(onnx.Float, -0.5), g.Scalar(onnx.Float, 0.75))
		}, want: unary(a23, func(x float64) float64 { return math.Min(math.Max(x, -0.5), 0.75) })},
		{name: "Clip upper only", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string {
			return g.Clip(in[0], "", g.Scalar(onnx.Float, 0.75))
		}, want: unary(a23, func(x float64) float64 { return math.Min(x, 0.75) })},
		{name: "GatherElements", in: []input{f32(a23), i64(gi)}, build: func(g *onnx.Graph, in []string) string {
			return g.GatherElements(in[0], in[1], 1)
		}, want: ge},
		{name: "ReduceMin", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string {
			return g.ReduceMin(in[0], []int64{1}, true)
		}, want: reduce(a23, 1, func(v []float64) float64 {
			m := v[0]
			for _, x := range v {
				m = math.Min(m, x)
			}
			return m
		})},
		{name: "Floor Ceil", in: []input{f32(halves)}, build: func(g *onnx.Graph, in []string) string {
			return g.Add(g.Floor(in[0]), g.Ceil(in[0]))
		}, want: unary(halves, func(x float64) float64 { return math.Floor(x) + math.Ceil(x) })},
		{name: "Round half to even", in: []input{f32(halves)}, build: func(g *onnx.Graph, in []string) string { return g.Round(in[0]) },
			want: unary(halves, math.RoundToEven)},
		{name: "Log", in: []input{f32(pos)}, build: func(g *onnx.Graph, in []string) string { return g.Log(in[0]) }, want: unary(pos, math.Log)},
		{name: "And Or", in: []input{f32(a23), f32(b)}, build: func(g *onnx.Graph, in []string) string {
			p, q := g.Greater(in[0], g.Scalar(onnx.Float, 0)), g.Greater(in[1], g.Scalar(onnx.Float, 0))
			return g.Add(g.Cast(g.And(p, q), onnx.Float), g.Cast(g.Or(p, q), onnx.Float))
		}, want: broadcast(a23, b, func(x, y float64) float64 {
			p, q := x > 0, y > 0
			s := 0.0
			if p && q {
				s++
			}
			if p || q {
				s++
			}
			return s
		})},
		{name: "NonZero", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string {
			return g.NonZero(g.Greater(in[0], g.Scalar(onnx.Float, 0)))
		}, outDT: onnx.Int64, want: nz},
		{name: "Tile", in: []input{f32(a23)}, build: func(g *onnx.Graph, in []string) string { return g.Tile(in[0], 2, 2) }, want: tile},
		{name: "Conv grouped", in: []input{f32(seq(wave, 1, 4, 5, 5))}, build: func(g *onnx.Graph, in []string) string {
			w := g.Const("w", onnx.Float, []int64{6, 2, 3, 3}, f32s(seq(wave, 6, 2, 3, 3)))
			return g.Conv(in[0], w, "", onnx.ConvOpts{Pads: []int64{1, 1, 1, 1}, Group: 2})
		}, want: conv2d(seq(wave, 1, 4, 5, 5), seq(wave, 6, 2, 3, 3), nil, 1, 1, 1, 2), tol: 1e-4},
	}
	for _, c := range cases {
		if c.outDT == 0 {
			c.outDT = onnx.Float
		}
		t.Run(c.name, func(t *testing.T) { runCase(t, c) })
	}
}
