package preprocess

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// NpyArray is a .npy array of any plain numeric dtype, its bytes as stored
// (little-endian, C order). It is not safe for concurrent mutation.
type NpyArray struct {
	Shape []int
	Descr string // numpy dtype string, e.g. "<f4", "|u1"
	Data  []byte
}

// npyElem returns the element size of a little-endian numeric descr.
func npyElem(descr string) (int, bool) {
	switch descr {
	case "<f8", "<i8", "<u8":
		return 8, true
	case "<f4", "<i4", "<u4":
		return 4, true
	case "<f2", "<i2", "<u2":
		return 2, true
	case "|u1", "|i1", "|b1", "<u1", "<i1":
		return 1, true
	}
	return 0, false
}

// Len is the number of elements.
func (a *NpyArray) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Float64s converts every element to float64 (float16 included).
func (a *NpyArray) Float64s() []float64 {
	sz, _ := npyElem(a.Descr)
	out := make([]float64, a.Len())
	d := a.Data
	for i := range out {
		b := d[i*sz:]
		switch a.Descr {
		case "<f8":
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
		case "<f4":
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case "<f2":
			out[i] = halfToFloat64(binary.LittleEndian.Uint16(b))
		case "<i8":
			out[i] = float64(int64(binary.LittleEndian.Uint64(b)))
		case "<u8":
			out[i] = float64(binary.LittleEndian.Uint64(b))
		case "<i4":
			out[i] = float64(int32(binary.LittleEndian.Uint32(b)))
		case "<u4":
			out[i] = float64(binary.LittleEndian.Uint32(b))
		case "<i2":
			out[i] = float64(int16(binary.LittleEndian.Uint16(b)))
		case "<u2":
			out[i] = float64(binary.LittleEndian.Uint16(b))
		case "|i1", "<i1":
			out[i] = float64(int8(b[0]))
		default: // u1, b1
			out[i] = float64(b[0])
		}
	}
	return out
}

func halfToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * frac * math.Ldexp(1, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * (1 + frac/1024) * math.Ldexp(1, exp-15)
}

// ReadNpyArray reads a .npy array (version 1.x–3.x, C order) of a
// little-endian integer, float or bool dtype.
func ReadNpyArray(r io.Reader) (*NpyArray, error) {
	a, err := readNpyArray(r)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %w", err)
	}
	return a, nil
}

func readNpyArray(r io.Reader) (*NpyArray, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var pre [8]byte
	if _, err := io.ReadFull(br, pre[:]); err != nil {
		return nil, fmt.Errorf("%w: short magic: %v", ErrNpy, err)
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("%w: not a .npy file (bad magic)", ErrNpy)
	}
	var hl int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, fmt.Errorf("%w: short header: %v", ErrNpy, err)
		}
		hl = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, fmt.Errorf("%w: short header: %v", ErrNpy, err)
		}
		hl = int(binary.LittleEndian.Uint32(b[:]))
		if hl > 1<<20 {
			return nil, fmt.Errorf("%w: header of %d bytes", ErrNpy, hl)
		}
	default:
		return nil, fmt.Errorf("%w: unsupported version %d.%d", ErrNpy, pre[6], pre[7])
	}
	hdr := make([]byte, hl)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return nil, fmt.Errorf("%w: short header: %v", ErrNpy, err)
	}
	descr, fortran, shape, err := parseNpyHeader(string(hdr))
	if err != nil {
		return nil, err
	}
	sz, ok := npyElem(descr)
	if !ok {
		return nil, fmt.Errorf("%w: dtype %q is not a little-endian number", ErrNpy, descr)
	}
	if fortran {
		return nil, fmt.Errorf("%w: Fortran order is not supported", ErrNpy)
	}
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > (1<<40)/sz/d) {
			return nil, fmt.Errorf("%w: shape %v too large", ErrNpy, shape)
		}
		n *= d
	}
	// Read in chunks so that a lying header cannot make us allocate
	// more than the data that is there.
	var data []byte
	want := n * sz
	for len(data) < want {
		chunk := min(want-len(data), 1<<24)
		start := len(data)
		data = append(data, make([]byte, chunk)...)
		if _, err := io.ReadFull(br, data[start:]); err != nil {
			return nil, fmt.Errorf("%w: data truncated (want %d values of %s): %v", ErrNpy, n, descr, err)
		}
	}
	return &NpyArray{Shape: shape, Descr: descr, Data: data}, nil
}

// npyFix says what to do about a damaged .npy or .npz file.
const npyFix = "the file is damaged or not a numpy .npy/.npz file: re-download it or re-create it (a preprocessed cache: delete it and preprocess again)"

// LoadNpyArray reads a .npy file with ReadNpyArray. Errors name the file.
func LoadNpyArray(path string) (*NpyArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %w", err)
	}
	defer f.Close()
	a, err := readNpyArray(f)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %s: %w; %s", path, err, npyFix)
	}
	return a, nil
}

// LoadNpz reads every array of an .npz archive (numpy.savez or
// savez_compressed), keyed by member name without ".npy".
func LoadNpz(path string) (map[string]*NpyArray, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %s: %w: not an .npz archive (%v); %s", path, ErrNpy, err, npyFix)
	}
	defer zr.Close()
	out := map[string]*NpyArray{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("preprocess: %s: %s: %w", path, f.Name, err)
		}
		a, err := readNpyArray(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("preprocess: %s: member %s: %w; %s", path, f.Name, err, npyFix)
		}
		out[strings.TrimSuffix(f.Name, ".npy")] = a
	}
	return out, nil
}
