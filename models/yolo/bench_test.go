package yolo

import "testing"

// BenchmarkNMS times NMS with the reference settings on the golden raw
// prediction (all 8400 anchors candidates, 300 kept).
func BenchmarkNMS(b *testing.B) {
	pred := rawPrediction(1, numClasses, numAnchors, 60)
	var s nmsScratch
	dst := make([]detection, 0, 300)
	for b.Loop() {
		var err error
		if dst, err = nms(dst[:0], pred, numClasses, numAnchors, referenceNMS, &s); err != nil {
			b.Fatal(err)
		}
	}
}
