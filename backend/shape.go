package backend

import (
	"fmt"
	"strings"
)

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
