package auc

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/internal/pynum"
)

// ErrOneClass is returned when every label has the same value:
// sklearn.metrics.roc_auc_score raises ValueError("Only one class present
// in y_true. ROC AUC score is not defined in that case.").
var ErrOneClass = errors.New("only one class present in y_true: ROC AUC score is not defined in that case")

// Builder collects (score, label) pairs for ROCAUC with 4 bytes per
// pair: each score is kept as an order-preserving uint32 key in the bucket
// of its label. The zero value is ready to use; it is not safe for
// concurrent use.
type Builder struct {
	labels [2]float32
	keys   [2][]uint32
	nlab   int
	err    error
}

// Grow reserves room for n more pairs split evenly, a hint only.
func (b *Builder) Grow(n int) {
	for i := range b.keys {
		b.keys[i] = slices.Grow(b.keys[i], n/2)
	}
}

// Add records one pair. Errors (a non-finite score, a label that is not a
// whole number, a third distinct label) are kept and returned by AUC, as
// sklearn validates the whole input before scoring.
func (b *Builder) Add(score, label float32) {
	if b.err != nil {
		return
	}
	if math.IsNaN(float64(score)) || math.IsInf(float64(score), 0) {
		b.err = fmt.Errorf("accuracy: auc: score %v of pair %d is not finite (sklearn: \"Input contains NaN\" / infinity)", score, b.Len())
		return
	}
	l := label + 0 // -0 labels are 0
	c := -1
	for i := range b.nlab {
		if b.labels[i] == l {
			c = i
			break
		}
	}
	if c < 0 {
		if math.IsNaN(float64(l)) || float32(math.Trunc(float64(l))) != l {
			b.err = fmt.Errorf("accuracy: auc: label %v of pair %d is not a class (sklearn: continuous targets are not supported)", label, b.Len())
			return
		}
		if b.nlab == 2 {
			b.err = fmt.Errorf("accuracy: auc: label %v of pair %d is a third class besides %v and %v (sklearn: multiclass y_true needs multi_class)", label, b.Len(), b.labels[0], b.labels[1])
			return
		}
		c = b.nlab
		b.labels[c] = l
		b.nlab++
	}
	b.keys[c] = append(b.keys[c], floatKey(score))
}

// Len is the number of pairs added.
func (b *Builder) Len() int { return len(b.keys[0]) + len(b.keys[1]) }

// floatKey maps a float32 to a uint32 whose unsigned order is the float
// order; -0 and +0 share a key, as numpy's diff treats them as equal.
func floatKey(f float32) uint32 {
	u := math.Float32bits(f)
	if u == 0x80000000 {
		u = 0
	}
	if u&0x80000000 != 0 {
		return ^u
	}
	return u | 0x80000000
}

// AUC returns the area under the ROC curve of the pairs added, computed as
// sklearn.metrics.roc_auc_score (binary, no sample weights) computes it:
// the larger label value is the positive class; thresholds are the distinct
// scores in decreasing order (equal scores form one threshold); the points
// of the curve whose neighbours make them collinear are dropped
// (drop_intermediate); fpr and tpr are the cumulative counts divided by
// the totals; the area is numpy.trapz, i.e. the terms Δfpr·(tpr+tpr')/2
// summed with numpy's pairwise summation. It sorts the stored keys in
// place; pairs may not be added afterwards.
func (b *Builder) AUC() (float64, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.Len() == 0 {
		return 0, fmt.Errorf("accuracy: auc: no pairs to score")
	}
	if b.nlab < 2 {
		return 0, fmt.Errorf("accuracy: auc: %w (every label is %v)", ErrOneClass, b.labels[0])
	}
	pos, neg := b.keys[0], b.keys[1]
	if b.labels[1] > b.labels[0] {
		pos, neg = neg, pos
	}
	var wg sync.WaitGroup
	wg.Go(func() { radixSort32(pos) })
	radixSort32(neg)
	wg.Wait()
	return aucSorted(pos, neg), nil
}

// ROCAUC is sklearn.metrics.roc_auc_score(labels, scores) for two classes;
// see Builder.AUC.
func ROCAUC(scores, labels []float32) (float64, error) {
	if len(scores) != len(labels) {
		return 0, fmt.Errorf("accuracy: auc: %d scores for %d labels", len(scores), len(labels))
	}
	var b Builder
	for i := range scores {
		b.Add(scores[i], labels[i])
	}
	return b.AUC()
}

// aucSorted integrates the ROC curve of ascending positive and negative
// score keys.
func aucSorted(pos, neg []uint32) float64 {
	P, N := float64(len(pos)), float64(len(neg))
	// The curve as roc_curve returns it: (0,0), then the kept threshold
	// points. terms holds trapz's Δx·(y+y')/2 for each segment.
	terms := make([]float64, 0, 1024)
	prevX, prevY := 0.0, 0.0 // last point emitted (fpr, tpr)
	emit := func(fp, tp int) {
		x, y := float64(fp)/N, float64(tp)/P
		terms = append(terms, (x-prevX)*(y+prevY)/2.0)
		prevX, prevY = x, y
	}
	// Raw threshold points stream in; a point is kept if it is the first
	// or the last, or if the second difference of fps or of tps at it is
	// non-zero (sklearn's optimal_idxs).
	var win [3][2]int // last raw points (fp, tp), win[2] newest
	nraw := 0
	push := func(fp, tp int) {
		win[0], win[1], win[2] = win[1], win[2], [2]int{fp, tp}
		nraw++
		switch {
		case nraw == 1:
			emit(fp, tp)
		case nraw >= 3:
			a, m, c := win[0], win[1], win[2]
			if c[0]-2*m[0]+a[0] != 0 || c[1]-2*m[1]+a[1] != 0 {
				emit(m[0], m[1])
			}
		}
	}
	i, j := len(pos)-1, len(neg)-1
	tp, fp := 0, 0
	for i >= 0 || j >= 0 {
		var v uint32
		switch {
		case i < 0:
			v = neg[j]
		case j < 0:
			v = pos[i]
		default:
			v = max(pos[i], neg[j])
		}
		for i >= 0 && pos[i] == v {
			tp++
			i--
		}
		for j >= 0 && neg[j] == v {
			fp++
			j--
		}
		push(fp, tp)
	}
	if nraw >= 2 {
		emit(win[2][0], win[2][1])
	}
	return pynum.Sum(terms)
}

// radixSort32 sorts a in ascending order: LSD radix sort with 11-bit
// digits, skipping a pass whose digit is the same for every key.
func radixSort32(a []uint32) {
	if len(a) < 256 {
		slices.Sort(a)
		return
	}
	const bits, size = 11, 1 << 11
	var counts [3][size]int
	for _, v := range a {
		counts[0][v&(size-1)]++
		counts[1][(v>>bits)&(size-1)]++
		counts[2][v>>(2*bits)]++
	}
	buf := make([]uint32, len(a))
	src, dst := a, buf
	for p := range 3 {
		c := &counts[p]
		shift := uint(p * bits)
		if c[(src[0]>>shift)&(size-1)] == len(a) {
			continue // every key has this digit
		}
		sum := 0
		for d := range c {
			c[d], sum = sum, sum+c[d]
		}
		for _, v := range src {
			d := (v >> shift) & (size - 1)
			dst[c[d]] = v
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// DLRMResult is what accuracy-dlrm.py prints.
type DLRMResult struct {
	AUC     float64 // roc_auc_score over every row, in [0, 1]
	Good    int     // rows whose prediction rounded (half to even) equals the label
	Total   int     // rows
	Queries int     // distinct qsl_idx
	Dupes   int     // repeated entries skipped
}

// Accuracy is 100·good/total as the script computes it.
func (r DLRMResult) Accuracy() float64 {
	if r.Total == 0 {
		return 0
	}
	return 100.0 * (float64(r.Good) / float64(r.Total))
}

// String is the script's line, e.g. "AUC=80.313%, accuracy=96.636%,
// good=..., total=..., queries=..."; the checker's AUC pattern reads it.
func (r DLRMResult) String() string {
	return fmt.Sprintf("AUC=%.3f%%, accuracy=%.3f%%, good=%d, total=%d, queries=%d", 100.0*r.AUC, r.Accuracy(), r.Good, r.Total, r.Queries)
}

// roundEqual is numpy's float32 result.round() == target.
func roundEqual(p, t float32) bool {
	return float32(math.RoundToEven(float64(p))) == t
}

// DLRMPairs decodes one DLRMv2 response: rows of (prediction, label)
// decoded as d (float32 in the reference), as accuracy-dlrm.py reshapes
// it to (rows, 2). It calls fn for each row.
func DLRMPairs(data []byte, d accuracy.DType, fn func(pred, label float32)) error {
	sz := d.Size()
	if len(data)%(2*sz) != 0 {
		return fmt.Errorf("accuracy: %w: %d bytes are not whole (prediction, label) pairs of %s", accuracy.ErrLog, len(data), d)
	}
	if d == accuracy.Float32 {
		for k := 0; k < len(data); k += 8 {
			p := math.Float32frombits(uint32(data[k]) | uint32(data[k+1])<<8 | uint32(data[k+2])<<16 | uint32(data[k+3])<<24)
			t := math.Float32frombits(uint32(data[k+4]) | uint32(data[k+5])<<8 | uint32(data[k+6])<<16 | uint32(data[k+7])<<24)
			fn(p, t)
		}
		return nil
	}
	v, err := accuracy.Decode(data, d)
	if err != nil {
		return err
	}
	for k := 0; k < len(v); k += 2 {
		fn(float32(v[k]), float32(v[k+1]))
	}
	return nil
}

// ScoreDLRM scores a DLRMv2 accuracy log whose responses hold (prediction,
// label) pairs, as accuracy-dlrm.py without --day-23-file: the first entry
// of each qsl_idx, every row counted; maxIdx, when positive, is the number
// of aggregated samples (330067 for the full data set) and a larger
// qsl_idx is an error.
func ScoreDLRM(logPath string, d accuracy.DType, maxIdx int) (DLRMResult, error) {
	var r DLRMResult
	var b Builder
	dupes, err := accuracy.ReadUnique(logPath, func(e accuracy.Entry) error {
		if maxIdx > 0 && e.QSLIdx >= uint64(maxIdx) {
			return fmt.Errorf("accuracy: %s: seq_id %d: qsl_idx %d is outside the data set of %d samples", logPath, e.SeqID, e.QSLIdx, maxIdx)
		}
		r.Queries++
		err := DLRMPairs(e.Data, d, func(p, t float32) {
			r.Total++
			if roundEqual(p, t) {
				r.Good++
			}
			b.Add(p, t)
		})
		if err != nil {
			return fmt.Errorf("accuracy: %s: seq_id %d (qsl_idx %d): %w", logPath, e.SeqID, e.QSLIdx, err)
		}
		return nil
	})
	r.Dupes = dupes
	if err != nil {
		return r, err
	}
	if r.AUC, err = b.AUC(); err != nil {
		return r, fmt.Errorf("%w (%s)", err, logPath)
	}
	return r, nil
}

// ScoreDLRMPairs scores in-memory predictions and labels as ScoreDLRM
// does (queries is reported as given).
func ScoreDLRMPairs(preds, labels []float32, queries int) (DLRMResult, error) {
	if len(preds) != len(labels) {
		return DLRMResult{}, fmt.Errorf("accuracy: auc: %d predictions for %d labels", len(preds), len(labels))
	}
	r := DLRMResult{Total: len(preds), Queries: queries}
	var b Builder
	b.Grow(len(preds))
	for i, p := range preds {
		if roundEqual(p, labels[i]) {
			r.Good++
		}
		b.Add(p, labels[i])
	}
	var err error
	r.AUC, err = b.AUC()
	return r, err
}
