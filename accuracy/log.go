package accuracy

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
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

type rawEntry struct {
	SeqID      *uint64 `json:"seq_id"`
	QSLIdx     *uint64 `json:"qsl_idx"`
	Data       *string `json:"data"`
	TokenData  *string `json:"token_data"`
	TokenCount *int    `json:"token_count"`
}

// LogReader streams the entries of an accuracy log: files of many GB are
// read with constant memory. It is not safe for concurrent use.
type LogReader struct {
	name string
	f    io.Closer
	dec  *json.Decoder
	n    int
	done bool
}

// OpenLog opens path for reading.
func OpenLog(path string) (*LogReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("accuracy: %w", err)
	}
	r, err := NewLogReader(bufio.NewReaderSize(f, 1<<20), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.f = f
	return r, nil
}

// NewLogReader reads an accuracy log from r; name is used in errors.
func NewLogReader(r io.Reader, name string) (*LogReader, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("accuracy: %s: %w: %v (an accuracy log is a JSON array written by LoadGen)", name, ErrLog, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("accuracy: %s: %w: it does not start with '[' (an accuracy log is a JSON array written by LoadGen)", name, ErrLog)
	}
	return &LogReader{name: name, dec: dec}, nil
}

// Next returns the next entry, or io.EOF after the last one.
func (r *LogReader) Next() (Entry, error) {
	if r.done {
		return Entry{}, io.EOF
	}
	if !r.dec.More() {
		tok, err := r.dec.Token()
		if err != nil {
			return Entry{}, fmt.Errorf("accuracy: %s: %w after entry %d: %v (the file is truncated: was the run interrupted?)", r.name, ErrLog, r.n, err)
		}
		if d, ok := tok.(json.Delim); !ok || d != ']' {
			return Entry{}, fmt.Errorf("accuracy: %s: %w after entry %d", r.name, ErrLog, r.n)
		}
		r.done = true
		return Entry{}, io.EOF
	}
	var raw rawEntry
	if err := r.dec.Decode(&raw); err != nil {
		return Entry{}, fmt.Errorf("accuracy: %s: %w: entry %d: %v (the file is truncated or not written by LoadGen)", r.name, ErrLog, r.n, err)
	}
	r.n++
	if raw.SeqID == nil || raw.QSLIdx == nil || raw.Data == nil {
		return Entry{}, fmt.Errorf("accuracy: %s: %w: entry %d lacks seq_id, qsl_idx or data", r.name, ErrLog, r.n-1)
	}
	e := Entry{SeqID: *raw.SeqID, QSLIdx: *raw.QSLIdx}
	var err error
	if e.Data, err = hex.DecodeString(*raw.Data); err != nil {
		return Entry{}, fmt.Errorf("accuracy: %s: %w: entry %d (seq_id %d): data is not hex: %v", r.name, ErrLog, r.n-1, e.SeqID, err)
	}
	if raw.TokenData != nil {
		if e.TokenData, err = hex.DecodeString(*raw.TokenData); err != nil {
			return Entry{}, fmt.Errorf("accuracy: %s: %w: entry %d (seq_id %d): token_data is not hex: %v", r.name, ErrLog, r.n-1, e.SeqID, err)
		}
	}
	if raw.TokenCount != nil {
		e.TokenCount, e.HasTokens = *raw.TokenCount, true
	}
	return e, nil
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
