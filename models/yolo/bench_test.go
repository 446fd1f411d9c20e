package yolo

import "testing"

// BenchmarkNMS times NMS with the reference settings on the golden raw
// prediction (all 8400 anchors candidates, 300 kept).
func BenchmarkNMS(b *testing.B) {
	pred := rawPrediction(1, NumClasses, NumAnchors, 60)
	var s NMSScratch
	dst := make([]Detection, 0, 300)
	for b.Loop() {
		var err error
		if dst, err = NMS(dst[:0], pred, NumClasses, NumAnchors, ReferenceNMS, &s); err != nil {
			b.Fatal(err)
		}
	}
}
