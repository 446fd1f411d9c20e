package kits19

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
)

// The test case's image (testdata/raw/case_00001): float32 voxels of a
// 7×9×11 volume from byte 352, scl_slope 1 and scl_inter 0.
func putF32(b []byte, off int, v float64) {
	binary.LittleEndian.PutUint32(b[off:], math.Float32bits(float32(v)))
}

// TestScalingAsNibabel follows nibabel's Nifti1Header.get_slope_inter,
// which get_fdata applies: a valid slope scales (v·slope + inter); a
// slope of 0 or not finite leaves the voxels as stored, whatever the
// intercept; a valid slope with an intercept of NaN or ±Inf is refused.
func TestScalingAsNibabel(t *testing.T) {
	plain, _, _, _, err := LoadRaw(rawCase(t, false, func(b []byte) []byte { return b }))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		slope, inter float64
		a, b         float32 // want v·a + b, or an error when a is 0
	}{
		{"slope 2, inter 1", 2, 1, 2, 1},
		{"slope 0, inter +Inf", 0, math.Inf(1), 1, 0},
		{"slope NaN, inter 5", math.NaN(), 5, 1, 0},
		{"slope 1, inter NaN", 1, math.NaN(), 0, 0},
		{"slope 1, inter +Inf", 1, math.Inf(1), 0, 0},
		{"slope 1, inter -Inf", 1, math.Inf(-1), 0, 0},
	} {
		dir := rawCase(t, false, func(b []byte) []byte {
			putF32(b, 112, c.slope)
			putF32(b, 116, c.inter)
			return b
		})
		img, _, _, _, err := LoadRaw(dir)
		if c.a == 0 {
			if err == nil || !strings.Contains(err.Error(), "scl_inter") || !strings.Contains(err.Error(), ImageFile) {
				t.Errorf("%s: %v, want the header refused, naming scl_inter and the file", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for i, v := range plain.Data {
			if want := v*c.a + c.b; img.Data[i] != want {
				t.Errorf("%s: voxel %d = %v, want %v", c.name, i, img.Data[i], want)
				break
			}
		}
	}
}

// TestRawDimsBounds: a 4-D header whose fourth axis is 1 is the 3-D
// volume; a fourth axis of 2 and an axis of 0 are refused, naming the
// dim.
func TestRawDimsBounds(t *testing.T) {
	le := binary.LittleEndian
	for _, c := range []struct {
		name string
		edit func(b []byte)
		want string // "" loads the 7×9×11 volume
	}{
		{"dim[0] = 2", func(b []byte) { le.PutUint16(b[40:], 2) }, "dim[0] = 2, want a 3-D volume"},
		{"dim[4] = 1", func(b []byte) { le.PutUint16(b[40:], 4); le.PutUint16(b[48:], 1) }, ""},
		{"dim[4] = 2", func(b []byte) { le.PutUint16(b[40:], 4); le.PutUint16(b[48:], 2) }, "dim[4] = 2"},
		{"dim[2] = 0", func(b []byte) { le.PutUint16(b[44:], 0) }, "dim[2] = 0"},
		{"dim[1] = -3", func(b []byte) { le.PutUint16(b[42:], 0xfffd) }, "dim[1] = -3"},
	} {
		img, _, _, _, err := LoadRaw(rawCase(t, false, func(b []byte) []byte { c.edit(b); return b }))
		switch {
		case c.want == "" && (err != nil || img.Shape != [3]int{7, 9, 11}):
			t.Errorf("%s: %v, %v; want the 7×9×11 volume", c.name, img.Shape, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestResampleBounds: a resampled shape with an axis of 4096 voxels is
// taken and one of 4097 (on any axis) refused; 4096·4096·16 = 2^28 voxels
// in all is taken and 4096·4096·17 refused. Preprocess applies the bound
// before resampling anything: a spacing 4097 times the target on one
// axis of a 1-voxel case is refused, naming the shapes.
func TestResampleBounds(t *testing.T) {
	in := [3]int{1, 1, 1}
	for _, c := range []struct {
		out  [3]int
		want string // "" taken
	}{
		{[3]int{4096, 1, 1}, ""},
		{[3]int{1, 4096, 1}, ""},
		{[3]int{1, 1, 4096}, ""},
		{[3]int{4097, 1, 1}, "resamples [1 1 1] to [4097 1 1]"},
		{[3]int{1, 4097, 1}, "resamples [1 1 1] to [1 4097 1]"},
		{[3]int{1, 1, 4097}, "resamples [1 1 1] to [1 1 4097]"},
		{[3]int{4096, 4096, 16}, ""},
		{[3]int{4096, 4096, 17}, "= 285212672 voxels (1.1 GiB as float32), more than the 268435456 allowed"},
	} {
		err := checkResampled("case_x", [3]float64{1, 2, 3}, in, c.out)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.out, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrSpacing)):
			t.Errorf("%v: %v, want %q", c.out, err, c.want)
		}
	}
	img := Volume[float32]{Shape: in, Data: []float32{0}}
	lbl := Volume[uint8]{Shape: in, Data: []uint8{0}}
	affine := [4][4]float64{{1.6, 0, 0, 0}, {0, 1.2, 0, 0}, {0, 0, 1.2, 0}, {0, 0, 0, 1}}
	sp := [3]float64{TargetSpacing[0], 4097 * TargetSpacing[1], TargetSpacing[2]}
	if _, err := Preprocess("case_x", img, lbl, sp, affine); err == nil || !strings.Contains(err.Error(), "case case_x: spacing") || !strings.Contains(err.Error(), "to [1 4097 1]") {
		t.Errorf("Preprocess with a spacing 4097 times the target: %v", err)
	}
}

// TestLoadImageRefusesAShapeOtherThanTheIndexs: a preprocessed image of 3
// axes where the index says 4, or of another size, is an error naming
// the file, never a panic.
func TestLoadImageRefusesAShapeOtherThanTheIndexs(t *testing.T) {
	dir := t.TempDir()
	a := Aux{Case: "case_00000", ImageShape: [4]int{1, 2, 2, 2}}
	for _, shape := range [][]int{{2, 2, 2}, {1, 2, 2, 3}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		b := preprocess.NpyHeaderBytes("<f4", shape)
		b = append(b, make([]byte, 4*n)...)
		if err := os.WriteFile(ImagePath(dir, a.Case), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadImage(dir, a); err == nil || !strings.Contains(err.Error(), ImagePath(dir, a.Case)+" has shape") {
			t.Errorf("shape %v: %v", shape, err)
		}
	}
	b := append(preprocess.NpyHeaderBytes("<f4", []int{1, 2, 2, 2}), make([]byte, 32)...)
	os.WriteFile(ImagePath(dir, a.Case), b, 0o644)
	if v, err := LoadImage(dir, a); err != nil || v.Shape != [3]int{2, 2, 2} {
		t.Errorf("the index's shape: %v, %v", v.Shape, err)
	}
}

// TestWrittenNiftiIsAligned: WriteNifti's header gives the affine as the
// sform with code 2 (NIFTI_XFORM_ALIGNED_ANAT), as nibabel's
// Nifti1Image(data, affine) does for the reference's prediction files,
// and reads back with that affine.
func TestWrittenNiftiIsAligned(t *testing.T) {
	p := t.TempDir() + "/x.nii.gz"
	affine := [4][4]float64{{0, 0, 1.6, -3}, {0, 1.2, 0, 4}, {-1.2, 0, 0, 5}, {0, 0, 0, 1}}
	if err := WriteNifti(p, [3]int{2, 3, 4}, make([]uint8, 24), affine); err != nil {
		t.Fatal(err)
	}
	h, v, err := readVolume(p, toLabel)
	if err != nil || v.Shape != [3]int{2, 3, 4} {
		t.Fatalf("%v, %v", v.Shape, err)
	}
	if h.SformCode != 2 {
		t.Errorf("sform_code %d, want 2 (aligned)", h.SformCode)
	}
	for i := range 3 {
		for j := range 4 {
			if float64(h.Srow[i][j]) != affine[i][j] && math.Abs(float64(h.Srow[i][j])-affine[i][j]) > 1e-6 {
				t.Errorf("srow[%d][%d] = %v, affine %v", i, j, h.Srow[i][j], affine[i][j])
			}
		}
	}
}
