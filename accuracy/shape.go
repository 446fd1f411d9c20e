package accuracy

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrEmptyLog marks an accuracy log with no entries: the run was
// interrupted or failed before any response was logged. There is nothing
// to score; a score of 0 of 0 would look like a result.
var ErrEmptyLog = errors.New("accuracy log has no entries")

// ErrWrongBenchmark marks an accuracy log whose responses cannot be the
// benchmark's: another benchmark's log, or one written with another dtype.
var ErrWrongBenchmark = errors.New("accuracy log is not this benchmark's")

// LogShape describes the responses a benchmark's SUT writes to the
// accuracy log, so that a log of another benchmark is refused before it
// is scored as this one.
type LogShape struct {
	// Benchmark names the benchmark in messages.
	Benchmark string
	// DType is the element type of the responses.
	DType DType
	// MinElems and MaxElems bound the elements per response (MaxElems 0:
	// no upper bound).
	MinElems, MaxElems int
	// MaxValue, when positive, is an exclusive bound on every element (a
	// vocabulary size for token ids); elements must then be integers >= 0
	// unless AllowNegative is set.
	MaxValue      float64
	AllowNegative bool
}

// describe says what a response of this shape is, for messages.
func (s LogShape) describe() string {
	n := fmt.Sprintf("%d", s.MinElems)
	switch {
	case s.MaxElems == 0:
		n += " or more"
	case s.MaxElems != s.MinElems:
		n += fmt.Sprintf(" to %d", s.MaxElems)
	}
	v := fmt.Sprintf("%s %s values (%s bytes)", n, s.DType, byteRange(s))
	if s.MaxValue > 0 {
		v += fmt.Sprintf(" below %g", s.MaxValue)
	}
	return v
}

func byteRange(s LogShape) string {
	sz := s.DType.Size()
	switch {
	case s.MaxElems == 0:
		return fmt.Sprintf("%d or more", s.MinElems*sz)
	case s.MaxElems != s.MinElems:
		return fmt.Sprintf("%d to %d", s.MinElems*sz, s.MaxElems*sz)
	}
	return fmt.Sprintf("%d", s.MinElems*sz)
}

// CheckLog reads the accuracy log at path and checks every response
// against shape. It returns the number of entries, an error wrapping
// ErrEmptyLog when there are none, or one wrapping ErrWrongBenchmark that
// names the first response that does not fit (a log of another benchmark
// or dtype), or a read error (ErrLog for a malformed file).
func CheckLog(path string, shape LogShape) (int, error) {
	r, err := OpenLog(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n := 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		n++
		if err := shape.check(e); err != nil {
			return n, fmt.Errorf("accuracy: %s: %w: seq_id %d (qsl_idx %d) %v; a %s response is %s. Was the log written by another benchmark, or with another --dtype?", path, ErrWrongBenchmark, e.SeqID, e.QSLIdx, err, shape.Benchmark, shape.describe())
		}
	}
	if n == 0 {
		return 0, EmptyLogError(path)
	}
	return n, nil
}

// EmptyLogError returns the error, wrapping ErrEmptyLog, for an accuracy
// log at path with no entries.
func EmptyLogError(path string) error {
	return fmt.Errorf("accuracy: %s: %w: the accuracy run was interrupted or failed before any response was logged; run it again to completion", path, ErrEmptyLog)
}

func (s LogShape) check(e Entry) error {
	sz := s.DType.Size()
	if len(e.Data)%sz != 0 {
		return fmt.Errorf("has %d bytes, not a whole number of %s values", len(e.Data), s.DType)
	}
	k := len(e.Data) / sz
	if k < s.MinElems || (s.MaxElems > 0 && k > s.MaxElems) {
		return fmt.Errorf("has %d bytes (%d %s values)", len(e.Data), k, s.DType)
	}
	if s.MaxValue <= 0 {
		return nil
	}
	vals, err := Decode(e.Data, s.DType)
	if err != nil {
		return err
	}
	for i, v := range vals {
		if v != math.Trunc(v) || v >= s.MaxValue || (!s.AllowNegative && v < 0) {
			return fmt.Errorf("has value %g at element %d", v, i)
		}
	}
	return nil
}
