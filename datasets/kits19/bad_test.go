package kits19

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
)

// rawCase copies testdata/raw/case_00001 into a temporary folder and lets
// mutate change the image file's bytes (the decompressed .nii when gz is
// false, the .nii.gz itself when true).
func rawCase(t *testing.T, gz bool, mutate func([]byte) []byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "case_00001")
	os.MkdirAll(dir, 0o755)
	for _, f := range []string{ImageFile, LabelFile} {
		b, err := os.ReadFile(filepath.Join("testdata/raw/case_00001", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == ImageFile {
			if gz {
				b = mutate(b)
			} else {
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				var raw bytes.Buffer
				raw.ReadFrom(zr)
				var out bytes.Buffer
				zw := gzip.NewWriter(&out)
				zw.Write(mutate(raw.Bytes()))
				zw.Close()
				b = out.Bytes()
			}
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBadRawInputs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		gz     bool
		mutate func([]byte) []byte
		want   string
		is     error
	}{
		{"bad sizeof_hdr", false, func(b []byte) []byte { b[0], b[1] = 0x12, 0x34; return b }, "sizeof_hdr", nil},
		{"bad magic", false, func(b []byte) []byte { copy(b[344:], "xyz"); return b }, "magic", nil},
		{"truncated gzip", true, func(b []byte) []byte { return b[:len(b)/2] }, "imaging.nii.gz", nil},
		{"not gzip", true, func(b []byte) []byte { return []byte("hello") }, "imaging.nii.gz", nil},
		{"zero spacing", false, func(b []byte) []byte { copy(b[84:88], []byte{0, 0, 0, 0}); return b }, "pixdim[2] = 0", ErrSpacing},
		{"negative spacing", false, func(b []byte) []byte { b[83] = 0xC0; return b }, "pixdim[1]", ErrSpacing},
		// The gzip trailer: CRC-32, then the length mod 2^32.
		{"bad gzip CRC", true, func(b []byte) []byte { b[len(b)-8] ^= 0xff; return b }, "the CRC-32 or length at the end of the compressed stream does not match", preprocess.ErrNifti},
		{"bad gzip length", true, func(b []byte) []byte { b[len(b)-3] ^= 0x01; return b }, "does not match the data (Python's gzip refuses it", preprocess.ErrNifti},
		{"garbage after the gzip stream", true, func(b []byte) []byte { return append(b, "junk"...) }, "the end of the compressed stream is damaged", preprocess.ErrNifti},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := rawCase(t, tc.gz, tc.mutate)
			_, _, _, _, err := LoadRaw(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("LoadRaw: %v; want an error naming %q", err, tc.want)
			}
		})
	}
	// PreprocessDir stops on the first bad case and names it.
	dir := rawCase(t, true, func(b []byte) []byte { return b[:len(b)-40] })
	_, err := PreprocessDir(filepath.Dir(dir), t.TempDir(), PreprocessOptions{Cases: []string{"case_00001"}})
	if err == nil || !strings.Contains(err.Error(), "case_00001") {
		t.Errorf("PreprocessDir on a truncated file: %v", err)
	}
	// A missing case is named, with the fix.
	_, err = PreprocessDir(filepath.Dir(dir), t.TempDir(), PreprocessOptions{Cases: []string{"case_00001", "case_00009"}})
	if err == nil || !strings.Contains(err.Error(), "case_00009") || !strings.Contains(err.Error(), "download_dataset.sh") {
		t.Errorf("PreprocessDir with a missing case: %v", err)
	}
}

// NaN voxels are kept, as the reference keeps them, and noted in the log
// with the file and what it means.
func TestNaNVoxelsAreNoted(t *testing.T) {
	dir := rawCase(t, false, func(b []byte) []byte {
		for _, v := range []int{0, 17, 300} {
			copy(b[352+4*v:], []byte{0x00, 0x00, 0xc0, 0x7f}) // float32 NaN
		}
		return b
	})
	var log bytes.Buffer
	if _, err := PreprocessDir(filepath.Dir(dir), t.TempDir(), PreprocessOptions{Cases: []string{"case_00001"}, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if want := "kits19: case_00001: note: 3 voxels of " + filepath.Join(dir, ImageFile) + " are NaN"; !strings.Contains(log.String(), want) {
		t.Errorf("log %q lacks %q", log.String(), want)
	}
	clean := rawCase(t, false, func(b []byte) []byte { return b })
	log.Reset()
	if _, err := PreprocessDir(filepath.Dir(clean), t.TempDir(), PreprocessOptions{Cases: []string{"case_00001"}, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "NaN") {
		t.Errorf("a case without NaN got a note: %q", log.String())
	}
}

// TestSynthPreprocessVerify runs the synthetic set through preprocessing
// and verification, and checks the labels survive resampling.
func TestSynthPreprocessVerify(t *testing.T) {
	raw, out := t.TempDir(), t.TempDir()
	names, err := Synth(raw, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := PreprocessDir(raw, out, PreprocessOptions{Cases: names, NoImageNifti: true})
	if err != nil {
		t.Fatal(err)
	}
	wantShapes := [][4]int{{1, 128, 128, 128}, {1, 192, 128, 128}}
	for i, n := range names {
		if got := idx.Cases[n].ImageShape; got != wantShapes[i] {
			t.Errorf("%s: shape %v, want %v", n, got, wantShapes[i])
		}
		gt, err := LoadTruth(out, n)
		if err != nil {
			t.Fatal(err)
		}
		var c [3]int
		for _, v := range gt {
			c[v]++
		}
		if c[1] == 0 || c[2] == 0 {
			t.Errorf("%s: ground truth has %d kidney and %d tumour voxels; want both", n, c[1], c[2])
		}
	}
	rep, err := Verify(out)
	if err != nil || !strings.Contains(strings.Join(rep, "\n"), "2 cases") {
		t.Errorf("Verify(preprocessed) = %v, %v", rep, err)
	}
	// The raw synthetic set is not the 43-case inference set.
	if _, err := Verify(raw); err == nil || !strings.Contains(err.Error(), "case_00003") {
		t.Errorf("Verify(raw synthetic set) = %v; want the missing inference cases named", err)
	}
	// A case image removed after preprocessing is reported.
	os.Remove(ImagePath(out, names[1]))
	if _, err := Open(out); err == nil || !strings.Contains(err.Error(), names[1]) {
		t.Errorf("Open with a missing image: %v", err)
	}
}

// Labels truncates toward zero as get_fdata().astype(np.uint8) does and
// refuses a value that is no KiTS19 label.
func TestLabels(t *testing.T) {
	if l, err := Labels([]float64{0, 2.5, -0.5, 1}); err != nil || !slices.Equal(l, []uint8{0, 2, 0, 1}) {
		t.Errorf("2.5 and -0.5 truncate to labels: %v, %v", l, err)
	}
	for _, v := range []float64{3, -1, math.NaN()} {
		if _, err := Labels([]float64{0, v}); err == nil || !strings.Contains(err.Error(), "voxel 1") {
			t.Errorf("%v is not a label: %v", v, err)
		}
	}
}

// TestVerifyPicklesAgainstTheirMD5s: a pickle whose MD5 matches counts, one
// that differs is a problem naming both sums, one that cannot be read is a
// problem, and a case_*.pkl the list does not name is not judged. The sums
// are md5sum's: printf abc | md5sum.
func TestVerifyPicklesAgainstTheirMD5s(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "case_00001.pkl"), []byte("abc"), 0o644)
	os.WriteFile(filepath.Join(dir, "case_00002.pkl"), []byte("abd"), 0o644)
	os.WriteFile(filepath.Join(dir, "case_00003.pkl"), []byte("xyz"), 0o644)
	os.Mkdir(filepath.Join(dir, "case_00004.pkl"), 0o755)
	sums := map[string]string{
		"case_00001.pkl": "900150983cd24fb0d6963f7d28e17f72",
		"case_00002.pkl": "900150983cd24fb0d6963f7d28e17f72",
		"case_00004.pkl": "900150983cd24fb0d6963f7d28e17f72",
	}
	rep, probs := verifyPickles(dir, sums)
	if want := []string{"kits19: 1 of 3 reference pickles match their published MD5"}; !slices.Equal(rep, want) {
		t.Errorf("report %q, want %q", rep, want)
	}
	// printf abd | md5sum: 4911e516e5aa21d327512e0c8b197616.
	if len(probs) != 2 || probs[0] != filepath.Join(dir, "case_00002.pkl")+": MD5 4911e516e5aa21d327512e0c8b197616, the reference publishes 900150983cd24fb0d6963f7d28e17f72" || !strings.Contains(probs[1], "case_00004.pkl") {
		t.Errorf("problems %q", probs)
	}
	if rep, probs := verifyPickles(t.TempDir(), sums); rep != nil || probs != nil {
		t.Errorf("no pickles: %q %q, want nothing", rep, probs)
	}
	// The published lists: one entry per case file, 32 hex digits each.
	all := PickleChecksums()
	if len(all) < 60 {
		t.Errorf("%d published pickle sums", len(all))
	}
	for k, v := range all {
		if !strings.HasPrefix(k, "case_") || !strings.HasSuffix(k, ".pkl") || len(v) != 32 {
			t.Errorf("checksum entry %q: %q", k, v)
		}
	}
}

// niftiHeader is a bare 348-byte NIfTI-1 header in byte order bo with the
// given dim[0], shape and spacing (pixdim[1..]).
func niftiHeader(bo binary.ByteOrder, ndim int, shape []int16, spacing []float32) []byte {
	h := make([]byte, 348)
	bo.PutUint32(h[0:], 348)
	bo.PutUint16(h[40:], uint16(ndim))
	for i, d := range shape {
		bo.PutUint16(h[42+2*i:], uint16(d))
	}
	for i, s := range spacing {
		bo.PutUint32(h[80+4*i:], math.Float32bits(s))
	}
	return h
}

// TestReadHeaderBothByteOrders: a big-endian header reads as a
// little-endian one; dim[0] from 1 to 7 is read, 0 and 8 are refused, as is
// a file whose sizeof_hdr is 348 in neither order or that is shorter than
// a header.
func TestReadHeaderBothByteOrders(t *testing.T) {
	dir := t.TempDir()
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		p := filepath.Join(dir, bo.String()+".nii")
		os.WriteFile(p, niftiHeader(bo, 3, []int16{4, 5, 6}, []float32{0.5, 0.75, 2.5}), 0o644)
		h, err := ReadHeader(p)
		if err != nil || !slices.Equal(h.Shape, []int{4, 5, 6}) || !slices.Equal(h.Spacing, []float64{0.5, 0.75, 2.5}) {
			t.Errorf("%s: %+v, %v", bo, h, err)
		}
	}
	for _, c := range []struct {
		ndim int
		ok   bool
	}{{0, false}, {1, true}, {7, true}, {8, false}} {
		p := filepath.Join(dir, "dims.nii")
		os.WriteFile(p, niftiHeader(binary.LittleEndian, c.ndim, []int16{2, 2, 2, 2, 2, 2, 2}, nil), 0o644)
		h, err := ReadHeader(p)
		if (err == nil) != c.ok || (c.ok && len(h.Shape) != c.ndim) {
			t.Errorf("dim[0] %d: %+v, %v", c.ndim, h, err)
		}
	}
	bad := niftiHeader(binary.LittleEndian, 3, nil, nil)
	binary.LittleEndian.PutUint32(bad, 349)
	p := filepath.Join(dir, "bad.nii")
	os.WriteFile(p, bad, 0o644)
	if _, err := ReadHeader(p); err == nil || !strings.Contains(err.Error(), "sizeof_hdr is not 348") {
		t.Errorf("sizeof_hdr 349: %v", err)
	}
	os.WriteFile(p, bad[:347], 0o644)
	if _, err := ReadHeader(p); err == nil || !strings.Contains(err.Error(), "short NIfTI header") {
		t.Errorf("347 bytes: %v", err)
	}
}

// TestCropPadAtTheHalfStride follows the reference's
// adjust_shape_for_sliding_window (mlcommons/inference
// vision/medical_imaging/3d-unet-kits19/preprocess.py) on axes whose size
// mod 64 is 31 (cropped: 159 → 128 from voxel 15), 32 and 33 (padded: 160
// → 192 with 16 before, 161 → 192 with 15 before), and an axis under the
// ROI (64 → 128, 32 before); the other axes, 128, stay as they are.
func TestCropPadAtTheHalfStride(t *testing.T) {
	for _, c := range []struct {
		size, want, before, lo int
	}{{159, 128, 0, 15}, {160, 192, 16, 0}, {161, 192, 15, 0}, {64, 128, 32, 0}, {192, 192, 0, 0}} {
		shape := [3]int{c.size, 128, 128}
		v := Volume[uint8]{Shape: shape, Data: make([]uint8, c.size*128*128)}
		for i := range v.Data {
			v.Data[i] = uint8(i/(128*128)%250 + 1) // the index along axis 0, plus 1
		}
		r := cropPad(v, 0)
		if r.Shape[0] != c.want {
			t.Errorf("axis of %d: %d after cropPad, want %d", c.size, r.Shape[0], c.want)
			continue
		}
		if r.Shape[1] != 128 || r.Shape[2] != 128 {
			t.Errorf("axes of 128: %v, want 128", r.Shape)
		}
		at := func(i int) uint8 { return r.Data[(i*128+7)*128+9] }
		if at(c.before) != uint8(c.lo+1) || (c.before > 0 && at(c.before-1) != 0) {
			t.Errorf("axis of %d: voxel %d holds %d (before it %d), want source voxel %d after %d pads", c.size, c.before, at(c.before), at(max(c.before-1, 0)), c.lo, c.before)
		}
	}
}

// TestCheckZoomBounds: a volume of 1 voxel per axis zooms; an axis of 0, a
// voxel count that does not match the shape, and an empty result do not.
func TestCheckZoomBounds(t *testing.T) {
	for _, c := range []struct {
		in, out [3]int
		n       int
		want    string
	}{
		{[3]int{1, 1, 1}, [3]int{1, 1, 1}, 1, ""},
		{[3]int{2, 3, 4}, [3]int{5, 1, 7}, 24, ""},
		{[3]int{2, 3, 4}, [3]int{5, 6, 7}, 23, "zoom of a [2 3 4] volume holding 23 voxels"},
		{[3]int{0, 3, 4}, [3]int{5, 6, 7}, 0, "zoom of a [0 3 4] volume"},
		{[3]int{2, 0, 4}, [3]int{5, 6, 7}, 0, "zoom of a [2 0 4] volume"},
		{[3]int{2, 3, 0}, [3]int{5, 6, 7}, 0, "zoom of a [2 3 0] volume"},
		{[3]int{2, 3, 4}, [3]int{0, 6, 7}, 24, "gives an empty volume [0 6 7]"},
		{[3]int{2, 3, 4}, [3]int{5, 0, 7}, 24, "gives an empty volume"},
		{[3]int{2, 3, 4}, [3]int{5, 6, 0}, 24, "gives an empty volume"},
	} {
		err := checkZoom(c.in, c.out, c.n)
		if (c.want == "" && err != nil) || (c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want))) {
			t.Errorf("checkZoom(%v, %v, %d) = %v, want %q", c.in, c.out, c.n, err, c.want)
		}
	}
}
