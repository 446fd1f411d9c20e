//go:build cgo

package yolo

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx"
)

// tinySession builds the tiny model and opens it with ONNX Runtime.
func tinySession(t testing.TB) backend.Session {
	t.Helper()
	orttest.Need(t)
	path := filepath.Join(t.TempDir(), "yolo_tiny.onnx")
	if err := build(path, sizeTiny, archSeed); err != nil {
		t.Fatal(err)
	}
	s, err := ort.Open(path, ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// archInput is a pseudo-image in [0, 1].
func archInput(seed uint64) []float32 {
	rng := onnx.SplitMix64{State: seed}
	x := make([]float32, sampleLen)
	for i := range x {
		x[i] = float32(rng.Float64())
	}
	return x
}

// The tiny model runs under ONNX Runtime with the export's contract and
// decodes boxes as Detect does: every anchor's centre lies within 7.5
// strides of its cell centre (the DFL distances are 0..15 bins a side),
// its width and height within 0..30 strides, its class scores in (0, 1);
// and the synthetic class bias leaves a realistic share of anchors above
// the reference's 0.001 threshold.
func TestArchTinyDecodesAsDetect(t *testing.T) {
	s := tinySession(t)
	if err := checkContract(s.Inputs(), s.Outputs()); err != nil {
		t.Fatal(err)
	}
	out, err := s.Run(context.Background(), []backend.Tensor{{Name: inputName, DType: backend.Float32,
		Shape: []int64{1, 3, inputSize, inputSize}, Data: archInput(3)}})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := out[0].Data.([]float32)
	if !ok || len(p) != outputLen {
		t.Fatalf("output0: %T of %d values, want %d float32", out[0].Data, len(p), outputLen)
	}
	xy, stride := anchorPoints()
	const n = numAnchors
	above := 0
	for a := range n {
		s := stride[a]
		ax, ay := xy[a]*s, xy[n+a]*s
		cx, cy, w, h := p[a], p[n+a], p[2*n+a], p[3*n+a]
		const tol = 1e-3
		if math.Abs(float64(cx-ax)) > 7.5*float64(s)+tol || math.Abs(float64(cy-ay)) > 7.5*float64(s)+tol ||
			w < -tol || h < -tol || w > 30*s+tol || h > 30*s+tol {
			t.Fatalf("anchor %d (cell centre %v,%v, stride %v): box %v %v %v %v outside what DFL can decode", a, ax, ay, s, cx, cy, w, h)
		}
		best := float32(0)
		for c := range numClasses {
			v := p[(4+c)*n+a]
			if !(v > 0 && v < 1) {
				t.Fatalf("anchor %d class %d score %v", a, c, v)
			}
			best = max(best, v)
		}
		if best > referenceNMS.Conf {
			above++
		}
	}
	t.Logf("%d of %d anchors above conf %v", above, n, referenceNMS.Conf)
	if above < n/20 || above > n*19/20 {
		t.Errorf("%d of %d anchors above the 0.001 threshold: the synthetic scores are out of scale", above, n)
	}
	dets, err := nms(nil, p, numClasses, n, referenceNMS, nil)
	if err != nil || len(dets) == 0 {
		t.Errorf("NMS on the tiny model's output: %d detections, %v", len(dets), err)
	}
}

// A model with RetinaNet's contract (images [1,3,800,800] → boxes,
// scores, labels, as tools/retinanet_pytorch_to_onnx.py exports it) given
// to yolo is refused by name and shape before anything runs.
func TestRetinaNetModelRefused(t *testing.T) {
	orttest.Need(t)
	g := onnx.NewGraph(onnx.Config{Name: "retinanet_contract"})
	x := g.Input("images", onnx.Float, onnx.Fix(1), onnx.Fix(3), onnx.Fix(800), onnx.Fix(800))
	flat := g.SliceConst(g.ReshapeTo(x, -1, 4), []int64{0}, []int64{10}, []int64{0})
	g.Node("Identity", []string{flat}, []string{"boxes"})
	g.Node("Identity", []string{g.ReduceMax(flat, []int64{1}, false)}, []string{"scores"})
	g.Node("ArgMax", []string{flat}, []string{"labels"}, onnx.IntAttr("axis", 1), onnx.IntAttr("keepdims", 0))
	g.Output("boxes", onnx.Float, onnx.Sym("K"), onnx.Fix(4))
	g.Output("scores", onnx.Float, onnx.Sym("K"))
	g.Output("labels", onnx.Int64, onnx.Sym("K"))
	path := filepath.Join(t.TempDir(), "retinanet_contract.onnx")
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := ort.Open(path, ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = New(s, nil)
	if !errors.Is(err, errContract) || !strings.Contains(err.Error(), "[1,3,800,800]") {
		t.Errorf("RetinaNet model: %v, want ErrContract naming its 800×800 input", err)
	}
}
