package kits19

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Header is the part of a NIfTI-1 header Verify checks.
type Header struct {
	Shape   []int
	Spacing []float64 // pixdim[1..len(Shape)]
}

// ReadHeader reads the header of a NIfTI-1 file (gzip-compressed or not)
// without reading its voxels.
func ReadHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("kits19: %w", err)
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	br := r.(*bufio.Reader)
	if m, err := br.Peek(2); err == nil && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Header{}, fmt.Errorf("kits19: %s: gzip: %w", path, err)
		}
		r = zr
	}
	var h [348]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Header{}, fmt.Errorf("kits19: %s: short NIfTI header: %w", path, err)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if bo.Uint32(h[0:]) != 348 {
		bo = binary.BigEndian
		if bo.Uint32(h[0:]) != 348 {
			return Header{}, fmt.Errorf("kits19: %s: not a NIfTI-1 file (sizeof_hdr is not 348)", path)
		}
	}
	n := int(int16(bo.Uint16(h[40:])))
	if n < 1 || n > 7 {
		return Header{}, fmt.Errorf("kits19: %s: dim[0] = %d", path, n)
	}
	var hd Header
	for i := range n {
		hd.Shape = append(hd.Shape, int(int16(bo.Uint16(h[42+2*i:]))))
		hd.Spacing = append(hd.Spacing, float64(math.Float32frombits(bo.Uint32(h[80+4*i:]))))
	}
	return hd, nil
}

// Verify checks a KiTS19 folder and returns report lines. A preprocessed
// folder (preprocessed_files.json) must list cases whose images have the
// indexed shapes and whose ground truth is present; a raw folder must hold
// the 43 inference cases with 3-D image and label headers of equal shape
// and positive spacing, and case_00400 must be a byte copy of case_00185.
// The reference's preprocessed pickles, where present, are checked
// against their published MD5s.
func Verify(dir string) ([]string, error) {
	var rep []string
	var probs []string
	if _, err := os.Stat(filepath.Join(dir, IndexFile)); err == nil {
		idx, err := Open(dir)
		if err != nil {
			return nil, err
		}
		for _, c := range idx.FileList {
			if _, err := LoadImage(dir, idx.Cases[c]); err != nil {
				probs = append(probs, err.Error())
			}
			if _, err := os.Stat(TruthPath(dir, c)); err != nil {
				probs = append(probs, fmt.Sprintf("%s: ground truth %s missing", c, TruthPath(dir, c)))
			}
		}
		full := slices.Equal(idx.FileList, InferenceCases())
		rep = append(rep, fmt.Sprintf("kits19: %s: preprocessed, %d cases (the 43-entry inference list: %v)", dir, len(idx.FileList), full))
	} else {
		present := 0
		var missing []string
		for _, c := range InferenceCases() {
			cd := filepath.Join(dir, c)
			_, e1 := os.Stat(filepath.Join(cd, ImageFile))
			_, e2 := os.Stat(filepath.Join(cd, LabelFile))
			if e1 != nil || e2 != nil {
				missing = append(missing, c)
				continue
			}
			im, err1 := ReadHeader(filepath.Join(cd, ImageFile))
			la, err2 := ReadHeader(filepath.Join(cd, LabelFile))
			if err := errors.Join(err1, err2); err != nil {
				probs = append(probs, err.Error())
				continue
			}
			present++
			if len(im.Shape) != 3 || !slices.Equal(im.Shape, la.Shape) {
				probs = append(probs, fmt.Sprintf("%s: image shape %v and label shape %v must be equal 3-D shapes", c, im.Shape, la.Shape))
			}
			for _, s := range im.Spacing {
				if !(s > 0) || s > 100 {
					probs = append(probs, fmt.Sprintf("%s: spacing %v mm is not sane", c, im.Spacing))
					break
				}
			}
		}
		if len(missing) > 0 {
			more := ""
			if len(missing) > 8 {
				missing, more = missing[:8], ", ..."
			}
			probs = append(probs, fmt.Sprintf("missing inference cases (imaging.nii.gz and segmentation.nii.gz): %s%s; download them with models/unet3d/download_dataset.sh", strings.Join(missing, ", "), more))
		}
		rep = append(rep, fmt.Sprintf("kits19: %s: raw, %d of the %d inference cases present", dir, present, len(InferenceCases())))
		for _, f := range []string{ImageFile, LabelFile} {
			a, err1 := FileMD5(filepath.Join(dir, DuplicateOf, f))
			b, err2 := FileMD5(filepath.Join(dir, DuplicateCase, f))
			if err1 == nil && err2 == nil && a != b {
				probs = append(probs, fmt.Sprintf("%s/%s differs from %s/%s (MD5 %s, %s); copy %s to %s as the reference's Makefile does", DuplicateCase, f, DuplicateOf, f, b, a, DuplicateOf, DuplicateCase))
			}
		}
	}
	prep, pprobs := verifyPickles(dir, PickleChecksums())
	rep, probs = append(rep, prep...), append(probs, pprobs...)
	if len(probs) > 0 {
		return rep, fmt.Errorf("kits19: verify %s: %d problem(s):\n  %s", dir, len(probs), strings.Join(probs, "\n  "))
	}
	return append(rep, "kits19: OK"), nil
}

// verifyPickles checks the case_*.pkl files of dir whose names sums lists
// against their MD5s: a report line (when there is any) and a problem per
// file that differs or cannot be read.
func verifyPickles(dir string, sums map[string]string) (rep, probs []string) {
	pk, _ := filepath.Glob(filepath.Join(dir, "case_*.pkl"))
	good, known := 0, 0
	for _, p := range pk {
		want, ok := sums[filepath.Base(p)]
		if !ok {
			continue
		}
		known++
		got, err := FileMD5(p)
		if err != nil {
			probs = append(probs, err.Error())
		} else if got != want {
			probs = append(probs, fmt.Sprintf("%s: MD5 %s, the reference publishes %s", p, got, want))
		} else {
			good++
		}
	}
	if known > 0 {
		rep = append(rep, fmt.Sprintf("kits19: %d of %d reference pickles match their published MD5", good, known))
	}
	return rep, probs
}
