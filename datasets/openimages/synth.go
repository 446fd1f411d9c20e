package openimages

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// SynthConfig describes a synthetic data set.
type SynthConfig struct {
	// N is the number of images (1..Size).
	N int
	// Seed selects the content; the same N and Seed give the same bytes.
	Seed uint64
}

// synthSizes are the image sizes cycled through: OpenImages' usual
// landscape and portrait shapes, a square of the network's size (not
// resized), a small and a large one.
var synthSizes = [][2]int{
	{1024, 768}, {683, 1024}, {800, 800}, {300, 200}, {1024, 576}, {640, 480}, {768, 1024}, {1280, 960},
}

// synthBox is one drawn object: its pixel rectangle and class.
type synthBox struct {
	x0, y0, x1, y1 int
	cat            int
	c              [3]uint8
}

// Synth writes cfg.N generated JPEG images with coloured boxes as objects
// under dir/validation/data and their annotations, with category ids of
// the 264 MLPerf classes, in dir/annotations/openimages-mlperf.json,
// laid out as export_to_coco (tools/openimages.py of mlcommons/inference)
// writes it: info, licenses, all categories, images sorted by ImageID
// with ids 1..N, annotations with pixel [x y w h] boxes, area, iscrowd and
// the OpenImages flags.
func Synth(dir string, cfg SynthConfig) error {
	if cfg.N < 1 || cfg.N > Size {
		return fmt.Errorf("openimages: synth: %d images asked, want 1..%d", cfg.N, Size)
	}
	imgDir := filepath.Join(dir, filepath.FromSlash(ImagesPath))
	if err := os.MkdirAll(imgDir, 0o755); err != nil {
		return fmt.Errorf("openimages: synth: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(AnnotationsPath))), 0o755); err != nil {
		return fmt.Errorf("openimages: synth: %w", err)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6f70656e696d67)) // "openimg"
	type entry struct {
		id    string
		w, h  int
		boxes []synthBox
	}
	entries := make([]entry, cfg.N)
	var buf bytes.Buffer
	for i := range entries {
		sz := synthSizes[i%len(synthSizes)]
		e := entry{id: fmt.Sprintf("%016x", rng.Uint64()), w: sz[0], h: sz[1]}
		for range 1 + rng.IntN(5) {
			bw := int(float64(e.w) * (0.1 + 0.5*rng.Float64()))
			bh := int(float64(e.h) * (0.1 + 0.5*rng.Float64()))
			x0, y0 := rng.IntN(e.w-bw), rng.IntN(e.h-bh)
			e.boxes = append(e.boxes, synthBox{x0: x0, y0: y0, x1: x0 + bw, y1: y0 + bh, cat: rng.IntN(NumClasses),
				c: [3]uint8{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256))}})
		}
		buf.Reset()
		if err := jpeg.Encode(&buf, synthImage(e.w, e.h, e.boxes, rng), &jpeg.Options{Quality: 90}); err != nil {
			return fmt.Errorf("openimages: synth: encode: %w", err)
		}
		if err := os.WriteFile(filepath.Join(imgDir, e.id+".jpg"), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("openimages: synth: %w", err)
		}
		entries[i] = e
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if a.id < b.id {
			return -1
		}
		if a.id > b.id {
			return 1
		}
		return 0
	})
	var js bytes.Buffer
	js.WriteString(`{"info": {"dataset": "openimages_mlperf", "version": "v6"}, "licenses": [], "categories": [`)
	for i, n := range ClassNames {
		if i > 0 {
			js.WriteString(", ")
		}
		fmt.Fprintf(&js, `{"id": %d, "name": %s, "supercategory": null}`, i, strconv.Quote(n))
	}
	js.WriteString(`], "images": [`)
	for i, e := range entries {
		if i > 0 {
			js.WriteString(", ")
		}
		fmt.Fprintf(&js, `{"id": %d, "file_name": "%s.jpg", "height": %d, "width": %d, "license": null, "coco_url": null}`, i+1, e.id, e.h, e.w)
	}
	js.WriteString(`], "annotations": [`)
	n := 0
	for i, e := range entries {
		for _, b := range e.boxes {
			if n > 0 {
				js.WriteString(", ")
			}
			n++
			// Boxes as the normalised CSV coordinates times the size,
			// as export_to_coco computes them.
			xmin, ymin := float64(b.x0)/float64(e.w), float64(b.y0)/float64(e.h)
			xmax, ymax := float64(b.x1)/float64(e.w), float64(b.y1)/float64(e.h)
			bb := [4]float64{xmin * float64(e.w), ymin * float64(e.h), (xmax - xmin) * float64(e.w), (ymax - ymin) * float64(e.h)}
			fmt.Fprintf(&js, `{"id": %d, "image_id": %d, "category_id": %d, "bbox": [%s, %s, %s, %s], "area": %s, "iscrowd": 0, "IsOccluded": 0, "IsInside": 0, "IsDepiction": 0, "IsTruncated": 0, "IsGroupOf": 0}`,
				n, i+1, b.cat, pyFloat(bb[0]), pyFloat(bb[1]), pyFloat(bb[2]), pyFloat(bb[3]), pyFloat(bb[2]*bb[3]))
		}
	}
	js.WriteString("]}")
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(AnnotationsPath)), js.Bytes(), 0o644); err != nil {
		return fmt.Errorf("openimages: synth: %w", err)
	}
	return nil
}

// pyFloat formats v as Python's repr(float) does for the values written
// here (shortest round-trip digits, ".0" on integral values).
func pyFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if math.Abs(v) < 1e16 && math.Abs(v) >= 1e-4 || v == 0 {
		s = strconv.FormatFloat(v, 'f', -1, 64)
		if v == math.Trunc(v) {
			s += ".0"
		}
	}
	return s
}

// synthImage draws a smooth background with the boxes as flat, slightly
// noisy rectangles.
func synthImage(w, h int, boxes []synthBox, rng *rand.Rand) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var fx, fy [3]float64
	for c := range 3 {
		fx[c] = (rng.Float64()*4 + 0.5) * 2 * math.Pi / float64(w)
		fy[c] = (rng.Float64()*4 + 0.5) * 2 * math.Pi / float64(h)
	}
	for y := range h {
		for x := range w {
			var v [3]float64
			for c := range 3 {
				v[c] = 128 + 90*math.Sin(fx[c]*float64(x))*math.Cos(fy[c]*float64(y))
			}
			for _, b := range boxes {
				if x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1 {
					v = [3]float64{float64(b.c[0]), float64(b.c[1]), float64(b.c[2])}
				}
			}
			n := rng.Float64()*12 - 6
			img.SetRGBA(x, y, color.RGBA{clamp8(v[0] + n), clamp8(v[1] + n), clamp8(v[2] + n), 255})
		}
	}
	return img
}

func clamp8(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}
