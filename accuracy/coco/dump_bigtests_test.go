//go:build bigtests

// Opt-in tests on inputs too large to commit or to make in every run:
// `go test -tags bigtests` compiles them, and each reads the environment
// variables its comment names. They are left out of `make test`, so that
// it runs without skips.

package coco

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestCOCOSynthDump writes a synthetic problem for timing (and checking)
// pycocotools on it, when COCO_SYNTH_DUMP names a folder:
// gt.json, dets.json (loadRes input) and go_stats.json.
// COCO_SYNTH_IMAGES sets the image count (default 1000).
func TestCOCOSynthDump(t *testing.T) {
	dir := os.Getenv("COCO_SYNTH_DUMP")
	if dir == "" {
		t.Skip("COCO_SYNTH_DUMP not set")
	}
	n := 1000
	if s := os.Getenv("COCO_SYNTH_IMAGES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	gt, dets := synthCOCO(n, 300, 1)
	type jimg struct {
		ID     int64   `json:"id"`
		Width  float64 `json:"width"`
		Height float64 `json:"height"`
	}
	type jann struct {
		ID         int64      `json:"id"`
		ImageID    int64      `json:"image_id"`
		CategoryID int64      `json:"category_id"`
		BBox       [4]float64 `json:"bbox"`
		Area       float64    `json:"area"`
		IsCrowd    int        `json:"iscrowd"`
	}
	type jcat struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	var g struct {
		Images      []jimg `json:"images"`
		Annotations []jann `json:"annotations"`
		Categories  []jcat `json:"categories"`
	}
	for _, im := range gt.Images {
		g.Images = append(g.Images, jimg{im.ID, im.Width, im.Height})
	}
	for _, a := range gt.Annotations {
		g.Annotations = append(g.Annotations, jann{a.ID, a.ImageID, a.CategoryID, a.BBox, a.Area, int(a.IsCrowd)})
	}
	for _, c := range gt.Categories {
		g.Categories = append(g.Categories, jcat{c.ID, c.Name})
	}
	jd := make([]cocoJSONDet, len(dets))
	for i, d := range dets {
		jd[i] = cocoJSONDet{d.ImageID, d.CategoryID, d.BBox, d.Score}
	}
	ev, err := Evaluate(gt, dets, EvalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	stats := make([]string, 12)
	for i, s := range ev.Stats {
		stats[i] = strconv.FormatFloat(s, 'g', -1, 64)
	}
	for name, v := range map[string]any{"gt.json": g, "dets.json": jd, "go_stats.json": stats} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
