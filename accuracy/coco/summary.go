package coco

import (
	"fmt"
	"strings"
)

// cocoStat is one line of COCOeval.summarize().
type cocoStat struct {
	ap      bool
	iouThr  float64 // 0: all thresholds
	area    int     // index into cocoAreaLbl
	maxDets int
}

// cocoStats lists the 12 _summarizeDets lines in order.
var cocoStats = [12]cocoStat{
	{true, 0, 0, 100}, {true, .5, 0, 100}, {true, .75, 0, 100},
	{true, 0, 1, 100}, {true, 0, 2, 100}, {true, 0, 3, 100},
	{false, 0, 0, 1}, {false, 0, 0, 10}, {false, 0, 0, 100},
	{false, 0, 1, 100}, {false, 0, 2, 100}, {false, 0, 3, 100},
}

// summarize fills Stats: the mean of the selected precision (t, r, k) or
// recall (t, k) entries above -1, summed in numpy's order, or -1.
func (e *Eval) summarize() {
	K := len(e.CategoryIDs)
	var vals []float64
	for i, st := range cocoStats {
		vals = vals[:0]
		m := -1
		for j, md := range cocoMaxDets {
			if md == st.maxDets {
				m = j
			}
		}
		for t, thr := range cocoIoUThrs {
			if st.iouThr != 0 && thr != st.iouThr {
				continue
			}
			if st.ap {
				for r := range cocoR {
					for k := range K {
						if v := e.PrecisionAt(t, r, k, st.area, m); v > -1 {
							vals = append(vals, v)
						}
					}
				}
			} else {
				for k := range K {
					if v := e.RecallAt(t, k, st.area, m); v > -1 {
						vals = append(vals, v)
					}
				}
			}
		}
		e.Stats[i] = -1
		if len(vals) > 0 {
			e.Stats[i] = numpySum(vals) / float64(len(vals))
		}
	}
}

// Summary returns the 12 lines that COCOeval.summarize() prints, each
// ending in a newline.
func (e *Eval) Summary() string {
	var b strings.Builder
	for i, st := range cocoStats {
		title, typ := "Average Precision", "(AP)"
		if !st.ap {
			title, typ = "Average Recall", "(AR)"
		}
		iou := fmt.Sprintf("%0.2f:%0.2f", cocoIoUThrs[0], cocoIoUThrs[cocoT-1])
		if st.iouThr != 0 {
			iou = fmt.Sprintf("%0.2f", st.iouThr)
		}
		fmt.Fprintf(&b, " %-18s %s @[ IoU=%-9s | area=%6s | maxDets=%3d ] = %0.3f\n",
			title, typ, iou, cocoAreaLbl[st.area], st.maxDets, e.Stats[i])
	}
	return b.String()
}
