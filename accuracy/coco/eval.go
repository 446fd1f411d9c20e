package coco

import (
	"cmp"
	"fmt"
	"github.com/mlperf-go/inference/datasets/cocojson"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Detection is one detection in COCO result form (what loadRes reads).
type Detection struct {
	ImageID, CategoryID int64
	BBox                [4]float64 // x, y, width, height in pixels; area = width*height
	Score               float64
}

// EvalConfig selects what Evaluate scores.
type EvalConfig struct {
	// ImageIDs are the evaluated images (COCOeval params.imgIds, any order,
	// repeats allowed); nil means every image of the ground truth.
	ImageIDs []int64
	// Workers is how many categories are evaluated at once; 0 means
	// GOMAXPROCS.
	Workers int
}

// The pycocotools Params.setDetParams dimensions.
const (
	cocoT = 10  // IoU thresholds
	cocoR = 101 // recall thresholds
	cocoA = 4   // area ranges
	cocoM = 3   // maxDets
)

var (
	// cocoIoUThrs is np.linspace(.5, 0.95, 10), cocoRecThrs np.linspace(0, 1, 101).
	cocoIoUThrs = numpyLinspace(0.5, 0.95, cocoT)
	cocoRecThrs = numpyLinspace(0, 1, cocoR)
	cocoMaxDets = [cocoM]int{1, 10, 100}
	cocoAreaRng = [cocoA][2]float64{{0, 1e10}, {0, 32 * 32}, {32 * 32, 96 * 96}, {96 * 96, 1e10}}
	cocoAreaLbl = [cocoA]string{"all", "small", "medium", "large"}
)

// IoUThresholds returns the IoU thresholds, np.linspace(.5, 0.95, 10).
func IoUThresholds() []float64 { return slices.Clone(cocoIoUThrs) }

// RecallThresholds returns the 101 recall points, np.linspace(0, 1, 101).
func RecallThresholds() []float64 { return slices.Clone(cocoRecThrs) }

// Eval is the outcome of Evaluate: COCOeval's eval['precision'],
// eval['recall'] and stats after evaluate, accumulate and summarize. It is
// not modified after Evaluate returns and is safe for concurrent reads.
type Eval struct {
	// Stats are the 12 summary numbers in summarize() order; -1 where no
	// entry was above -1.
	Stats [12]float64
	// CategoryIDs (sorted, unique) index K; ImageIDs (sorted, unique) are
	// the evaluated images.
	CategoryIDs, ImageIDs []int64
	// Precision is T×R×K×A×M (10×101×K×4×3) and Recall T×K×A×M, row-major
	// as numpy holds them; -1 marks settings without ground truth.
	Precision, Recall []float64
}

// PrecisionAt returns precision[t, r, k, a, m].
func (e *Eval) PrecisionAt(t, r, k, a, m int) float64 {
	return e.Precision[(((t*cocoR+r)*len(e.CategoryIDs)+k)*cocoA+a)*cocoM+m]
}

// RecallAt returns recall[t, k, a, m].
func (e *Eval) RecallAt(t, k, a, m int) float64 {
	return e.Recall[((t*len(e.CategoryIDs)+k)*cocoA+a)*cocoM+m]
}

// Evaluate scores bbox detections against gt exactly as pycocotools'
// COCOeval(gt, gt.loadRes(dets), "bbox") with params.imgIds =
// cfg.ImageIDs, then evaluate(), accumulate() and summarize(). Detection i
// gets id i+1 as in loadRes. A detection whose image is not in gt or whose
// category is not one of gt's categories is an error. Categories are
// evaluated in parallel; dets and gt are only read.
func Evaluate(gt *cocojson.GroundTruth, dets []Detection, cfg EvalConfig) (*Eval, error) {
	imgIDs := cfg.ImageIDs
	if imgIDs == nil {
		imgIDs = make([]int64, len(gt.Images))
		for i, im := range gt.Images {
			imgIDs[i] = im.ID
		}
	}
	imgIDs = sortedUnique(imgIDs)
	catIDs := make([]int64, len(gt.Categories))
	for i, c := range gt.Categories {
		catIDs[i] = c.ID
	}
	catIDs = sortedUnique(catIDs)
	K := len(catIDs)

	known := make([]int64, len(gt.Images))
	for i, im := range gt.Images {
		known[i] = im.ID
	}
	knownImg := newIDIndex(known)
	rankOf := newIDIndex(imgIDs)
	catOf := newIDIndex(catIDs)

	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, workers)

	// Keys of every detection and ground truth box: evaluated-image rank
	// (-1: not evaluated) and category index.
	detRank := make([]int32, len(dets))
	detCat := make([]int32, len(dets))
	if err := keyDetections(dets, knownImg, rankOf, catOf, detRank, detCat, workers); err != nil {
		return nil, err
	}
	gtRank := make([]int32, len(gt.Annotations))
	gtCat := make([]int32, len(gt.Annotations))
	for i := range gt.Annotations {
		a := &gt.Annotations[i]
		gtRank[i], gtCat[i] = -1, -1
		if r, ok := rankOf.get(a.ImageID); ok {
			if c, ok := catOf.get(a.CategoryID); ok {
				gtRank[i], gtCat[i] = r, c
			}
		}
	}
	detPerm, detOff := bucketByCat(detRank, detCat, K)
	gtPerm, gtOff := bucketByCat(gtRank, gtCat, K)

	ev := &Eval{
		CategoryIDs: catIDs,
		ImageIDs:    imgIDs,
		Precision:   make([]float64, cocoT*cocoR*K*cocoA*cocoM),
		Recall:      make([]float64, cocoT*K*cocoA*cocoM),
	}
	for i := range ev.Precision {
		ev.Precision[i] = -1
	}
	for i := range ev.Recall {
		ev.Recall[i] = -1
	}

	// Largest categories first, so that no worker is left with a big one
	// at the end.
	order := make([]int32, K)
	for k := range order {
		order[k] = int32(k)
	}
	work := func(k int32) int { return detOff[k+1] - detOff[k] + gtOff[k+1] - gtOff[k] }
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(work(b), work(a)) })

	workers = min(workers, K)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &cocoWorker{
				gt: gt, dets: dets, detRank: detRank, gtRank: gtRank, ev: ev, K: K,
			}
			for {
				n := next.Add(1) - 1
				if n >= int64(K) {
					return
				}
				k := int(order[n])
				d, g := detPerm[detOff[k]:detOff[k+1]], gtPerm[gtOff[k]:gtOff[k+1]]
				sortByRank(d, detRank)
				sortByRank(g, gtRank)
				w.category(k, d, g)
			}
		}()
	}
	wg.Wait()
	ev.summarize()
	return ev, nil
}

// sortedUnique returns the sorted distinct values (np.unique), in a new slice.
func sortedUnique(ids []int64) []int64 {
	s := slices.Clone(ids)
	slices.Sort(s)
	return slices.Compact(s)
}

// keyDetections fills rank (evaluated-image rank, -1: not evaluated) and
// cat (category index) for every detection, in parallel chunks. It fails on
// the first detection, in input order, whose image or category gt lacks.
func keyDetections(dets []Detection, knownImg, rankOf, catOf *idIndex, rank, cat []int32, workers int) error {
	chunk := max(1<<16, (len(dets)+workers-1)/workers)
	n := (len(dets) + chunk - 1) / chunk
	errs := make([]error, n)
	var wg sync.WaitGroup
	for c := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := c*chunk, min(len(dets), (c+1)*chunk)
			lastImg, lastRank, lastKnown := int64(0), int32(-1), false
			for i := lo; i < hi; i++ {
				d := &dets[i]
				if i == lo || d.ImageID != lastImg {
					lastImg = d.ImageID
					_, lastKnown = knownImg.get(d.ImageID)
					lastRank = -1
					if r, ok := rankOf.get(d.ImageID); ok {
						lastRank = r
					}
				}
				if !lastKnown {
					errs[c] = fmt.Errorf("accuracy: %w: detection %d: image_id %d is not an image of the annotation file", ErrMalformed, i, d.ImageID)
					return
				}
				k, ok := catOf.get(d.CategoryID)
				if !ok {
					errs[c] = fmt.Errorf("accuracy: %w: detection %d (image_id %d): category_id %d is not a category of the annotation file", ErrMalformed, i, d.ImageID, d.CategoryID)
					return
				}
				rank[i], cat[i] = lastRank, k
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// bucketByCat returns the indices with rank >= 0 grouped by category, in
// input order within a category (a stable counting sort), and the offset
// of each category's run (K+1 values).
func bucketByCat(rank, cat []int32, K int) (perm []int32, off []int) {
	off = make([]int, K+1)
	for i, r := range rank {
		if r >= 0 {
			off[cat[i]+1]++
		}
	}
	for k := 1; k <= K; k++ {
		off[k] += off[k-1]
	}
	pos := slices.Clone(off[:K])
	perm = make([]int32, off[K])
	for i, r := range rank {
		if r >= 0 {
			c := cat[i]
			perm[pos[c]] = int32(i)
			pos[c]++
		}
	}
	return perm, off
}

// sortByRank orders one category's indices by image rank, keeping input
// order within an image; input already in image order is left as it is.
func sortByRank(idx, rank []int32) {
	byRank := func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) }
	if slices.IsSortedFunc(idx, byRank) {
		return
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := byRank(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}

// idIndex maps ids to their position in a list: a table when the ids are
// dense, a map otherwise. It is read-only after newIDIndex.
type idIndex struct {
	lo     int64
	dense  []int32 // position+1; 0: absent
	sparse map[int64]int32
}

func newIDIndex(ids []int64) *idIndex {
	x := &idIndex{}
	if len(ids) == 0 {
		return x
	}
	lo, hi := slices.Min(ids), slices.Max(ids)
	if span := uint64(hi - lo); hi >= lo && span < uint64(4*len(ids)+1024) {
		x.lo, x.dense = lo, make([]int32, span+1)
		for i, id := range ids {
			if x.dense[id-lo] == 0 {
				x.dense[id-lo] = int32(i) + 1
			}
		}
		return x
	}
	x.sparse = make(map[int64]int32, len(ids))
	for i, id := range ids {
		if _, dup := x.sparse[id]; !dup {
			x.sparse[id] = int32(i)
		}
	}
	return x
}

func (x *idIndex) get(id int64) (int32, bool) {
	if x.dense != nil {
		o := uint64(id - x.lo)
		if id < x.lo || o >= uint64(len(x.dense)) || x.dense[o] == 0 {
			return 0, false
		}
		return x.dense[o] - 1, true
	}
	v, ok := x.sparse[id]
	return v, ok
}
