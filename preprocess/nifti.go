package preprocess

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// ErrNifti is wrapped by errors about malformed or unsupported NIfTI data.
var ErrNifti = errors.New("malformed or unsupported NIfTI-1 file")

// NiftiImage is the voxel data of a single-file NIfTI-1 image (.nii or
// .nii.gz), as nibabel's img.get_fdata() returns it: Shape is dim[1..n],
// Data holds the values with scl_slope/scl_inter applied, in C order
// (the last index varies fastest), so that Data[(i*ny+j)*nz+k] is numpy's
// a[i, j, k]. (The file itself stores the first index fastest.)
type NiftiImage struct {
	Shape    []int
	Datatype int16 // NIfTI datatype code
	Data     []float64
	// Pixdim is the header's pixdim[0..7] (pixdim[1..3] are the voxel
	// spacing along the first three axes, in the header's units, usually
	// mm; nibabel's header["pixdim"]).
	Pixdim [8]float64
	// QformCode and SformCode say which of the two orientations the
	// header sets (0: none).
	QformCode, SformCode int16
	// Quatern is quatern_b, quatern_c, quatern_d; QOffset is qoffset_x,
	// qoffset_y, qoffset_z.
	Quatern, QOffset [3]float64
	// Srow is srow_x, srow_y, srow_z: the first three rows of the sform
	// affine.
	Srow [3][4]float64
}

// ReadNifti reads a NIfTI-1 single-file image, gzip-compressed or not.
// Supported datatypes: uint8, int8, int16, uint16, int32, uint32, int64,
// uint64, float32, float64, in either byte order.
func ReadNifti(r io.Reader) (*NiftiImage, error) {
	img, err := readNifti(r)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %w", err)
	}
	return img, nil
}

// LoadNifti reads a NIfTI-1 file with ReadNifti. Errors name the file.
func LoadNifti(path string) (*NiftiImage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %w", err)
	}
	defer f.Close()
	img, err := readNifti(f)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %s: %w; the file is damaged or not a NIfTI-1 (.nii or .nii.gz) image: re-download it or re-create it with the data set's scripts", path, err)
	}
	return img, nil
}

// MaxGzipTrailing bounds the decompressed bytes read after a gzip-
// compressed image's voxel data (to reach the stream's end and check it).
const MaxGzipTrailing = 1 << 20

// GzipEnd reads what is left of a gzip-compressed stream r after the data
// a reader needed (at most MaxGzipTrailing bytes of it), so that each
// member's CRC-32 and length are checked, as Python's gzip module checks
// them at the end of a file: a damaged file is refused rather than read
// as far as the data went.
func GzipEnd(r io.Reader) error {
	n, err := io.Copy(io.Discard, io.LimitReader(r, MaxGzipTrailing+1))
	switch {
	case errors.Is(err, gzip.ErrChecksum):
		return fmt.Errorf("%w: gzip: the CRC-32 or length at the end of the compressed stream does not match the data (Python's gzip refuses it: BadGzipFile)", ErrNifti)
	case err != nil:
		return fmt.Errorf("%w: gzip: the end of the compressed stream is damaged: %v", ErrNifti, err)
	case n > MaxGzipTrailing:
		return fmt.Errorf("%w: more than %d bytes follow the voxel data", ErrNifti, MaxGzipTrailing)
	}
	return nil
}

func readNifti(r io.Reader) (*NiftiImage, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	gz := false
	if m, err := br.Peek(2); err == nil && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrNifti, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<16)
		gz = true
	}
	var hdr [348]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, fmt.Errorf("%w: short header: %v", ErrNifti, err)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch {
	case binary.LittleEndian.Uint32(hdr[0:]) == 348:
	case binary.BigEndian.Uint32(hdr[0:]) == 348:
		bo = binary.BigEndian
	case binary.LittleEndian.Uint32(hdr[0:]) == 540 || binary.BigEndian.Uint32(hdr[0:]) == 540:
		return nil, fmt.Errorf("%w: NIfTI-2 is not supported", ErrNifti)
	default:
		return nil, fmt.Errorf("%w: sizeof_hdr is not 348", ErrNifti)
	}
	if string(hdr[344:347]) != "n+1" {
		return nil, fmt.Errorf("%w: magic %q (want \"n+1\", a single .nii file)", ErrNifti, hdr[344:348])
	}
	ndim := int(int16(bo.Uint16(hdr[40:])))
	if ndim < 1 || ndim > 7 {
		return nil, fmt.Errorf("%w: dim[0] = %d", ErrNifti, ndim)
	}
	shape := make([]int, ndim)
	n := 1
	for i := range shape {
		d := int(int16(bo.Uint16(hdr[42+2*i:])))
		if d < 1 || n > (1<<34)/d {
			return nil, fmt.Errorf("%w: dim[%d] = %d", ErrNifti, i+1, d)
		}
		shape[i] = d
		n *= d
	}
	dt := int16(bo.Uint16(hdr[70:]))
	var sz int
	switch dt {
	case 2, 256: // uint8, int8
		sz = 1
	case 4, 512: // int16, uint16
		sz = 2
	case 8, 16, 768: // int32, float32, uint32
		sz = 4
	case 64, 1024, 1280: // float64, int64, uint64
		sz = 8
	default:
		return nil, fmt.Errorf("%w: datatype %d", ErrNifti, dt)
	}
	off := float64(math.Float32frombits(bo.Uint32(hdr[108:])))
	if off < 348 || off > 1<<20 || off != math.Trunc(off) {
		return nil, fmt.Errorf("%w: vox_offset %v", ErrNifti, off)
	}
	if _, err := br.Discard(int(off) - 348); err != nil {
		return nil, fmt.Errorf("%w: short extension: %v", ErrNifti, err)
	}
	slope := float64(math.Float32frombits(bo.Uint32(hdr[112:])))
	inter := float64(math.Float32frombits(bo.Uint32(hdr[116:])))
	scale := slope != 0 && !math.IsNaN(slope) && !math.IsInf(slope, 0)
	if math.IsNaN(inter) || math.IsInf(inter, 0) {
		inter = 0
	}
	var raw bytes.Buffer
	if _, err := io.CopyN(&raw, br, int64(n*sz)); err != nil {
		return nil, fmt.Errorf("%w: data truncated (want %d voxels of %d bytes): %v", ErrNifti, n, sz, err)
	}
	if gz {
		if err := GzipEnd(br); err != nil {
			return nil, err
		}
	}
	b := raw.Bytes()
	// C strides of numpy's view; the file runs through the first index
	// fastest.
	cs := make([]int, ndim)
	s := 1
	for i := ndim - 1; i >= 0; i-- {
		cs[i] = s
		s *= shape[i]
	}
	data := make([]float64, n)
	idx := make([]int, ndim)
	c := 0
	for f := range n {
		p := b[f*sz:]
		v := NiftiValue(dt, bo, p)
		if scale {
			v = v*slope + inter
		}
		data[c] = v
		for d := range ndim { // advance the Fortran-order counter
			idx[d]++
			c += cs[d]
			if idx[d] < shape[d] {
				break
			}
			c -= cs[d] * shape[d]
			idx[d] = 0
		}
	}
	img := &NiftiImage{Shape: shape, Datatype: dt, Data: data}
	f32 := func(off int) float64 { return float64(math.Float32frombits(bo.Uint32(hdr[off:]))) }
	for i := range img.Pixdim {
		img.Pixdim[i] = f32(76 + 4*i)
	}
	img.QformCode, img.SformCode = int16(bo.Uint16(hdr[252:])), int16(bo.Uint16(hdr[254:]))
	for i := range 3 {
		img.Quatern[i], img.QOffset[i] = f32(256+4*i), f32(268+4*i)
		for j := range 4 {
			img.Srow[i][j] = f32(280 + 16*i + 4*j)
		}
	}
	return img, nil
}

// Affine is the voxel-to-world affine as nibabel's img.affine gives it:
// the sform when SformCode > 0, else the qform when QformCode > 0 (the
// quaternion, offsets and pixdim, with pixdim[0] = -1 flipping the third
// axis), else nibabel's base affine (a diagonal of the spacing with x
// flipped, centred on the volume). Spacing and offsets are float32 values
// widened, as nibabel reads them.
func (img *NiftiImage) Affine() [4][4]float64 {
	var a [4][4]float64
	a[3][3] = 1
	zoom := func(i int) float64 {
		if i+1 < len(img.Pixdim) && i < len(img.Shape) {
			return img.Pixdim[i+1]
		}
		return 1
	}
	switch {
	case img.SformCode > 0:
		for i := range 3 {
			a[i] = img.Srow[i]
		}
	case img.QformCode > 0:
		b, c, d := img.Quatern[0], img.Quatern[1], img.Quatern[2]
		w := 1 - (b*b + c*c + d*d)
		if w < 0 { // nibabel's fillpositive tolerance aside, clamp
			w = 0
		}
		w = math.Sqrt(w)
		r := [3][3]float64{
			{w*w + b*b - c*c - d*d, 2 * (b*c - w*d), 2 * (b*d + w*c)},
			{2 * (b*c + w*d), w*w + c*c - b*b - d*d, 2 * (c*d - w*b)},
			{2 * (b*d - w*c), 2 * (c*d + w*b), w*w + d*d - c*c - b*b},
		}
		z := [3]float64{zoom(0), zoom(1), zoom(2)}
		if img.Pixdim[0] < 0 {
			z[2] = -z[2]
		}
		for i := range 3 {
			for j := range 3 {
				a[i][j] = r[i][j] * z[j]
			}
			a[i][3] = img.QOffset[i]
		}
	default:
		for i := range 3 {
			z := zoom(i)
			if i == 0 {
				z = -z
			}
			n := 1
			if i < len(img.Shape) {
				n = img.Shape[i]
			}
			a[i][i] = z
			a[i][3] = -(float64(n) - 1) / 2 * z
		}
	}
	return a
}

// NiftiValue decodes one voxel of NIfTI datatype dt (2 uint8, 256 int8,
// 4 int16, 512 uint16, 8 int32, 768 uint32, 16 float32, 64 float64, 1024
// int64, 1280 uint64) from the start of p in byte order bo, before any
// scl_slope/scl_inter scaling. Other datatypes give 0; callers check the
// datatype when they read the header.
func NiftiValue(dt int16, bo binary.ByteOrder, p []byte) float64 {
	switch dt {
	case 2:
		return float64(p[0])
	case 256:
		return float64(int8(p[0]))
	case 4:
		return float64(int16(bo.Uint16(p)))
	case 512:
		return float64(bo.Uint16(p))
	case 8:
		return float64(int32(bo.Uint32(p)))
	case 768:
		return float64(bo.Uint32(p))
	case 16:
		return float64(math.Float32frombits(bo.Uint32(p)))
	case 64:
		return math.Float64frombits(bo.Uint64(p))
	case 1024:
		return float64(int64(bo.Uint64(p)))
	case 1280:
		return float64(bo.Uint64(p))
	}
	return 0
}
