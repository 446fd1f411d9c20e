package yolo

import (
	"encoding/binary"
	"math"
	"testing"
)

// NMS, scaleBoxes and encodeResponse give exactly what the numpy
// re-computation of Ultralytics' non_max_suppression, scale_boxes and
// yolo_loadgen.py's packing gives on the golden raw predictions: the
// reference settings on 8400 anchors, binding max_nms and max_det caps,
// class-agnostic NMS, and a 3-class model at a high threshold.
func TestNMSMatchesUltralytics(t *testing.T) {
	g := loadGolden(t)
	if len(g.NMSCases) < 4 {
		t.Fatalf("only %d NMS goldens", len(g.NMSCases))
	}
	var s nmsScratch
	for _, c := range g.NMSCases {
		pred := rawPrediction(c.Seed, c.NC, c.N, c.Objects)
		if got := float32sSHA(pred); got != c.Raw {
			t.Fatalf("%s: raw prediction differs from gen_goldens.py's", c.Name)
		}
		cfg := nmsConfig{Conf: c.Conf, IoU: c.IoU, MaxDet: c.MaxDet, MaxNMS: c.MaxNMS, MaxWH: c.MaxWH, Agnostic: c.Agnostic}
		dets, err := nms(nil, pred, c.NC, c.N, cfg, &s)
		if err != nil {
			t.Fatal(err)
		}
		if len(dets) != c.Kept {
			t.Errorf("%s: %d detections, want %d", c.Name, len(dets), c.Kept)
			continue
		}
		for i, d := range dets {
			for k := range 4 {
				if math.Float32bits(d.Box[k]) != c.Boxes[4*i+k] {
					t.Fatalf("%s: detection %d box %v, want %v", c.Name, i, d.Box, [4]float32{
						math.Float32frombits(c.Boxes[4*i]), math.Float32frombits(c.Boxes[4*i+1]), math.Float32frombits(c.Boxes[4*i+2]), math.Float32frombits(c.Boxes[4*i+3])})
				}
			}
			if math.Float32bits(d.Score) != c.Scores[i] || d.Class != c.Classes[i] {
				t.Fatalf("%s: detection %d score %v class %d, want %v class %d", c.Name, i, d.Score, d.Class, math.Float32frombits(c.Scores[i]), c.Classes[i])
			}
		}
		for _, sc := range c.Scaled {
			scaled := append([]detection(nil), dets...)
			scaleBoxes(scaled, inputSize, sc.W, sc.H)
			flat := make([]float32, 0, 4*len(scaled))
			for _, d := range scaled {
				flat = append(flat, d.Box[:]...)
			}
			if float32sSHA(flat) != sc.Boxes {
				t.Errorf("%s: boxes scaled to %dx%d differ from scale_boxes'", c.Name, sc.W, sc.H)
			}
			if c.NC != numClasses {
				continue
			}
			resp, err := encodeResponse(nil, 7, scaled, sc.W, sc.H)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp) != sc.ResponseLen || sha256Hex(resp) != sc.Response {
				t.Errorf("%s: response for %dx%d (%d bytes) differs from yolo_loadgen.py's (%d bytes)", c.Name, sc.W, sc.H, len(resp), sc.ResponseLen)
			}
		}
	}
}

// rawFromBoxes builds a (4+nc)×n prediction from per-anchor xywh boxes
// and class scores.
func rawFromBoxes(nc int, boxes [][4]float32, scores [][]float32) []float32 {
	n := len(boxes)
	p := make([]float32, (4+nc)*n)
	for a := range n {
		for k := range 4 {
			p[k*n+a] = boxes[a][k]
		}
		for c := range nc {
			p[(4+c)*n+a] = scores[a][c]
		}
	}
	return p
}

// Hand-made cases on both sides of each rule: the threshold is strict,
// a NaN score drops its anchor, the first of equal class scores wins,
// equal scores keep anchor order, IoU exactly equal to the threshold does
// not suppress, and boxes of different classes never suppress each other
// unless agnostic.
func TestNMSRules(t *testing.T) {
	nan := float32(math.NaN())
	cfg := nmsConfig{Conf: 0.25, IoU: 0.5, MaxDet: 300, MaxNMS: 30000, MaxWH: 7680}
	run := func(t *testing.T, cfg nmsConfig, nc int, boxes [][4]float32, scores [][]float32) []detection {
		t.Helper()
		d, err := nms(nil, rawFromBoxes(nc, boxes, scores), nc, len(boxes), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	t.Run("threshold is strict", func(t *testing.T) {
		d := run(t, cfg, 2, [][4]float32{{10, 10, 4, 4}, {100, 100, 4, 4}}, [][]float32{{0.25, 0.1}, {0.2500001, 0}})
		if len(d) != 1 || d[0].Score != 0.2500001 {
			t.Errorf("got %+v, want only the box scored above 0.25", d)
		}
	})
	t.Run("NaN score drops the anchor", func(t *testing.T) {
		d := run(t, cfg, 2, [][4]float32{{10, 10, 4, 4}, {100, 100, 4, 4}}, [][]float32{{0.9, nan}, {nan, 0.9}})
		if len(d) != 0 {
			t.Errorf("got %+v, want none", d)
		}
	})
	t.Run("first class wins a tie", func(t *testing.T) {
		d := run(t, cfg, 3, [][4]float32{{10, 10, 4, 4}}, [][]float32{{0.1, 0.8, 0.8}})
		if len(d) != 1 || d[0].Class != 1 {
			t.Errorf("got %+v, want class 1", d)
		}
	})
	// Two 10×10 boxes overlapping by a third of the width: IoU
	// (10·10/3… ) — instead use exact halves: boxes [0,10]×[0,10] and
	// [5,15]×[0,10] have inter 50, union 150, IoU 1/3.
	t.Run("IoU at the threshold keeps, above suppresses", func(t *testing.T) {
		boxes := [][4]float32{{5, 5, 10, 10}, {10, 5, 10, 10}}
		scores := [][]float32{{0.9}, {0.8}}
		third := float32(50) / float32(150)
		at := cfg
		at.IoU = third
		if d := run(t, at, 1, boxes, scores); len(d) != 2 {
			t.Errorf("IoU == threshold: %d kept, want 2", len(d))
		}
		below := cfg
		below.IoU = math.Nextafter32(third, 0)
		if d := run(t, below, 1, boxes, scores); len(d) != 1 || d[0].Score != 0.9 {
			t.Errorf("IoU just above threshold: %+v, want the 0.9 box only", d)
		}
	})
	t.Run("classes apart unless agnostic", func(t *testing.T) {
		boxes := [][4]float32{{50, 50, 20, 20}, {50, 50, 20, 20}}
		scores := [][]float32{{0.9, 0}, {0, 0.8}}
		if d := run(t, cfg, 2, boxes, scores); len(d) != 2 {
			t.Errorf("class-aware: %d kept, want 2", len(d))
		}
		ag := cfg
		ag.Agnostic = true
		if d := run(t, ag, 2, boxes, scores); len(d) != 1 || d[0].Class != 0 {
			t.Errorf("agnostic: %+v, want class 0 only", d)
		}
	})
	t.Run("equal scores keep anchor order", func(t *testing.T) {
		boxes := [][4]float32{{10, 10, 4, 4}, {100, 100, 4, 4}, {200, 200, 4, 4}}
		scores := [][]float32{{0.5}, {0.5}, {0.5}}
		d := run(t, cfg, 1, boxes, scores)
		if len(d) != 3 || d[0].Box[0] != 8 || d[1].Box[0] != 98 || d[2].Box[0] != 198 {
			t.Errorf("got %+v, want anchors in order", d)
		}
	})
	t.Run("max_det", func(t *testing.T) {
		md := cfg
		md.MaxDet = 2
		boxes := [][4]float32{{10, 10, 4, 4}, {100, 100, 4, 4}, {200, 200, 4, 4}}
		d := run(t, md, 1, boxes, [][]float32{{0.3}, {0.9}, {0.6}})
		if len(d) != 2 || d[0].Score != 0.9 || d[1].Score != 0.6 {
			t.Errorf("got %+v, want the two best", d)
		}
	})
	t.Run("bad shape", func(t *testing.T) {
		if _, err := nms(nil, make([]float32, 83), 80, 1, cfg, nil); err == nil {
			t.Error("83 values as 84×1: no error")
		}
	})
}

// scaleBoxes undoes the letterbox's padding and gain and clips to the
// image; encodeResponse writes [idx, y1/h, x1/w, y2/h, x2/w, score, COCO
// id] and refuses a class outside the 80.
func TestScaleAndEncode(t *testing.T) {
	// 1280×960 → gain 0.5, 640×480, pad_y 80.
	d := []detection{{Box: [4]float32{100, 180, 300, 380}, Score: 0.75, Class: 79}, {Box: [4]float32{-20, 70, 700, 600}, Score: 0.5, Class: 0}}
	scaleBoxes(d, inputSize, 1280, 960)
	if d[0].Box != [4]float32{200, 200, 600, 600} {
		t.Errorf("box 0 scaled to %v, want [200 200 600 600]", d[0].Box)
	}
	if d[1].Box != [4]float32{0, 0, 1280, 960} {
		t.Errorf("box 1 scaled to %v, want clipped to [0 0 1280 960]", d[1].Box)
	}
	resp, err := encodeResponse(nil, 3, d[:1], 1280, 960)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{3, float32(200) / 960, float32(200) / 1280, float32(600) / 960, float32(600) / 1280, 0.75, 90}
	if len(resp) != recordSize {
		t.Fatalf("%d bytes, want %d", len(resp), recordSize)
	}
	for i, w := range want {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(resp[4*i:])); got != w {
			t.Errorf("field %d = %v, want %v", i, got, w)
		}
	}
	if r, err := encodeResponse(nil, 0, nil, 10, 10); err != nil || len(r) != 0 {
		t.Errorf("no detections: %d bytes, %v; want none", len(r), err)
	}
	if _, err := encodeResponse(nil, 0, []detection{{Class: 80}}, 10, 10); err == nil {
		t.Error("class 80: no error")
	}
}

// The category map is yolo_ultra_map.py's: increasing, from 1 to 90,
// skipping the 10 ids COCO does not use.
func TestCOCO80To91(t *testing.T) {
	unused := map[int]bool{12: true, 26: true, 29: true, 30: true, 45: true, 66: true, 68: true, 69: true, 71: true, 83: true}
	next := 1
	for i, id := range coco80To91 {
		for unused[next] {
			next++
		}
		if id != next {
			t.Fatalf("class %d → %d, want %d", i, id, next)
		}
		next++
	}
	if coco80To91[0] != 1 || coco80To91[79] != 90 {
		t.Errorf("ends %d, %d", coco80To91[0], coco80To91[79])
	}
}
