package kits19

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/onnx"
)

// synthShapes are the raw shapes (slices, rows, columns) and spacings (mm)
// of the synthetic cases, cycled: small volumes whose preprocessed
// shapes are 128³ (padded), 192×128×128 (two windows) and 128³ again,
// with odd spacings so that every axis is resampled.
var synthShapes = []struct {
	shape   [3]int
	spacing [3]float64
}{
	{[3]int{48, 96, 96}, [3]float64{3.0, 1.0, 1.0}},
	{[3]int{100, 80, 90}, [3]float64{2.75, 1.5, 1.3}},
	{[3]int{20, 40, 40}, [3]float64{5.0, 2.0, 2.0}},
}

// SynthDefault is the number of synthetic cases when none is asked for.
const SynthDefault = 3

// SynthCaseNames are the names of n synthetic cases: case_00000,
// case_00001, ...
func SynthCaseNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("case_%05d", i)
	}
	return names
}

// Synth writes n small cases in the raw KiTS19 layout into dir
// (case_XXXXX/imaging.nii.gz, float32 Hounsfield-like values, and
// segmentation.nii.gz, uint8 with a kidney (1) holding a tumour (2)),
// with axis-swapped affines like the real data's. Same n and seed, same
// files.
func Synth(dir string, n int, seed uint64) ([]string, error) {
	if n < 1 {
		n = SynthDefault
	}
	names := SynthCaseNames(n)
	for c, name := range names {
		s := synthShapes[c%len(synthShapes)]
		rng := onnx.SplitMix64{State: onnx.StreamSeed(seed, name)}
		img, lbl := synthVolume(s.shape, s.spacing, &rng)
		sp := s.spacing
		affine := [4][4]float64{{0, 0, -sp[2], 0}, {0, -sp[1], 0, 0}, {-sp[0], 0, 0, 0}, {0, 0, 0, 1}}
		cd := filepath.Join(dir, name)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			return nil, fmt.Errorf("kits19: synth: %w", err)
		}
		if err := WriteNifti(filepath.Join(cd, ImageFile), s.shape, img, affine); err != nil {
			return nil, err
		}
		if err := WriteNifti(filepath.Join(cd, LabelFile), s.shape, lbl, affine); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// synthVolume draws a body (about 40 HU) in air (−1000 HU) with one
// kidney (about 180 HU) and a tumour inside it (about 90 HU), with noise;
// positions and radii are in mm, so the organs keep their size across
// spacings.
func synthVolume(shape [3]int, sp [3]float64, rng *onnx.SplitMix64) ([]float32, []uint8) {
	ext := [3]float64{float64(shape[0]) * sp[0], float64(shape[1]) * sp[1], float64(shape[2]) * sp[2]}
	u := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	kc := [3]float64{ext[0] * u(0.4, 0.6), ext[1] * u(0.4, 0.6), ext[2] * u(0.3, 0.4)}
	kr := [3]float64{ext[0] * 0.3, ext[1] * 0.2, ext[2] * 0.15}
	tc := [3]float64{kc[0] + kr[0]*u(-0.3, 0.3), kc[1] + kr[1]*u(-0.3, 0.3), kc[2] + kr[2]*u(-0.3, 0.3)}
	tr := 0.45 * min(kr[0], kr[1], kr[2])
	n := shape[0] * shape[1] * shape[2]
	img, lbl := make([]float32, n), make([]uint8, n)
	o := 0
	for i := range shape[0] {
		for j := range shape[1] {
			for k := range shape[2] {
				p := [3]float64{(float64(i) + 0.5) * sp[0], (float64(j) + 0.5) * sp[1], (float64(k) + 0.5) * sp[2]}
				body, kid, tum := 0.0, 0.0, 0.0
				for a := range 3 {
					d := (p[a] - ext[a]/2) / (0.45 * ext[a])
					body += d * d
					d = (p[a] - kc[a]) / kr[a]
					kid += d * d
					d = (p[a] - tc[a]) / tr
					tum += d * d
				}
				v := -1000.0
				switch {
				case tum <= 1:
					v, lbl[o] = 90, 2
				case kid <= 1:
					v, lbl[o] = 180, 1
				case body <= 1:
					v = 40
				}
				img[o] = float32(math.Round(v + u(-20, 20)))
				o++
			}
		}
	}
	return img, lbl
}
