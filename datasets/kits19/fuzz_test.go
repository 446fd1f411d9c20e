package kits19

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadVolume drives the NIfTI entry point of unet3d's preprocessing:
// the reader LoadRaw runs on a raw case's imaging.nii.gz (as float32) and
// segmentation.nii.gz (as labels), here on any bytes in memory. It must
// give a volume whose size matches its shape or an error, never a panic,
// a hang or an allocation the bytes cannot back.
func FuzzReadVolume(f *testing.F) {
	dir := f.TempDir()
	aff := [4][4]float64{{0, 0, -2.5, 0}, {0, -0.8, 0, 0}, {-0.8, 0, 0, 0}, {0, 0, 0, 1}}
	img := make([]float32, 3*4*5)
	lbl := make([]uint8, len(img))
	for i := range img {
		img[i], lbl[i] = float32(i*7%50-10), uint8(i%3)
	}
	for _, gz := range []string{"", ".gz"} {
		pi, pl := filepath.Join(dir, "i.nii"+gz), filepath.Join(dir, "l.nii"+gz)
		if err := WriteNifti(pi, [3]int{3, 4, 5}, img, aff); err != nil {
			f.Fatal(err)
		}
		if err := WriteNifti(pl, [3]int{3, 4, 5}, lbl, aff); err != nil {
			f.Fatal(err)
		}
		bi, _ := os.ReadFile(pi)
		bl, _ := os.ReadFile(pl)
		f.Add(bi)
		f.Add(bl)
		f.Add(bi[:len(bi)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, v, err := decodeVolume(bytes.NewReader(b), int64(len(b)), "imaging.nii.gz", toFloat32); err == nil {
			if n := v.Shape[0] * v.Shape[1] * v.Shape[2]; n != len(v.Data) || len(h.Shape) != 3 {
				t.Fatalf("shape %v (header %v) with %d voxels", v.Shape, h.Shape, len(v.Data))
			}
			h.Affine()
		}
		if _, v, err := decodeVolume(bytes.NewReader(b), int64(len(b)), "segmentation.nii.gz", toLabel); err == nil {
			if n := v.Shape[0] * v.Shape[1] * v.Shape[2]; n != len(v.Data) {
				t.Fatalf("shape %v with %d labels", v.Shape, len(v.Data))
			}
		}
	})
}
