package kits19

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// WriteNifti writes a 3-D volume (C order, numpy's a[i, j, k]) as a
// single-file NIfTI-1 image, gzip-compressed when path ends in .gz, as
// nibabel.save(Nifti1Image(a, affine)) would: uint8 or float32 voxels
// stored first index fastest, pixdim[1..3] the lengths of the affine's
// columns, the affine as the sform (code 2, aligned), units mm. The file
// is written through a temporary file and renamed.
func WriteNifti[T float32 | uint8](path string, shape [3]int, data []T, affine [4][4]float64) error {
	if shape[0]*shape[1]*shape[2] != len(data) {
		return fmt.Errorf("kits19: nifti %s: shape %v for %d voxels", path, shape, len(data))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("kits19: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("kits19: %w", err)
	}
	defer os.Remove(tmp.Name())
	var w io.Writer = tmp
	bw := bufio.NewWriterSize(w, 1<<16)
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		zw, _ = gzip.NewWriterLevel(bw, gzip.BestSpeed)
		w = zw
	} else {
		w = bw
	}
	if err := writeNifti(w, shape, data, affine); err != nil {
		tmp.Close()
		return fmt.Errorf("kits19: nifti %s: %w", path, err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			tmp.Close()
			return fmt.Errorf("kits19: nifti %s: %w", path, err)
		}
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("kits19: nifti %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("kits19: nifti %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("kits19: %w", err)
	}
	return nil
}

func writeNifti[T float32 | uint8](w io.Writer, shape [3]int, data []T, affine [4][4]float64) error {
	var hdr [352]byte
	le := binary.LittleEndian
	le.PutUint32(hdr[0:], 348)
	dims := []int{3, shape[0], shape[1], shape[2], 1, 1, 1, 1}
	for i, d := range dims {
		if d > math.MaxInt16 {
			return fmt.Errorf("dimension %d is too large for NIfTI-1", d)
		}
		le.PutUint16(hdr[40+2*i:], uint16(d))
	}
	var zero T
	dt, bitpix := int16(16), int16(32)
	if any(zero) == any(uint8(0)) {
		dt, bitpix = 2, 8
	}
	le.PutUint16(hdr[70:], uint16(dt))
	le.PutUint16(hdr[72:], uint16(bitpix))
	put := func(off int, v float64) { le.PutUint32(hdr[off:], math.Float32bits(float32(v))) }
	put(76, 1) // pixdim[0], qfac
	for j := range 3 {
		n := 0.0
		for i := range 3 {
			n += affine[i][j] * affine[i][j]
		}
		put(80+4*j, math.Sqrt(n))
	}
	for j := 4; j < 8; j++ {
		put(76+4*j, 1)
	}
	put(108, 352) // vox_offset
	put(112, 1)   // scl_slope
	hdr[123] = 10 // xyzt_units: mm, s
	le.PutUint16(hdr[254:], 2)
	for i := range 3 {
		for j := range 4 {
			put(280+16*i+4*j, affine[i][j])
		}
	}
	copy(hdr[344:], "n+1\x00")
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	// Voxels run through the first index fastest.
	sz := 4
	if dt == 2 {
		sz = 1
	}
	buf := make([]byte, shape[0]*sz)
	u8, _ := any(data).([]uint8)
	f32, _ := any(data).([]float32)
	s0 := shape[1] * shape[2]
	for k := range shape[2] {
		for j := range shape[1] {
			o := j*shape[2] + k
			if u8 != nil {
				for i := range shape[0] {
					buf[i] = u8[o+i*s0]
				}
			} else {
				for i := range shape[0] {
					le.PutUint32(buf[4*i:], math.Float32bits(f32[o+i*s0]))
				}
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	return nil
}
