package kits19

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
)

// golden is one case of testdata/golden.json (testdata/make_golden.py:
// scipy 1.10 and nibabel on the raw cases in testdata/raw).
type golden struct {
	Spacing        []float64     `json:"spacing"`
	ZoomFactor     []float64     `json:"zoom_factor"`
	OriginalAffine [4][4]float64 `json:"original_affine"`
	ReshapedAffine [4][4]float64 `json:"reshaped_affine"`
	ImageShape     []int         `json:"image_shape"`
	ImageSHA256    string        `json:"image_sha256"`
	LabelSHA256    string        `json:"label_sha256"`
}

func loadGoldens(t *testing.T) map[string]golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g) < 5 {
		t.Fatalf("%d golden cases, want 5", len(g))
	}
	return g
}

func sha(v any) string {
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, v)
	return hex.EncodeToString(h.Sum(nil))
}

// TestPreprocessEqualsScipy checks every step against the reference's
// numpy/scipy computations: header spacing and affine, zoom factors, the
// resampled image (bit for bit) and label, and the final padded and
// cropped volumes (SHA-256 of their bytes).
func TestPreprocessEqualsScipy(t *testing.T) {
	for name, g := range loadGoldens(t) {
		t.Run(name, func(t *testing.T) {
			img, lbl, sp, aff, err := LoadRaw(filepath.Join("testdata/raw", name))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sp[:], g.Spacing) {
				t.Errorf("spacing %v, want %v", sp, g.Spacing)
			}
			if aff != g.OriginalAffine {
				t.Errorf("affine %v, want nibabel's %v", aff, g.OriginalAffine)
			}
			// Zoomed volumes, bit for bit.
			zs, zimg, err := preprocess.LoadNpy(filepath.Join("testdata/golden", name+"_zoomed.npy"))
			if err != nil {
				t.Fatal(err)
			}
			zl, err := preprocess.LoadNpyArray(filepath.Join("testdata/golden", name+"_zoomed_label.npy"))
			if err != nil {
				t.Fatal(err)
			}
			var factor [3]float64
			for i := range 3 {
				factor[i] = sp[i] / TargetSpacing[i]
			}
			out := ZoomShape(img.Shape, factor)
			if !slices.Equal(out[:], zs) {
				t.Fatalf("zoomed shape %v, scipy %v", out, zs)
			}
			imin := slices.Min(img.Data)
			got, err := ZoomLinear(img, out, float64(imin))
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, v := range got.Data {
				if math.Float32bits(v) != math.Float32bits(zimg[i]) {
					if bad < 5 {
						t.Errorf("zoomed image voxel %d (%v): %v, scipy %v", i, unravel3(i, out), v, zimg[i])
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d zoomed image voxels differ", bad, len(got.Data))
			}
			gl, err := ZoomNearest(lbl, out, slices.Min(lbl.Data))
			if err != nil {
				t.Fatal(err)
			}
			want := zl.Float64s()
			bad = 0
			for i, v := range gl.Data {
				if float64(v) != want[i] {
					if bad < 5 {
						t.Errorf("zoomed label voxel %d (%v): %d, scipy %v", i, unravel3(i, out), v, want[i])
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d zoomed label voxels differ", bad, len(gl.Data))
			}
			// The whole pipeline.
			c, err := Preprocess(name, img, lbl, sp, aff)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.ZoomFactor[:], g.ZoomFactor) {
				t.Errorf("zoom factor %v, want %v", c.ZoomFactor, g.ZoomFactor)
			}
			if c.ReshapedAffine != g.ReshapedAffine {
				t.Errorf("reshaped affine %v, want %v", c.ReshapedAffine, g.ReshapedAffine)
			}
			if !slices.Equal(c.ImageShape[:], g.ImageShape) {
				t.Fatalf("image shape %v, want %v", c.ImageShape, g.ImageShape)
			}
			if s := sha(c.Image.Data); s != g.ImageSHA256 {
				t.Errorf("final image SHA-256 %s, want %s", s, g.ImageSHA256)
			}
			if s := sha(c.Label.Data); s != g.LabelSHA256 {
				t.Errorf("final label SHA-256 %s, want %s", s, g.LabelSHA256)
			}
		})
	}
}

func unravel3(i int, s [3]int) [3]int {
	return [3]int{i / (s[1] * s[2]), i / s[2] % s[1], i % s[2]}
}
