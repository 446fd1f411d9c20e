package backend

import (
	"errors"
	"fmt"
	"strings"
)

// ErrContract reports a model whose inputs or outputs do not match what a
// benchmark needs.
var ErrContract = errors.New("backend: model does not match the contract")

// Validate checks a session against a benchmark's I/O contract before any
// run. Every wanted input must exist with the same dtype and rank, and every
// model input must be wanted (the benchmark feeds nothing else). Every wanted
// output must exist likewise; extra model outputs are allowed. A wanted
// dimension of -1 (dynamic, e.g. the batch) must be dynamic in the model
// too; a fixed wanted dimension matches the same size or a dynamic one. All
// problems are listed in one error wrapping ErrContract.
func Validate(s Session, inputs, outputs []Info) error {
	var probs []string
	probs = append(probs, match("input", s.Inputs(), inputs, true)...)
	probs = append(probs, match("output", s.Outputs(), outputs, false)...)
	if len(probs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrContract, strings.Join(probs, "; "))
}

func match(kind string, have, want []Info, exact bool) []string {
	var probs []string
	byName := map[string]Info{}
	for _, h := range have {
		byName[h.Name] = h
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w.Name] = true
		h, ok := byName[w.Name]
		if !ok {
			probs = append(probs, fmt.Sprintf("%s %q missing (model %ss: %s)", kind, w.Name, kind, names(have)))
			continue
		}
		if h.DType != w.DType {
			probs = append(probs, fmt.Sprintf("%s %q is %v, want %v", kind, w.Name, h.DType, w.DType))
		}
		if !shapeFits(h.Shape, w.Shape) {
			probs = append(probs, fmt.Sprintf("%s %q has shape %s, want %s", kind, w.Name, FormatShape(h.Shape), FormatShape(w.Shape)))
		}
	}
	if exact {
		for _, h := range have {
			if !wanted[h.Name] {
				probs = append(probs, fmt.Sprintf("unexpected %s %q (%v %s)", kind, h.Name, h.DType, FormatShape(h.Shape)))
			}
		}
	}
	return probs
}

func shapeFits(have, want []int64) bool {
	if len(have) != len(want) {
		return false
	}
	for i := range want {
		switch {
		case want[i] < 0 && have[i] >= 0:
			return false
		case want[i] >= 0 && have[i] >= 0 && have[i] != want[i]:
			return false
		}
	}
	return true
}

func names(infos []Info) string {
	if len(infos) == 0 {
		return "none"
	}
	n := make([]string, len(infos))
	for i, in := range infos {
		n[i] = fmt.Sprintf("%q", in.Name)
	}
	return strings.Join(n, ", ")
}

// FormatShape formats a shape as [N,3,224,224], writing dynamic dimensions
// as N (first) or ? (others).
func FormatShape(s []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case d >= 0:
			fmt.Fprint(&b, d)
		case i == 0:
			b.WriteByte('N')
		default:
			b.WriteByte('?')
		}
	}
	b.WriteByte(']')
	return b.String()
}

// Elements is the number of elements of a fully known shape, or -1 when a
// dimension is negative.
func Elements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		n *= d
	}
	return n
}

// DataLen returns the number of elements held by data, a slice of the Go
// type that holds dt (see Tensor), or -1 when data is not such a slice.
func DataLen(dt DType, data any) int {
	switch v := data.(type) {
	case []float32:
		if dt == Float32 {
			return len(v)
		}
	case []uint16:
		if dt == Float16 {
			return len(v)
		}
	case []int64:
		if dt == Int64 {
			return len(v)
		}
	case []int32:
		if dt == Int32 {
			return len(v)
		}
	case []uint8:
		if dt == Uint8 {
			return len(v)
		}
	case []bool:
		if dt == Bool {
			return len(v)
		}
	}
	return -1
}
