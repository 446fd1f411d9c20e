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

func readNifti(r io.Reader) (*NiftiImage, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if m, err := br.Peek(2); err == nil && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrNifti, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<16)
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
		var v float64
		switch dt {
		case 2:
			v = float64(p[0])
		case 256:
			v = float64(int8(p[0]))
		case 4:
			v = float64(int16(bo.Uint16(p)))
		case 512:
			v = float64(bo.Uint16(p))
		case 8:
			v = float64(int32(bo.Uint32(p)))
		case 768:
			v = float64(bo.Uint32(p))
		case 16:
			v = float64(math.Float32frombits(bo.Uint32(p)))
		case 64:
			v = math.Float64frombits(bo.Uint64(p))
		case 1024:
			v = float64(int64(bo.Uint64(p)))
		case 1280:
			v = float64(bo.Uint64(p))
		}
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
	return &NiftiImage{Shape: shape, Datatype: dt, Data: data}, nil
}
