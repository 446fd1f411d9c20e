package yolo

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// nmsConfig holds the settings of Ultralytics' non_max_suppression
// (ultralytics/utils/nms.py) on the single-label path the detection
// predictor takes.
type nmsConfig struct {
	// Conf is the confidence a box's best class score must exceed
	// (predict's conf: the reference passes 0.001).
	Conf float32
	// IoU is the overlap above which a lower-scored box of the same class
	// is suppressed (predict's iou default, 0.7).
	IoU float32
	// MaxDet is the most detections kept per image (max_det, 300).
	MaxDet int
	// MaxNMS is the most candidates, by score, that go into NMS (max_nms,
	// 30000; more than the 8400 anchors, so it only binds in tests).
	MaxNMS int
	// MaxWH is the per-class box offset that keeps classes apart (max_wh,
	// 7680 pixels).
	MaxWH float32
	// Agnostic suppresses across classes (agnostic_nms; off for the
	// reference).
	Agnostic bool
}

// referenceNMS is what YOLO(model).predict(img, conf=0.001) runs: the
// reference's conf, and Ultralytics' defaults for the rest.
var referenceNMS = nmsConfig{Conf: 0.001, IoU: 0.7, MaxDet: 300, MaxNMS: 30000, MaxWH: 7680}

// detection is one kept box.
type detection struct {
	// Box is x1, y1, x2, y2: network-input pixels after NMS, image pixels
	// after scaleBoxes.
	Box   [4]float32
	Score float32 // the best class's score
	Class int     // 0..NumClasses−1, the best class (first on ties)
}

// nmsScratch holds NMS's working memory so that repeated calls do not
// allocate. The zero value is ready; it is not safe for concurrent use.
type nmsScratch struct {
	cand  []candidate
	order []int32
	off   [][4]float32
	area  []float32
	best  []float32
	cls   []int32
	keys  []uint64
	keep  []bool
	// per-class buckets
	byClass     []int32
	start, next []int32
}

type candidate struct {
	box   [4]float32
	score float32
	class int32
}

// nms appends to dst the detections Ultralytics' non_max_suppression keeps
// for one image's raw output pred: (4+nc)×n float32 values, channel-major
// (output0 [1, 84, 8400] without its batch dimension): rows 0–3 the box
// centre x, y, width and height in input pixels, rows 4.. the class
// scores. Step by step, in float32 as PyTorch computes it:
//
//   - candidates are the anchors whose highest class score exceeds Conf
//     (a NaN score drops the anchor); their score and class are that
//     maximum and its first index (torch.max);
//   - boxes go from xywh to xyxy (x ± w/2);
//   - beyond MaxNMS candidates, only the MaxNMS best-scored are kept
//     (sorted by score, descending);
//   - each box is offset by class·MaxWH (0 when Agnostic) and torchvision's
//     nms runs on the offset boxes: in order of decreasing score, a box
//     suppresses every later box whose IoU with it exceeds IoU, the IoU
//     being inter / (area_i + area_j − inter);
//   - the first MaxDet survivors are returned, in that order, with their
//     boxes without the offset.
//
// Equal scores are ordered by anchor (a stable sort); PyTorch's sorts do
// not promise an order for ties. s may be nil.
func nms(dst []detection, pred []float32, nc, n int, cfg nmsConfig, s *nmsScratch) ([]detection, error) {
	if nc < 1 || n < 0 || len(pred) != (4+nc)*n {
		return dst, fmt.Errorf("yolo: raw output of %d values is not (4+%d)×%d", len(pred), nc, n)
	}
	if !(cfg.Conf >= 0 && cfg.Conf <= 1) || !(cfg.IoU >= 0 && cfg.IoU <= 1) {
		return dst, fmt.Errorf("yolo: NMS conf %v and IoU %v must lie in [0, 1]", cfg.Conf, cfg.IoU)
	}
	if s == nil {
		s = &nmsScratch{}
	}
	// The best class per anchor, a row of scores at a time (the output is
	// channel-major); a NaN score makes the anchor's best NaN, which fails
	// the threshold.
	best, cls := grow(s.best, n), grow(s.cls, n)
	copy(best, pred[4*n:5*n])
	clear(cls)
	for c := 1; c < nc; c++ {
		for a, v := range pred[(4+c)*n : (5+c)*n] {
			if v > best[a] {
				best[a], cls[a] = v, int32(c)
			} else if v != v {
				best[a] = v
			}
		}
	}
	s.best, s.cls = best, cls
	cand := s.cand[:0]
	for a, v := range best {
		if !(v > cfg.Conf) {
			continue
		}
		x, y := pred[a], pred[n+a]
		hw, hh := pred[2*n+a]/2, pred[3*n+a]/2
		cand = append(cand, candidate{box: [4]float32{x - hw, y - hh, x + hw, y + hh}, score: v, class: cls[a]})
	}
	s.cand = cand
	if len(cand) == 0 {
		return dst, nil
	}
	// Scores are positive (above Conf ≥ 0), so their bits order as they
	// do; a key holds the inverted bits and the candidate's index, and
	// sorting the keys orders by decreasing score, ties by anchor.
	keys := grow(s.keys, len(cand))
	for i, c := range cand {
		keys[i] = uint64(^math.Float32bits(c.score))<<32 | uint64(i)
	}
	slices.Sort(keys)
	if cfg.MaxNMS > 0 && len(keys) > cfg.MaxNMS {
		keys = keys[:cfg.MaxNMS]
	}
	s.keys = keys
	m := len(cand)
	order := grow(s.order, len(keys))
	for i, k := range keys {
		order[i] = int32(uint32(k))
	}
	off, area, keep := grow(s.off, m), grow(s.area, m), grow(s.keep, m)
	lo, hi := cand[0].box[0], cand[0].box[2]
	for i, c := range cand {
		o := float32(0)
		if !cfg.Agnostic {
			o = float32(c.class) * cfg.MaxWH
		}
		b := [4]float32{c.box[0] + o, c.box[1] + o, c.box[2] + o, c.box[3] + o}
		off[i] = b
		area[i] = float32(b[2]-b[0]) * float32(b[3]-b[1])
		keep[i] = false
		lo, hi = min(lo, c.box[0]), max(hi, c.box[2])
	}
	s.order, s.off, s.area, s.keep = order, off, area, keep
	if cfg.Agnostic || !(hi-lo < cfg.MaxWH/2) {
		// One pass over all boxes in score order.
		for _, i := range suppress(order, off, area, cfg.IoU, cfg.MaxDet) {
			c := cand[i]
			dst = append(dst, detection{Box: c.box, Score: c.score, Class: int(c.class)})
		}
		return dst, nil
	}
	// Every box spans less than MaxWH/2 in x, so boxes of different
	// classes, offset by at least MaxWH, have no intersection (0 IoU) and
	// never suppress each other: suppressing within each class (in score
	// order) keeps the same boxes, with far fewer comparisons.
	byClass := grow(s.byClass, m)
	start := grow(s.start, nc+1)
	clear(start)
	for _, c := range cand {
		start[c.class+1]++
	}
	for k := 1; k <= nc; k++ {
		start[k] += start[k-1]
	}
	next := grow(s.next, nc)
	copy(next, start[:nc])
	for _, i := range order {
		k := cand[i].class
		byClass[next[k]] = i
		next[k]++
	}
	s.byClass, s.start, s.next = byClass, start, next
	for k := range nc {
		for _, i := range suppress(byClass[start[k]:start[k+1]], off, area, cfg.IoU, cfg.MaxDet) {
			keep[i] = true
		}
	}
	kept := 0
	for _, i := range order {
		if !keep[i] {
			continue
		}
		c := cand[i]
		dst = append(dst, detection{Box: c.box, Score: c.score, Class: int(c.class)})
		if kept++; cfg.MaxDet > 0 && kept == cfg.MaxDet {
			break
		}
	}
	return dst, nil
}

// suppress runs torchvision's NMS on the boxes rest (indices into off and
// area, by decreasing score) and returns the kept ones in order, at most
// maxDet (≤ 0: all). It reorders rest in place: the result is a prefix of
// it.
func suppress(rest []int32, off [][4]float32, area []float32, iou float32, maxDet int) []int32 {
	kept := 0
	for kept < len(rest) {
		i := rest[kept]
		kept++
		if maxDet > 0 && kept == maxDet {
			break
		}
		bi, ai := off[i], area[i]
		next := rest[kept:kept]
		for _, j := range rest[kept:] {
			bj := off[j]
			w := max(min(bi[2], bj[2])-max(bi[0], bj[0]), 0)
			h := max(min(bi[3], bj[3])-max(bi[1], bj[1]), 0)
			inter := float32(w * h)
			if !(float32(inter/float32(float32(ai+area[j])-inter)) > iou) {
				next = append(next, j)
			}
		}
		rest = rest[:kept+len(next)]
	}
	return rest[:kept]
}

func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// scaleBoxes maps boxes from the size×size network input back to a
// w×h image as Ultralytics' scale_boxes (ultralytics/utils/ops.py) does
// for an input letterboxed without auto:
//
//	gain = min(size/h, size/w)                                  (float64)
//	pad_x = round((size − w·gain)/2 − 0.1), pad_y likewise       (half to even)
//	x1, x2 −= pad_x; y1, y2 −= pad_y; every coordinate /= gain  (float32)
//
// then clip_boxes: x to [0, w], y to [0, h]. The division is float32 by
// float32(gain), as PyTorch computes it on the CPU (on CUDA it multiplies
// by the float32 reciprocal, which can differ by one unit in the last
// place).
func scaleBoxes(dets []detection, size, w, h int) {
	gain := math.Min(float64(size)/float64(h), float64(size)/float64(w))
	padX := float32(math.RoundToEven((float64(size)-float64(w)*gain)/2 - 0.1))
	padY := float32(math.RoundToEven((float64(size)-float64(h)*gain)/2 - 0.1))
	g := float32(gain)
	fw, fh := float32(w), float32(h)
	for i := range dets {
		b := &dets[i].Box
		b[0] = clamp(float32(b[0]-padX)/g, fw)
		b[1] = clamp(float32(b[1]-padY)/g, fh)
		b[2] = clamp(float32(b[2]-padX)/g, fw)
		b[3] = clamp(float32(b[3]-padY)/g, fh)
	}
}

// clamp is torch.clamp(v, 0, hi): NaN stays NaN.
func clamp(v, hi float32) float32 {
	if v < 0 {
		return 0
	}
	if v > hi {
		return hi
	}
	return v
}

// coco80To91 maps the model's 80 class indices to COCO category ids
// (COCO_80_TO_91 of the reference's yolo_loadgen.py; the same table as
// yolo_ultra_map.py's COCO_MAP).
var coco80To91 = [numClasses]int{
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27, 28, 31, 32, 33, 34,
	35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
	64, 65, 67, 70, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90,
}

// encodeResponse appends the reference's response for one image to dst
// (Runner.enqueue in yolo_loadgen.py): for each detection in order, 7
// little-endian float32 [qslIdx, y1/h, x1/w, y2/h, x2/w, score, COCO
// category id], the quotients rounded to float32 (numpy ≥ 2 divides a
// float32 by a Python int in float32). dets must be in image pixels (after
// scaleBoxes) of a w×h image. No detection gives no bytes, which
// accuracy-coco.py counts as an image with no results.
func encodeResponse(dst []byte, qslIdx int, dets []detection, w, h int) ([]byte, error) {
	fw, fh := float32(w), float32(h)
	for _, d := range dets {
		if d.Class < 0 || d.Class >= numClasses {
			return dst, fmt.Errorf("yolo: detection of class %d, outside the %d classes", d.Class, numClasses)
		}
		b := d.Box
		for _, v := range [7]float32{float32(qslIdx), b[1] / fh, b[0] / fw, b[3] / fh, b[2] / fw, d.Score, float32(coco80To91[d.Class])} {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
		}
	}
	return dst, nil
}
