package preprocess

import (
	"encoding/binary"
	"fmt"
)

// NpyHeader is the header of a .npy array: its dtype descr (e.g. "<f4"),
// order, shape, and where the data starts.
type NpyHeader struct {
	Descr   string
	Fortran bool
	Shape   []int
	// DataOffset is the byte offset of the first element from the start of
	// the .npy data (the magic).
	DataOffset int
}

// ParseNpyHeader parses the header at the start of b (the first bytes of a
// .npy file, version 1.x–3.x; b may hold more). It does not read the data,
// so a memory-mapped file can be checked and then viewed in place.
func ParseNpyHeader(b []byte) (*NpyHeader, error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("preprocess: %w: not a .npy array (bad magic)", ErrNpy)
	}
	var hl, start int
	switch b[6] {
	case 1:
		hl, start = int(binary.LittleEndian.Uint16(b[8:])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, fmt.Errorf("preprocess: %w: short header", ErrNpy)
		}
		hl, start = int(binary.LittleEndian.Uint32(b[8:])), 12
	default:
		return nil, fmt.Errorf("preprocess: %w: unsupported version %d.%d", ErrNpy, b[6], b[7])
	}
	if hl > 1<<20 || start+hl > len(b) {
		return nil, fmt.Errorf("preprocess: %w: header of %d bytes is truncated", ErrNpy, hl)
	}
	descr, fortran, shape, err := parseNpyHeader(string(b[start : start+hl]))
	if err != nil {
		return nil, fmt.Errorf("preprocess: %w", err)
	}
	return &NpyHeader{Descr: descr, Fortran: fortran, Shape: shape, DataOffset: start + hl}, nil
}

// NpyHeaderBytes returns the header NumPy ≥ 1.14 writes for a C-order
// array of descr and shape (version 1.0, data starting at a multiple of 64
// bytes); the data follows it.
func NpyHeaderBytes(descr string, shape []int) []byte { return npyHeader(descr, shape) }
