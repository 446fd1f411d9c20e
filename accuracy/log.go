package accuracy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// ErrLog marks a malformed mlperf_log_accuracy.json.
var ErrLog = errors.New("malformed accuracy log")

// Entry is one response of mlperf_log_accuracy.json.
type Entry struct {
	SeqID      uint64
	QSLIdx     uint64
	Data       []byte // the response bytes (decoded from hex)
	TokenData  []byte // first-token bytes (token latencies, non-Offline)
	TokenCount int    // token_count (token latencies)
	HasTokens  bool   // token_count was present
}

// LogReader streams the entries of an accuracy log: files of many GB are
// read with constant memory (a fixed read buffer plus the entry being
// decoded). It is not safe for concurrent use.
//
// It scans the JSON array LoadGen writes without encoding/json, decoding
// the hex of data and token_data straight from its read buffer, and
// accepts what encoding/json would decode into the entry: any JSON
// whitespace and key order, keys matched as encoding/json matches struct
// fields (case-insensitively), the last of repeated keys, null for an
// absent field, and unknown keys with any value. Every Entry it returns
// owns its Data and TokenData: they are not reused by later calls.
type LogReader struct {
	name string
	f    io.Closer
	src  io.Reader
	buf  []byte
	r, w int   // unread bytes are buf[r:w]
	off  int64 // file offset of buf[0]
	rerr error // the reader's error (io.EOF at the end), once buf is drained
	n    int   // entries decoded
	done bool  // the closing ']' was read
	seen bool  // an entry was read (a comma comes before the next)
	err  error // a syntax error: the reader stops there
	tmp  []byte
}

// logBufSize is the read buffer: large enough that a typical entry lies in
// it whole, so its hex is decoded in one pass.
const logBufSize = 1 << 20

// OpenLog opens path for reading.
func OpenLog(path string) (*LogReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("accuracy: %w", err)
	}
	r, err := newLogReader(f, path, logBufSize)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.f = f
	return r, nil
}

// NewLogReader reads an accuracy log from r; name is used in errors.
func NewLogReader(r io.Reader, name string) (*LogReader, error) {
	return newLogReader(r, name, 64<<10)
}

func newLogReader(src io.Reader, name string, size int) (*LogReader, error) {
	r := &LogReader{name: name, src: src, buf: make([]byte, size)}
	c, ok := r.skipSpace()
	if !ok {
		return nil, fmt.Errorf("accuracy: %s: %w: %v (an accuracy log is a JSON array written by LoadGen)", name, ErrLog, r.rerr)
	}
	if c != '[' {
		return nil, fmt.Errorf("accuracy: %s: %w: it does not start with '[' (an accuracy log is a JSON array written by LoadGen)", name, ErrLog)
	}
	r.r++
	return r, nil
}

// Next returns the next entry, or io.EOF after the last one. Errors name
// the entry (counting from 0) and, for malformed JSON, the byte offset;
// after malformed JSON Next keeps returning that error, while after an
// entry that is well-formed JSON but not a valid entry (a field missing
// or of the wrong type, data that is not hex) it goes on to the next one.
func (r *LogReader) Next() (Entry, error) {
	if r.err != nil {
		return Entry{}, r.err
	}
	if r.done {
		return Entry{}, io.EOF
	}
	c, ok := r.skipSpace()
	if !ok {
		msg := "EOF"
		if r.rerr != io.EOF {
			msg = r.rerr.Error()
		}
		r.err = fmt.Errorf("accuracy: %s: %w after entry %d: %s (the file is truncated: was the run interrupted?)", r.name, ErrLog, r.n, msg)
		return Entry{}, r.err
	}
	if c == ']' {
		r.r++
		r.done = true
		return Entry{}, io.EOF
	}
	if r.seen {
		// After the first entry (even a rejected one), entries are
		// separated by commas.
		if c != ',' {
			return Entry{}, r.syntaxError(r.n, badChar(c, "after array element"))
		}
		r.r++
	}
	r.seen = true
	return r.entry()
}

// Close closes the file OpenLog opened.
func (r *LogReader) Close() error {
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}

// ReadUnique calls fn for the first entry of every qsl_idx, in file order,
// as the reference scripts de-duplicate; it returns how many entries were
// duplicates.
func ReadUnique(path string, fn func(Entry) error) (dupes int, err error) {
	r, err := OpenLog(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	seen := map[uint64]struct{}{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return dupes, nil
		}
		if err != nil {
			return dupes, err
		}
		if _, ok := seen[e.QSLIdx]; ok {
			dupes++
			continue
		}
		seen[e.QSLIdx] = struct{}{}
		if err := fn(e); err != nil {
			return dupes, err
		}
	}
}

// DType is the element type a response is decoded as.
type DType string

// The response element types.
const (
	Float32 DType = "float32"
	Float16 DType = "float16"
	Int64   DType = "int64"
	Int32   DType = "int32"
	Int8    DType = "int8"
	Uint8   DType = "uint8"
)

// ParseDType accepts float32, float16, int64, int32, int8 and uint8.
func ParseDType(s string) (DType, error) {
	switch d := DType(strings.ToLower(s)); d {
	case Float32, Float16, Int64, Int32, Int8, Uint8:
		return d, nil
	}
	return "", fmt.Errorf("accuracy: unknown dtype %q (want float32, float16, int64, int32, int8 or uint8)", s)
}

// Size is the element size in bytes.
func (d DType) Size() int {
	switch d {
	case Float32, Int32:
		return 4
	case Int64:
		return 8
	case Float16:
		return 2
	}
	return 1
}

// Decode decodes little-endian data as elements of d, as numpy.frombuffer.
func Decode(data []byte, d DType) ([]float64, error) {
	sz := d.Size()
	if len(data)%sz != 0 {
		return nil, fmt.Errorf("accuracy: %w: %d bytes are not a whole number of %s values", ErrLog, len(data), d)
	}
	out := make([]float64, len(data)/sz)
	for i := range out {
		b := data[i*sz:]
		switch d {
		case Float32:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case Float16:
			out[i] = float64(halfToFloat(binary.LittleEndian.Uint16(b)))
		case Int64:
			out[i] = float64(int64(binary.LittleEndian.Uint64(b)))
		case Int32:
			out[i] = float64(int32(binary.LittleEndian.Uint32(b)))
		case Int8:
			out[i] = float64(int8(b[0]))
		case Uint8:
			out[i] = float64(b[0])
		}
	}
	return out, nil
}

func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		f := float32(frac) / 1024 / 16384
		if sign != 0 {
			return -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}
