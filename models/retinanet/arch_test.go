package retinanet

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"
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

// TestFullArchMatchesTorchvision: the full graph's weights, summed by
// group, equal torchvision's RetinaNet ResNeXt50-32x4d FPN with 264
// classes (testdata/param_counts.py), so a changed width, depth, group
// count or head size shows.
func TestFullArchMatchesTorchvision(t *testing.T) {
	b, err := os.ReadFile("testdata/param_counts.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]int64
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	g, err := arch(sizeFull, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, in := range g.Initializers() {
		parts := strings.SplitN(in.Name, ".", 3)
		if len(parts) < 3 || (parts[0] != "backbone" && parts[0] != "fpn" && parts[0] != "head") {
			continue // normalisation constants, anchors, post-processing scalars
		}
		key := parts[0] + "." + parts[1]
		if key == "backbone.conv1" || key == "backbone.bn1" {
			key = "backbone.stem"
		}
		got[key] += in.Elements()
	}
	if !maps.Equal(got, want) {
		t.Errorf("weights by group %v,\ntorchvision's %v", got, want)
	}
	if _, err := arch("huge", 1); err == nil || !strings.Contains(err.Error(), `unknown model size "huge"`) {
		t.Errorf("unknown size: %v", err)
	}
}
