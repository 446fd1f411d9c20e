package coco

import (
	"cmp"
	"github.com/mlperf-go/inference/datasets/cocojson"
	"math"
	"slices"
)

// cocoRec is one kept detection of a category (at most 100 per image, the
// evaluateImg cut) with its outcome in every area range. Records are made
// in concatenation order (image rank, then score order within the image),
// which a stable sort by key keeps for ties.
type cocoRec struct {
	key  uint64 // scoreKey(score)
	rank int32  // position within its image after the score sort
	// mask[a] bit t: true positive at IoU threshold t; bit fpShift+t:
	// false positive; neither: ignored.
	mask [cocoA]uint32
}

const (
	fpShift = 16
	allFP   = (1<<cocoT - 1) << fpShift
)

// matchThrs are the IoU thresholds as evaluateImg starts each match:
// min(t, 1-1e-10).
var matchThrs = func() (m [cocoT]float64) {
	for i, t := range cocoIoUThrs {
		m[i] = min(t, 1-1e-10)
	}
	return m
}()

// scoreKey maps a score to a key whose ascending order is the descending
// order of scores, with -0 equal to +0 and NaN last (numpy's sort order of
// -score).
func scoreKey(s float64) uint64 {
	if s != s {
		return math.MaxUint64
	}
	if s == 0 {
		s = 0 // -0 ties with +0
	}
	b := math.Float64bits(s)
	if b>>63 != 0 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return ^b
}

// cocoWorker evaluates whole categories: evaluateImg for every image, then
// accumulate. Its buffers are reused from one category to the next; it is
// owned by one goroutine.
type cocoWorker struct {
	gt      *cocojson.GroundTruth
	dets    []Detection
	detRank []int32
	gtRank  []int32
	ev      *Eval
	K       int

	order   []int32   // the image's detections, sorted by score, cut to 100
	detOut  []uint8   // per detection in order: bit a set if its area is outside range a
	iou     []float64 // D×G, ground truths in file order
	ign     []bool    // per ground truth (file order) for the current area
	crowd   []bool    // per ground truth (file order)
	gtOrd   []int32   // ground truths in evaluation order (ignored last)
	matched []bool    // per gtOrd position, for the current threshold
	recs    []cocoRec
	tmp     []cocoRec
	npig    [cocoA]int
	rc, pr  [cocoT][]float64 // per threshold, at true positives
}

// category evaluates category k. dets and gts hold indices ordered by
// image rank, then by position in the input.
func (w *cocoWorker) category(k int, dets, gts []int32) {
	w.recs = slices.Grow(w.recs[:0], len(dets))
	w.npig = [cocoA]int{}
	for len(dets) > 0 || len(gts) > 0 {
		r := int32(math.MaxInt32)
		if len(dets) > 0 {
			r = w.detRank[dets[0]]
		}
		if len(gts) > 0 {
			r = min(r, w.gtRank[gts[0]])
		}
		nd, ng := 0, 0
		for nd < len(dets) && w.detRank[dets[nd]] == r {
			nd++
		}
		for ng < len(gts) && w.gtRank[gts[ng]] == r {
			ng++
		}
		w.image(dets[:nd], gts[:ng])
		dets, gts = dets[nd:], gts[ng:]
	}
	w.accumulate(k)
}

// image is evaluateImg for one image and category over the four area
// ranges (computeIoU included): detections sorted by score (stable) and cut
// to 100, ground truths sorted ignored-last (stable), greedy matching per
// IoU threshold in pycocotools' order.
func (w *cocoWorker) image(dets, gts []int32) {
	w.order = append(w.order[:0], dets...)
	if len(w.order) > 1 {
		slices.SortFunc(w.order, func(a, b int32) int {
			if c := scoreCmp(w.dets[a].Score, w.dets[b].Score); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	if maxDet := cocoMaxDets[cocoM-1]; len(w.order) > maxDet {
		w.order = w.order[:maxDet]
	}
	G := len(gts)

	// Unmatched detections outside an area range are ignored there
	// (loadRes: area = w*h).
	w.detOut = w.detOut[:0]
	base := len(w.recs)
	for i, d := range w.order {
		det := &w.dets[d]
		area := det.BBox[2] * det.BBox[3]
		var out uint8
		for a, rng := range cocoAreaRng {
			if area < rng[0] || area > rng[1] {
				out |= 1 << a
			}
		}
		w.detOut = append(w.detOut, out)
		rec := cocoRec{key: scoreKey(det.Score), rank: int32(i)}
		if G == 0 { // nothing to match: false positive where in range
			for a := range cocoA {
				if out&(1<<a) == 0 {
					rec.mask[a] = allFP
				}
			}
		}
		w.recs = append(w.recs, rec)
	}
	if G == 0 {
		return
	}
	recs := w.recs[base:]

	w.crowd = w.crowd[:0]
	for _, g := range gts {
		w.crowd = append(w.crowd, math.Trunc(w.gt.Annotations[g].IsCrowd) != 0)
	}
	w.iou = w.iou[:0]
	for _, d := range w.order {
		db := &w.dets[d].BBox
		for j, g := range gts {
			w.iou = append(w.iou, bboxIoU(db, &w.gt.Annotations[g].BBox, w.crowd[j]))
		}
	}

	for a, rng := range cocoAreaRng {
		w.ign = w.ign[:0]
		w.gtOrd = w.gtOrd[:0]
		for j, g := range gts {
			an := &w.gt.Annotations[g]
			ig := an.IsCrowd != 0 || an.Area < rng[0] || an.Area > rng[1]
			w.ign = append(w.ign, ig)
			if !ig {
				w.gtOrd = append(w.gtOrd, int32(j))
			}
		}
		w.npig[a] += len(w.gtOrd)
		for j := range gts {
			if w.ign[j] {
				w.gtOrd = append(w.gtOrd, int32(j))
			}
		}
		w.matched = slices.Grow(w.matched[:0], G)[:G]
		for t, thr := range matchThrs {
			clear(w.matched)
			for i := range w.order {
				best, m := thr, -1
				row := w.iou[i*G : (i+1)*G]
				for p, j := range w.gtOrd {
					if w.matched[p] && !w.crowd[j] {
						continue
					}
					if m > -1 && !w.ign[w.gtOrd[m]] && w.ign[j] {
						break
					}
					if row[j] < best {
						continue
					}
					best, m = row[j], p
				}
				// dtMatches holds the ground truth's id: a match with id 0
				// counts as no match downstream, as in pycocotools.
				hit, dtIg := false, false
				if m > -1 {
					j := w.gtOrd[m]
					w.matched[m] = true
					hit, dtIg = w.gt.Annotations[gts[j]].ID != 0, w.ign[j]
				}
				if !hit && w.detOut[i]&(1<<a) != 0 {
					dtIg = true
				}
				switch {
				case dtIg:
				case hit:
					recs[i].mask[a] |= 1 << t
				default:
					recs[i].mask[a] |= 1 << (fpShift + t)
				}
			}
		}
	}
}

// bboxIoU is maskApi.c bbIou for one pair: intersection over union, or over
// the detection's area for a crowd ground truth; boxes are x, y, w, h.
func bboxIoU(d, g *[4]float64, crowd bool) float64 {
	w := cFmin(d[2]+d[0], g[2]+g[0]) - cFmax(d[0], g[0])
	if w <= 0 {
		return 0
	}
	h := cFmin(d[3]+d[1], g[3]+g[1]) - cFmax(d[1], g[1])
	if h <= 0 {
		return 0
	}
	// The float64 conversions round each product, as C does: Go may
	// otherwise fuse a product into the following sum.
	i := float64(w * h)
	da := float64(d[2] * d[3])
	if crowd {
		return i / da
	}
	ga := float64(g[2] * g[3])
	return i / (float64(da+ga) - i)
}

// sortRecs sorts recs stably by key (LSD radix sort, skipping bytes that
// are the same in every key) and returns the sorted slice, which is recs or
// the worker's scratch buffer.
func (w *cocoWorker) sortRecs(recs []cocoRec) []cocoRec {
	if len(recs) < 2 {
		return recs
	}
	var counts [8][256]int
	for i := range recs {
		k := recs[i].key
		for b := range 8 {
			counts[b][byte(k>>(8*b))]++
		}
	}
	w.tmp = slices.Grow(w.tmp[:0], len(recs))[:len(recs)]
	src, dst := recs, w.tmp
	for b := range 8 {
		c := &counts[b]
		shift := 8 * b
		if c[byte(src[0].key>>shift)] == len(src) {
			continue
		}
		sum := 0
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		for i := range src {
			v := byte(src[i].key >> shift)
			dst[c[v]] = src[i]
			c[v]++
		}
		src, dst = dst, src
	}
	return src
}

// accumulate is COCOeval.accumulate for category k: per area range and
// maxDets, the detections of all images sorted by score (stable),
// cumulative true and false positives, precision made monotone from the
// right and read at the first index where recall reaches each recall
// threshold (np.searchsorted side='left').
//
// Only true-positive positions are kept: at a false positive or ignored
// detection precision does not rise and recall does not move, so no
// searchsorted index lands there (but index 0, whose value after the
// monotone pass is the overall maximum either way) and its value never
// exceeds the one before it.
func (w *cocoWorker) accumulate(k int) {
	recs := w.sortRecs(w.recs)
	K := w.K
	const eps = 2.220446049250313e-16 // np.spacing(1)
	for a := range cocoA {
		npig := w.npig[a]
		if npig == 0 {
			continue
		}
		for m, maxDet := range cocoMaxDets {
			var tp, fp [cocoT]int
			fpAll := 0
			for t := range cocoT {
				w.rc[t], w.pr[t] = w.rc[t][:0], w.pr[t][:0]
			}
			for i := range recs {
				rec := &recs[i]
				mk := rec.mask[a]
				if mk == 0 || int(rec.rank) >= maxDet {
					continue
				}
				if mk == allFP {
					fpAll++
					continue
				}
				for t := range cocoT {
					switch {
					case mk&(1<<t) != 0:
						tp[t]++
						tpf := float64(tp[t])
						w.rc[t] = append(w.rc[t], tpf/float64(npig))
						w.pr[t] = append(w.pr[t], tpf/(float64(fp[t]+fpAll)+tpf+eps))
					case mk&(1<<(fpShift+t)) != 0:
						fp[t]++
					}
				}
			}
			for t := range cocoT {
				rc, pr := w.rc[t], w.pr[t]
				for i := len(pr) - 1; i > 0; i-- {
					if pr[i] > pr[i-1] {
						pr[i-1] = pr[i]
					}
				}
				j := 0
				for r, thr := range cocoRecThrs {
					for j < len(rc) && rc[j] < thr {
						j++
					}
					q := 0.0
					if j < len(rc) {
						q = pr[j]
					}
					w.ev.Precision[(((t*cocoR+r)*K+k)*cocoA+a)*cocoM+m] = q
				}
				w.ev.Recall[((t*K+k)*cocoA+a)*cocoM+m] = float64(tp[t]) / float64(npig)
			}
		}
	}
}
