package imagenet

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// SynthConfig describes a synthetic data set.
type SynthConfig struct {
	// N is the number of images (1..50000).
	N int
	// Seed selects the content; the same N and Seed always give the same
	// bytes.
	Seed uint64
	// Quality is the JPEG quality, 1..100 (0 means 90).
	Quality int
}

// synthSizes are the image sizes cycled through: typical ImageNet
// landscape and portrait shapes, a square, one smaller than 256 (enlarged
// by the reference resize), one large, and one whose short side is exactly
// 256 (not resized).
var synthSizes = [][2]int{
	{500, 375}, {375, 500}, {500, 333}, {333, 500}, {500, 500},
	{640, 480}, {200, 150}, {1024, 683}, {256, 341}, {300, 224},
}

// SynthName returns the file name of synthetic image i (0-based), the
// official validation naming: ILSVRC2012_val_00000001.JPEG for i = 0.
func SynthName(i int) string { return fmt.Sprintf("ILSVRC2012_val_%08d.JPEG", i+1) }

// Synth writes cfg.N generated JPEG images of varied sizes into dir,
// flat and named like the official validation files, and a val_map.txt
// listing them with labels in 0..999, in the layout Load reads. dir is
// created if needed; existing files of the same names are replaced.
func Synth(dir string, cfg SynthConfig) error {
	if cfg.N < 1 || cfg.N > Size {
		return fmt.Errorf("imagenet: synth: %d images asked, want 1..%d", cfg.N, Size)
	}
	q := cfg.Quality
	if q == 0 {
		q = 90
	}
	if q < 1 || q > 100 {
		return fmt.Errorf("imagenet: synth: JPEG quality %d, want 1..100", q)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("imagenet: synth: %w", err)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x696d6167656e6574)) // "imagenet"
	var list bytes.Buffer
	var buf bytes.Buffer
	for i := 0; i < cfg.N; i++ {
		sz := synthSizes[i%len(synthSizes)]
		label := rng.IntN(1000)
		img := synthImage(sz[0], sz[1], rng)
		buf.Reset()
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
			return fmt.Errorf("imagenet: synth: encode: %w", err)
		}
		name := SynthName(i)
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("imagenet: synth: %w", err)
		}
		fmt.Fprintf(&list, "%s %d\n", name, label)
	}
	path := filepath.Join(dir, ValMapName)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("imagenet: synth: %w", err)
	}
	w := bufio.NewWriter(f)
	w.Write(list.Bytes())
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("imagenet: synth: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("imagenet: synth: %w", err)
	}
	return nil
}

// synthImage draws a smooth colour field with a few discs and some noise,
// so that resampling has texture and edges to work on.
func synthImage(w, h int, rng *rand.Rand) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var fx, fy, ph [3]float64
	for c := range 3 {
		fx[c] = (rng.Float64()*6 + 0.5) * 2 * math.Pi / float64(w)
		fy[c] = (rng.Float64()*6 + 0.5) * 2 * math.Pi / float64(h)
		ph[c] = rng.Float64() * 2 * math.Pi
	}
	type disc struct {
		x, y, r2 float64
		c        [3]float64
	}
	discs := make([]disc, 3+rng.IntN(5))
	for k := range discs {
		r := (0.05 + 0.2*rng.Float64()) * float64(min(w, h))
		discs[k] = disc{x: rng.Float64() * float64(w), y: rng.Float64() * float64(h), r2: r * r,
			c: [3]float64{rng.Float64() * 255, rng.Float64() * 255, rng.Float64() * 255}}
	}
	for y := range h {
		for x := range w {
			var v [3]float64
			for c := range 3 {
				v[c] = 128 + 100*math.Sin(fx[c]*float64(x)+ph[c])*math.Cos(fy[c]*float64(y)+ph[c])
			}
			for _, d := range discs {
				dx, dy := float64(x)-d.x, float64(y)-d.y
				if dx*dx+dy*dy < d.r2 {
					v = d.c
				}
			}
			n := rng.Float64()*16 - 8
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
