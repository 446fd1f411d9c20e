package kits19

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/mlperf-go/inference/preprocess"
)

// readVolume reads a 3-D NIfTI-1 image (gzip-compressed or not) straight
// into a C-order volume of T, converting each voxel as nibabel's
// get_fdata() followed by numpy's astype(T) does (the stored value times
// scl_slope plus scl_inter in float64, then conv). Unlike
// preprocess.LoadNifti it holds no float64 copy: a raw CT volume of 160 M
// voxels takes 640 MB as float32 rather than 2 GB. The returned header
// has no Data.
func readVolume[T float32 | uint8](path string, conv func(float64) (T, error)) (*preprocess.NiftiImage, Volume[T], error) {
	var vol Volume[T]
	f, err := os.Open(path)
	if err != nil {
		return nil, vol, fmt.Errorf("kits19: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, vol, fmt.Errorf("kits19: %w", err)
	}
	return decodeVolume(f, st.Size(), path, conv)
}

// decodeVolume is readVolume on the size bytes of r (the file path names
// it in errors).
func decodeVolume[T float32 | uint8](f io.Reader, size int64, path string, conv func(float64) (T, error)) (*preprocess.NiftiImage, Volume[T], error) {
	var vol Volume[T]
	bad := func(format string, a ...any) error {
		return fmt.Errorf("kits19: %s: %w: %s", path, preprocess.ErrNifti, fmt.Sprintf(format, a...))
	}
	// avail bounds the bytes the file can hold once decompressed: deflate
	// expands at most 1032:1 (RFC 1951's longest match per 258 bytes), so
	// that a short file whose header claims a huge volume is refused
	// before the volume is allocated.
	avail := size
	br := bufio.NewReaderSize(f, 1<<16)
	var r io.Reader = br
	gz := false
	if m, err := br.Peek(2); err == nil && m[0] == 0x1f && m[1] == 0x8b {
		gz = true
		avail = 1032*avail + 1<<16
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, vol, bad("gzip: %v", err)
		}
		defer zr.Close()
		r = bufio.NewReaderSize(zr, 1<<16)
	}
	var h [348]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, vol, bad("short header: %v", err)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch {
	case binary.LittleEndian.Uint32(h[0:]) == 348:
	case binary.BigEndian.Uint32(h[0:]) == 348:
		bo = binary.BigEndian
	default:
		return nil, vol, bad("sizeof_hdr is not 348 (not a NIfTI-1 file)")
	}
	if string(h[344:347]) != "n+1" {
		return nil, vol, bad("magic %q (want \"n+1\", a single .nii file)", h[344:348])
	}
	img := &preprocess.NiftiImage{Datatype: int16(bo.Uint16(h[70:]))}
	f32 := func(off int) float64 { return float64(math.Float32frombits(bo.Uint32(h[off:]))) }
	ndim := int(int16(bo.Uint16(h[40:])))
	if ndim < 3 || ndim > 7 {
		return nil, vol, bad("dim[0] = %d, want a 3-D volume", ndim)
	}
	n := 1
	for i := range ndim {
		d := int(int16(bo.Uint16(h[42+2*i:])))
		if d < 1 || (i >= 3 && d != 1) {
			return nil, vol, bad("dim[%d] = %d (want a 3-D volume)", i+1, d)
		}
		if n > maxVoxels/d {
			return nil, vol, bad("more than %d voxels (the largest KiTS19 volume has 278 M)", maxVoxels)
		}
		if i < 3 {
			img.Shape = append(img.Shape, d)
		}
		n *= d
	}
	for i := range img.Pixdim {
		img.Pixdim[i] = f32(76 + 4*i)
	}
	img.QformCode, img.SformCode = int16(bo.Uint16(h[252:])), int16(bo.Uint16(h[254:]))
	for i := range 3 {
		img.Quatern[i], img.QOffset[i] = f32(256+4*i), f32(268+4*i)
		for j := range 4 {
			img.Srow[i][j] = f32(280 + 16*i + 4*j)
		}
	}
	sizes := map[int16]int{2: 1, 256: 1, 4: 2, 512: 2, 8: 4, 16: 4, 768: 4, 64: 8, 1024: 8, 1280: 8}
	sz, ok := sizes[img.Datatype]
	if !ok {
		return nil, vol, bad("datatype %d", img.Datatype)
	}
	off := f32(108)
	if off < 348 || off > 1<<20 || off != math.Trunc(off) {
		return nil, vol, bad("vox_offset %v", off)
	}
	if _, err := io.CopyN(io.Discard, r, int64(off)-348); err != nil {
		return nil, vol, bad("short extension: %v", err)
	}
	slope, inter := f32(112), f32(116)
	// nibabel's Nifti1Header.get_slope_inter: a slope of 0 or not finite
	// means no scaling (the intercept is then ignored); a valid slope with
	// an intercept that is not finite is refused (HeaderDataError).
	scale := slope != 0 && !math.IsNaN(slope) && !math.IsInf(slope, 0)
	if scale && (math.IsNaN(inter) || math.IsInf(inter, 0)) {
		return nil, vol, bad("scl_slope %v with scl_inter %v: a valid slope with an intercept that is not a number (nibabel refuses the header); re-download the case", slope, inter)
	}
	if need := int64(off) + int64(n)*int64(sz); need > avail {
		return nil, vol, bad("data truncated: the header asks for %d voxels of %d bytes after %v header bytes (%d bytes), more than the file can hold; re-download the case", n, sz, off, need)
	}
	sh := [3]int(img.Shape)
	vol = Volume[T]{Shape: sh, Data: make([]T, n)}
	// The file runs through the first index fastest: voxel (i, j, k) at
	// file position i + sh0·(j + sh1·k) goes to C position
	// (i·sh1 + j)·sh2 + k.
	line := make([]byte, sh[0]*sz)
	s0 := sh[1] * sh[2]
	for k := range sh[2] {
		for j := range sh[1] {
			if _, err := io.ReadFull(r, line); err != nil {
				return nil, vol, bad("data truncated (want %d voxels of %d bytes): %v", n, sz, err)
			}
			o := j*sh[2] + k
			for i := range sh[0] {
				p := line[i*sz:]
				v := preprocess.NiftiValue(img.Datatype, bo, p)
				if scale {
					v = v*slope + inter
				}
				t, err := conv(v)
				if err != nil {
					return nil, vol, fmt.Errorf("kits19: %s: voxel (%d, %d, %d): %w", path, i, j, k, err)
				}
				vol.Data[o+i*s0] = t
			}
		}
	}
	if gz {
		if err := preprocess.GzipEnd(r); err != nil {
			return nil, vol, fmt.Errorf("kits19: %s: %w; re-download the case", path, err)
		}
	}
	return img, vol, nil
}

// countNaN counts the NaN voxels of a volume.
func countNaN(v []float32) int {
	n := 0
	for _, x := range v {
		if x != x {
			n++
		}
	}
	return n
}

// maxVoxels bounds what a header may ask readVolume to allocate.
const maxVoxels = 1 << 29

func toFloat32(v float64) (float32, error) { return float32(v), nil }

// toLabel is astype(np.uint8) for the values a label may hold; others are
// an error rather than numpy's wrap-around.
func toLabel(v float64) (uint8, error) {
	if !(v >= 0 && v < 256) {
		return 0, fmt.Errorf("%v is not a label (0 to 255)", v)
	}
	return uint8(v), nil
}

// Labels converts voxel values to labels as the reference's
// get_fdata().astype(np.uint8) does for valid KiTS19 volumes (truncation
// toward zero); a value whose label is not 0, 1 or 2, or NaN, is an error.
func Labels(v []float64) ([]uint8, error) {
	out := make([]uint8, len(v))
	for i, f := range v {
		t := math.Trunc(f)
		if !(t >= 0 && t <= 2) {
			return nil, fmt.Errorf("kits19: voxel %d is %v, not a KiTS19 label (0, 1, 2)", i, f)
		}
		out[i] = uint8(t)
	}
	return out, nil
}
