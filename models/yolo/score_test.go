package yolo

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy/coco"
	"github.com/mlperf-go/inference/datasets/coco2017"
)

// The responses, as accuracy-coco.py decodes them (the computation of
// accuracy-openimages.py, which coco.ScoreOpenImages reproduces), score
// a detector that returns exactly the ground truth at 100% mAP on a
// synthetic data set, and one that misses every other image at the share
// of images it found; the class map sends each COCO category back to its
// id. So encoding (y/h, x/w order, COCO ids) and decoding agree.
func TestResponsesScoreAsAccuracyCOCO(t *testing.T) {
	dir := t.TempDir()
	if err := coco2017.Synth(dir, coco2017.SynthConfig{N: 8, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	ds, err := coco2017.Load(dir, coco2017.Options{})
	if err != nil {
		t.Fatal(err)
	}
	classOf := map[int64]int{}
	for k, id := range coco80To91 {
		classOf[int64(id)] = k
	}
	for _, c := range coco2017.Categories {
		if _, ok := classOf[int64(c.ID)]; !ok {
			t.Fatalf("COCO category %d (%s) has no class", c.ID, c.Name)
		}
	}
	write := func(name string, keep func(i int) bool) string {
		var b strings.Builder
		b.WriteString("[\n")
		for i, im := range ds.GT.Images {
			var dets []detection
			if keep(i) {
				for _, a := range ds.GT.Annotations {
					if a.ImageID == im.ID {
						bb := a.BBox
						dets = append(dets, detection{Box: [4]float32{float32(bb[0]), float32(bb[1]), float32(bb[0] + bb[2]), float32(bb[1] + bb[3])}, Score: 0.9, Class: classOf[a.CategoryID]})
					}
				}
			}
			resp, err := encodeResponse(nil, i, dets, int(im.Width), int(im.Height))
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }`, i, i, strings.ToUpper(hex.EncodeToString(resp)))
		}
		b.WriteString("\n]\n")
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r, err := coco.ScoreOpenImages(write("all.json", func(int) bool { return true }), ds.GT, coco.OpenImagesConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if r.MAP() < 99.99 || r.NoResults != 0 || r.Mismatches != 0 || r.UnknownCategory != 0 {
		t.Errorf("perfect detector: %s, %d images without results, %d mismatches, %d unknown", r, r.NoResults, r.Mismatches, r.UnknownCategory)
	}
	half, err := coco.ScoreOpenImages(write("half.json", func(i int) bool { return i%2 == 0 }), ds.GT, coco.OpenImagesConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if half.NoResults != 4 || half.MAP() > 90 || half.MAP() < 10 {
		t.Errorf("detector finding every other image: %s with %d images without results", half, half.NoResults)
	}
}
