package retinanet

import (
	"fmt"
	"testing"
)

func TestAnchors(t *testing.T) {
	total := 0
	for l := range levels {
		total += len(anchors(l)) / 4
	}
	if total != 120087 {
		t.Errorf("%d anchors, want 120087", total)
	}
	// P3, location (0, 0): ratio 0.5 (w = s·√2, h = s/√2) for s = 32,
	// 40, 50, then ratio 1, then 2; values rounded half to even.
	want := []float32{-23, -11, 23, 11, -28, -14, 28, 14, -35, -18, 35, 18, -16, -16, 16, 16, -20, -20, 20, 20, -25, -25, 25, 25, -11, -23, 11, 23, -14, -28, 14, 28, -18, -35, 18, 35}
	if got := anchors(0)[:36]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("P3 cell anchors %v, want %v", got, want)
	}
	// P6 has stride 800 // 13 = 61: location (y 1, x 2) shifts by (122, 61).
	a := anchors(3)[4*(numAnchors*(13+2)+3):][:4] // ratio 1, size 256
	if fmt.Sprint(a) != fmt.Sprint([]float32{122 - 128, 61 - 128, 122 + 128, 61 + 128}) {
		t.Errorf("P6 anchor %v", a)
	}
}
