package preprocess

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// ErrNpy is wrapped by errors about malformed or unsupported .npy data.
var ErrNpy = errors.New("bad .npy data")

// WriteNpy writes a float32 array of the given shape in NumPy's .npy
// format (version 1.0, little-endian '<f4', C order), byte for byte what
// np.save writes for such an array. len(data) must equal the product of
// shape.
func WriteNpy(w io.Writer, shape []int, data []float32) error {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("preprocess: %w: negative dimension in shape %v", ErrNpy, shape)
		}
		n *= d
	}
	if n != len(data) {
		return fmt.Errorf("preprocess: %w: shape %v holds %d values, got %d", ErrNpy, shape, n, len(data))
	}
	hdr := npyHeader("<f4", shape)
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.Write(hdr); err != nil {
		return fmt.Errorf("preprocess: write npy: %w", err)
	}
	var b [4]byte
	for _, v := range data {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		if _, err := bw.Write(b[:]); err != nil {
			return fmt.Errorf("preprocess: write npy: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("preprocess: write npy: %w", err)
	}
	return nil
}

// npyHeader builds the magic, version and header dict padded with spaces
// and a newline so that the data starts at a multiple of 64 bytes, as
// NumPy ≥ 1.14 does.
func npyHeader(descr string, shape []int) []byte {
	var sb strings.Builder
	sb.WriteString("{'descr': '")
	sb.WriteString(descr)
	sb.WriteString("', 'fortran_order': False, 'shape': (")
	for i, d := range shape {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		sb.WriteString(",")
	}
	sb.WriteString("), }")
	dict := sb.String()
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	var buf bytes.Buffer
	buf.WriteString("\x93NUMPY\x01\x00")
	hl := len(dict) + pad + 1
	buf.WriteByte(byte(hl))
	buf.WriteByte(byte(hl >> 8))
	buf.WriteString(dict)
	buf.WriteString(strings.Repeat(" ", pad))
	buf.WriteByte('\n')
	return buf.Bytes()
}

// SaveNpy writes a float32 array to path (created or truncated) with
// WriteNpy.
func SaveNpy(path string, shape []int, data []float32) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("preprocess: %w", err)
	}
	if err := WriteNpy(f, shape, data); err != nil {
		f.Close()
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("preprocess: %w", err)
	}
	return nil
}

// ReadNpy reads a .npy array of float32 ('<f4', C order, version 1.x, 2.x
// or 3.x) and returns its shape and values. Other dtypes, Fortran order and
// truncated data are errors wrapping ErrNpy.
func ReadNpy(r io.Reader) (shape []int, data []float32, err error) {
	shape, data, err = readNpy(r)
	if err != nil {
		return nil, nil, fmt.Errorf("preprocess: %w", err)
	}
	return shape, data, nil
}

func readNpy(r io.Reader) (shape []int, data []float32, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var pre [8]byte
	if _, err := io.ReadFull(br, pre[:]); err != nil {
		return nil, nil, fmt.Errorf("%w: short magic: %v", ErrNpy, err)
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, nil, fmt.Errorf("%w: not a .npy file (bad magic)", ErrNpy)
	}
	var hl int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, nil, fmt.Errorf("%w: short header: %v", ErrNpy, err)
		}
		hl = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, nil, fmt.Errorf("%w: short header: %v", ErrNpy, err)
		}
		hl = int(binary.LittleEndian.Uint32(b[:]))
		if hl > 1<<20 {
			return nil, nil, fmt.Errorf("%w: header of %d bytes", ErrNpy, hl)
		}
	default:
		return nil, nil, fmt.Errorf("%w: unsupported version %d.%d", ErrNpy, pre[6], pre[7])
	}
	hdr := make([]byte, hl)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return nil, nil, fmt.Errorf("%w: short header: %v", ErrNpy, err)
	}
	descr, fortran, shape, err := parseNpyHeader(string(hdr))
	if err != nil {
		return nil, nil, err
	}
	if descr != "<f4" && descr != "float32" {
		return nil, nil, fmt.Errorf("%w: dtype %q, want '<f4' (float32)", ErrNpy, descr)
	}
	if fortran {
		return nil, nil, fmt.Errorf("%w: Fortran order is not supported", ErrNpy)
	}
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > math.MaxInt32/d) {
			return nil, nil, fmt.Errorf("%w: shape %v too large", ErrNpy, shape)
		}
		n *= d
	}
	raw := make([]byte, 4*n)
	if _, err := io.ReadFull(br, raw); err != nil {
		return nil, nil, fmt.Errorf("%w: data truncated (want %d float32 values): %v", ErrNpy, n, err)
	}
	data = make([]float32, n)
	for i := range data {
		data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return shape, data, nil
}

// LoadNpy reads a float32 .npy file with ReadNpy. Errors name the file.
func LoadNpy(path string) (shape []int, data []float32, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("preprocess: %w", err)
	}
	defer f.Close()
	shape, data, err = readNpy(f)
	if err != nil {
		return nil, nil, fmt.Errorf("preprocess: %s: %w", path, err)
	}
	return shape, data, nil
}

// parseNpyHeader parses the Python dict literal of a .npy header, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 224, 224), }.
func parseNpyHeader(h string) (descr string, fortran bool, shape []int, err error) {
	bad := func(what string) error { return fmt.Errorf("%w: header %q: %s", ErrNpy, strings.TrimSpace(h), what) }
	get := func(key string) (string, bool) {
		for _, q := range []string{"'", "\""} {
			k := q + key + q
			i := strings.Index(h, k)
			if i < 0 {
				continue
			}
			rest := strings.TrimLeft(h[i+len(k):], " ")
			if !strings.HasPrefix(rest, ":") {
				return "", false
			}
			return strings.TrimLeft(rest[1:], " "), true
		}
		return "", false
	}
	v, ok := get("descr")
	if !ok || len(v) < 2 || (v[0] != '\'' && v[0] != '"') {
		return "", false, nil, bad("no descr")
	}
	end := strings.IndexByte(v[1:], v[0])
	if end < 0 {
		return "", false, nil, bad("unterminated descr")
	}
	descr = v[1 : 1+end]
	v, ok = get("fortran_order")
	if !ok {
		return "", false, nil, bad("no fortran_order")
	}
	fortran = strings.HasPrefix(v, "True")
	v, ok = get("shape")
	if !ok || !strings.HasPrefix(v, "(") {
		return "", false, nil, bad("no shape")
	}
	end = strings.IndexByte(v, ')')
	if end < 0 {
		return "", false, nil, bad("unterminated shape")
	}
	shape = []int{}
	for _, f := range strings.Split(v[1:end], ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		f = strings.TrimSuffix(f, "L")
		d, err := strconv.Atoi(f)
		if err != nil || d < 0 {
			return "", false, nil, bad("bad dimension " + f)
		}
		shape = append(shape, d)
	}
	return descr, fortran, shape, nil
}
