//go:build cgo

package retinanet

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/onnx"
)

// refDetect re-computes the reference's postprocess_detections
// (retinanet.py of the MLPerf training RetinaNet) in Go on head outputs
// in the heads' NCHW layout: cls[l] [A·264, H, W], reg[l] [A·4, H, W].
// Arithmetic is float32 in the reference's order; sigmoid and exp are
// computed in float64 and rounded.
func refDetect(cls, reg [][]float32) (boxes []float32, scores []float32, labels []int64) {
	const k = numClasses
	var allB [][4]float32
	var allS []float32
	var allL []int64
	for l := range cls {
		side := levels[l].Side
		hw := side * side
		// Flatten in (y, x, anchor, class) order.
		n := hw * numAnchors * k
		type cand struct {
			s   float32
			idx int
		}
		var cands []cand
		for i := range n {
			c := i % k
			a := (i / k) % numAnchors
			pos := i / (k * numAnchors)
			logit := cls[l][(a*k+c)*hw+pos]
			s := float32(1 / (1 + math.Exp(-float64(logit))))
			if s > scoreThresh {
				cands = append(cands, cand{s, i})
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].s > cands[j].s })
		cands = cands[:min(len(cands), topKCandidates)]
		anchors := anchors(l)
		for _, c := range cands {
			ai := c.idx / k
			a, pos := ai%numAnchors, ai/numAnchors
			var d [4]float32
			for j := range 4 {
				d[j] = reg[l][(a*4+j)*hw+pos]
			}
			an := anchors[4*ai : 4*ai+4]
			w, h := an[2]-an[0], an[3]-an[1]
			cx, cy := an[0]+float32(0.5*w), an[1]+float32(0.5*h)
			dw, dh := min(d[2], float32(bboxClip)), min(d[3], float32(bboxClip))
			pcx, pcy := float32(d[0]*w)+cx, float32(d[1]*h)+cy
			pw, ph := float32(float32(math.Exp(float64(dw)))*w), float32(float32(math.Exp(float64(dh)))*h)
			hw2, hh2 := float32(0.5*pw), float32(0.5*ph)
			b := [4]float32{pcx - hw2, pcy - hh2, pcx + hw2, pcy + hh2}
			for j := range b {
				b[j] = min(max(b[j], 0), inputSize)
			}
			allB, allS, allL = append(allB, b), append(allS, c.s), append(allL, int64(c.idx%k))
		}
	}
	// batched_nms, coordinate trick: offset each box by label·(max + 1).
	var maxC float32
	for _, b := range allB {
		maxC = max(maxC, b[0], b[1], b[2], b[3])
	}
	nb := make([][4]float32, len(allB))
	area := make([]float32, len(allB))
	for i, b := range allB {
		off := float32(allL[i]) * (maxC + 1)
		nb[i] = [4]float32{b[0] + off, b[1] + off, b[2] + off, b[3] + off}
		area[i] = (nb[i][2] - nb[i][0]) * (nb[i][3] - nb[i][1])
	}
	order := make([]int, len(allB))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return allS[order[i]] > allS[order[j]] })
	suppressed := make([]bool, len(allB))
	var keep []int
	for _, i := range order {
		if suppressed[i] {
			continue
		}
		keep = append(keep, i)
		for _, j := range order {
			if suppressed[j] || j == i {
				continue
			}
			w := max(0, min(nb[i][2], nb[j][2])-max(nb[i][0], nb[j][0]))
			h := max(0, min(nb[i][3], nb[j][3])-max(nb[i][1], nb[j][1]))
			inter := w * h
			if inter/(area[i]+area[j]-inter) > nmsThresh {
				suppressed[j] = true
			}
		}
	}
	keep = keep[:min(len(keep), detectionsPerImage)]
	for _, i := range keep {
		boxes = append(boxes, allB[i][:]...)
		scores = append(scores, allS[i])
		labels = append(labels, allL[i])
	}
	return boxes, scores, labels
}

// TestPostprocessMatchesReference runs the in-graph post-processing on
// fixed head outputs and compares it with refDetect: the same detections
// in the same order. The logits favour a few classes so that NMS has
// overlapping boxes of one class to suppress; some deltas exceed the exp
// clip and many boxes cross the image border.
func TestPostprocessMatchesReference(t *testing.T) {
	orttest.Need(t)
	g := onnx.NewGraph(onnx.Config{Name: "retinanet_postprocess"})
	rng := rand.New(rand.NewPCG(7, 11))
	var clsNames, regNames []string
	var feeds []backend.Tensor
	var cls, reg [][]float32
	for l, lv := range levels {
		s := int64(lv.Side)
		cn := g.Input(fmt.Sprintf("cls%d", l), onnx.Float, onnx.Fix(1), onnx.Fix(numAnchors*numClasses), onnx.Fix(s), onnx.Fix(s))
		rn := g.Input(fmt.Sprintf("reg%d", l), onnx.Float, onnx.Fix(1), onnx.Fix(numAnchors*4), onnx.Fix(s), onnx.Fix(s))
		clsNames, regNames = append(clsNames, cn), append(regNames, rn)
		hw := lv.Side * lv.Side
		c := make([]float32, numAnchors*numClasses*hw)
		for i := range c {
			class := (i / hw) % numClasses
			mean := -7.0
			if class < 3 {
				mean = -2.5
			}
			c[i] = float32(mean + 1.5*rng.NormFloat64())
		}
		r := make([]float32, numAnchors*4*hw)
		for i := range r {
			r[i] = float32(0.4 * rng.NormFloat64())
			if rng.IntN(500) == 0 {
				r[i] = 5 // beyond BBoxClip for dw/dh
			}
		}
		cls, reg = append(cls, c), append(reg, r)
		feeds = append(feeds,
			backend.Tensor{Name: cn, DType: backend.Float32, Shape: []int64{1, numAnchors * numClasses, s, s}, Data: c},
			backend.Tensor{Name: rn, DType: backend.Float32, Shape: []int64{1, numAnchors * 4, s, s}, Data: r})
	}
	postprocess(g, clsNames, regNames)
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	sess, err := ort.OpenBytes(buf.Bytes(), ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	outs, err := sess.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for i, o := range sess.Outputs() {
		got[o.Name] = outs[i].Data
	}
	gb, gs, gl := got[boxesName].([]float32), got[scoresName].([]float32), got[labelsName].([]int64)
	wb, ws, wl := refDetect(cls, reg)
	if len(ws) != detectionsPerImage {
		t.Fatalf("reference kept %d detections; the test data should fill all %d", len(ws), detectionsPerImage)
	}
	if len(gs) != len(ws) || len(gb) != len(wb) || len(gl) != len(wl) {
		t.Fatalf("graph returned %d detections, reference %d", len(gs), len(ws))
	}
	clipped, suppressedClasses := 0, map[int64]int{}
	for i := range ws {
		if gl[i] != wl[i] || math.Abs(float64(gs[i]-ws[i])) > 1e-6 {
			t.Fatalf("detection %d: label %d score %v, reference label %d score %v", i, gl[i], gs[i], wl[i], ws[i])
		}
		for j := range 4 {
			if d := math.Abs(float64(gb[4*i+j] - wb[4*i+j])); d > 1e-3 {
				t.Fatalf("detection %d: box %v, reference %v", i, gb[4*i:4*i+4], wb[4*i:4*i+4])
			}
			if wb[4*i+j] == 0 || wb[4*i+j] == inputSize {
				clipped++
			}
		}
		suppressedClasses[wl[i]]++
	}
	if clipped == 0 || len(suppressedClasses) > 10 {
		t.Errorf("test data too easy: %d clipped coordinates, %d classes among the detections", clipped, len(suppressedClasses))
	}
}
