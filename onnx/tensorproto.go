package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// This file reads a serialized TensorProto (onnx.proto), the format of the
// input_N.pb / output_N.pb files of ONNX's backend test data, with the
// protocol-buffers wire decoder of google.golang.org/protobuf (no generated
// code, as for the writer).

// ErrUnsupportedTensor reports a TensorProto that ReadTensor cannot
// represent: string, complex or 8-bit float elements, segmented tensors, or
// data stored outside the message (external data).
var ErrUnsupportedTensor = errors.New("onnx: unsupported tensor")

// TensorProto field numbers (onnx.proto).
const (
	tpDims         = 1
	tpDataType     = 2
	tpSegment      = 3
	tpFloatData    = 4
	tpInt32Data    = 5
	tpStringData   = 6
	tpInt64Data    = 7
	tpName         = 8
	tpRawData      = 9
	tpDoubleData   = 10
	tpUint64Data   = 11
	tpExternalData = 13
	tpDataLocation = 14
)

// ReadTensor decodes one serialized TensorProto into a Tensor holding its
// values as a Go slice (see NewTensor for the slice type of each element
// type; Float16 and BFloat16 as raw uint16 bits). Both encodings of the
// data are read: raw_data (little-endian) and the typed repeated fields,
// packed or not. A tensor whose element count disagrees with its dims is an
// error; so is a malformed message. The result does not alias b.
func ReadTensor(b []byte) (*Tensor, error) {
	var (
		name      string
		dt        DType
		dims      []int64
		raw       []byte
		hasRaw    bool
		floats    []float32
		doubles   []float64
		varints   []uint64 // int32_data, int64_data or uint64_data
		varField  protowire.Number
		unsupport string
	)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, fmt.Errorf("onnx: tensor proto: %w", protowire.ParseError(n))
		}
		b = b[n:]
		var err error
		switch num {
		case tpDims:
			dims, b, err = appendVarints(dims, b, typ, func(v uint64) int64 { return int64(v) })
		case tpDataType:
			var v uint64
			v, b, err = consumeVarint(b, typ)
			dt = DType(int32(v))
		case tpName:
			var s []byte
			s, b, err = consumeBytes(b, typ)
			name = string(s)
		case tpRawData:
			raw, b, err = consumeBytes(b, typ)
			raw = append([]byte(nil), raw...)
			hasRaw = true
		case tpFloatData:
			floats, b, err = appendFixed32(floats, b, typ)
		case tpDoubleData:
			doubles, b, err = appendFixed64(doubles, b, typ)
		case tpInt32Data, tpInt64Data, tpUint64Data:
			if varField != 0 && varField != num {
				return nil, fmt.Errorf("onnx: tensor proto: data in both fields %d and %d", varField, num)
			}
			varField = num
			varints, b, err = appendVarints(varints, b, typ, func(v uint64) uint64 { return v })
		case tpSegment:
			unsupport = "segmented tensors"
			b, err = skipField(b, num, typ)
		case tpStringData:
			unsupport = "string tensors"
			b, err = skipField(b, num, typ)
		case tpExternalData:
			unsupport = "external data"
			b, err = skipField(b, num, typ)
		case tpDataLocation:
			var v uint64
			v, b, err = consumeVarint(b, typ)
			if v != 0 {
				unsupport = "external data"
			}
		default:
			b, err = skipField(b, num, typ)
		}
		if err != nil {
			return nil, fmt.Errorf("onnx: tensor proto field %d: %w", num, err)
		}
	}
	if unsupport != "" {
		return nil, fmt.Errorf("%w %q: %s", ErrUnsupportedTensor, name, unsupport)
	}
	if dt.Size() == 0 {
		return nil, fmt.Errorf("%w %q: element type %d", ErrUnsupportedTensor, name, int32(dt))
	}
	if err := checkDims(name, dt, dims); err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	count := int64(1)
	for _, d := range dims {
		count *= d
	}
	if hasRaw && (len(floats) > 0 || len(doubles) > 0 || len(varints) > 0) {
		return nil, fmt.Errorf("onnx: tensor %q has both raw_data and typed data", name)
	}
	var vals any
	var got int64
	var err error
	if hasRaw {
		if int64(len(raw)) != count*int64(dt.Size()) {
			return nil, fmt.Errorf("onnx: tensor %q: %d bytes of raw_data for dims %v of %v (want %d)", name, len(raw), dims, dt, count*int64(dt.Size()))
		}
		vals, got = fromRaw(dt, raw), count
	} else {
		vals, got, err = fromTyped(name, dt, floats, doubles, varints, varField)
		if err != nil {
			return nil, err
		}
	}
	if got != count {
		return nil, fmt.Errorf("onnx: tensor %q: %d values for dims %v (%d elements)", name, got, dims, count)
	}
	t := NewTensor(name, dt, dims, vals)
	if t.err != nil {
		return nil, fmt.Errorf("onnx: %w", t.err)
	}
	return t, nil
}

// Data returns the Go slice a tensor was made from (NewTensor or
// ReadTensor), nil for a filled or seeded tensor. The slice is shared, not
// copied: it must not be changed.
func (t *Tensor) Data() any { return t.values }

func consumeVarint(b []byte, typ protowire.Type) (uint64, []byte, error) {
	if typ != protowire.VarintType {
		return 0, b, fmt.Errorf("wire type %d, want varint", typ)
	}
	v, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, b, protowire.ParseError(n)
	}
	return v, b[n:], nil
}

func consumeBytes(b []byte, typ protowire.Type) ([]byte, []byte, error) {
	if typ != protowire.BytesType {
		return nil, b, fmt.Errorf("wire type %d, want bytes", typ)
	}
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return nil, b, protowire.ParseError(n)
	}
	return v, b[n:], nil
}

func skipField(b []byte, num protowire.Number, typ protowire.Type) ([]byte, error) {
	n := protowire.ConsumeFieldValue(num, typ, b)
	if n < 0 {
		return b, protowire.ParseError(n)
	}
	return b[n:], nil
}

// appendVarints reads a repeated varint field, packed (bytes) or not.
func appendVarints[T any](dst []T, b []byte, typ protowire.Type, conv func(uint64) T) ([]T, []byte, error) {
	if typ == protowire.VarintType {
		v, rest, err := consumeVarint(b, typ)
		if err != nil {
			return dst, b, err
		}
		return append(dst, conv(v)), rest, nil
	}
	p, rest, err := consumeBytes(b, typ)
	if err != nil {
		return dst, b, err
	}
	for len(p) > 0 {
		v, n := protowire.ConsumeVarint(p)
		if n < 0 {
			return dst, b, protowire.ParseError(n)
		}
		dst = append(dst, conv(v))
		p = p[n:]
	}
	return dst, rest, nil
}

// appendFixed32 reads a repeated float field, packed or not.
func appendFixed32(dst []float32, b []byte, typ protowire.Type) ([]float32, []byte, error) {
	switch typ {
	case protowire.Fixed32Type:
		v, n := protowire.ConsumeFixed32(b)
		if n < 0 {
			return dst, b, protowire.ParseError(n)
		}
		return append(dst, math.Float32frombits(v)), b[n:], nil
	case protowire.BytesType:
		p, rest, err := consumeBytes(b, typ)
		if err != nil {
			return dst, b, err
		}
		if len(p)%4 != 0 {
			return dst, b, fmt.Errorf("packed floats of %d bytes", len(p))
		}
		for i := 0; i < len(p); i += 4 {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(p[i:])))
		}
		return dst, rest, nil
	}
	return dst, b, fmt.Errorf("wire type %d for floats", typ)
}

// appendFixed64 reads a repeated double field, packed or not.
func appendFixed64(dst []float64, b []byte, typ protowire.Type) ([]float64, []byte, error) {
	switch typ {
	case protowire.Fixed64Type:
		v, n := protowire.ConsumeFixed64(b)
		if n < 0 {
			return dst, b, protowire.ParseError(n)
		}
		return append(dst, math.Float64frombits(v)), b[n:], nil
	case protowire.BytesType:
		p, rest, err := consumeBytes(b, typ)
		if err != nil {
			return dst, b, err
		}
		if len(p)%8 != 0 {
			return dst, b, fmt.Errorf("packed doubles of %d bytes", len(p))
		}
		for i := 0; i < len(p); i += 8 {
			dst = append(dst, math.Float64frombits(binary.LittleEndian.Uint64(p[i:])))
		}
		return dst, rest, nil
	}
	return dst, b, fmt.Errorf("wire type %d for doubles", typ)
}

// fromRaw converts little-endian raw_data (of the right length) to dt's
// Go slice.
func fromRaw(dt DType, raw []byte) any {
	n := len(raw) / dt.Size()
	switch dt {
	case Float:
		s := make([]float32, n)
		for i := range s {
			s[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return s
	case Double:
		s := make([]float64, n)
		for i := range s {
			s[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		return s
	case Int64:
		s := make([]int64, n)
		for i := range s {
			s[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		return s
	case Uint64:
		s := make([]uint64, n)
		for i := range s {
			s[i] = binary.LittleEndian.Uint64(raw[8*i:])
		}
		return s
	case Int32:
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return s
	case Uint32:
		s := make([]uint32, n)
		for i := range s {
			s[i] = binary.LittleEndian.Uint32(raw[4*i:])
		}
		return s
	case Int16:
		s := make([]int16, n)
		for i := range s {
			s[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
		}
		return s
	case Uint16, Float16, BFloat16:
		s := make([]uint16, n)
		for i := range s {
			s[i] = binary.LittleEndian.Uint16(raw[2*i:])
		}
		return s
	case Int8:
		s := make([]int8, n)
		for i := range s {
			s[i] = int8(raw[i])
		}
		return s
	case Bool:
		s := make([]bool, n)
		for i := range s {
			s[i] = raw[i] != 0
		}
		return s
	}
	return raw // Uint8
}

// fromTyped converts the typed repeated fields to dt's Go slice, following
// onnx.proto's table of which field holds which element type.
func fromTyped(name string, dt DType, floats []float32, doubles []float64, vs []uint64, field protowire.Number) (any, int64, error) {
	wrong := func(want string) (any, int64, error) {
		return nil, 0, fmt.Errorf("onnx: tensor %q of %v: data in field %d, want %s", name, dt, field, want)
	}
	switch dt {
	case Float:
		if len(vs) > 0 || len(doubles) > 0 {
			return wrong("float_data")
		}
		return floats, int64(len(floats)), nil
	case Double:
		if len(vs) > 0 || len(floats) > 0 {
			return wrong("double_data")
		}
		return doubles, int64(len(doubles)), nil
	}
	if len(floats) > 0 || len(doubles) > 0 {
		return wrong("integer data")
	}
	n := int64(len(vs))
	switch dt {
	case Int64:
		if len(vs) > 0 && field != tpInt64Data {
			return wrong("int64_data")
		}
		s := make([]int64, n)
		for i, v := range vs {
			s[i] = int64(v)
		}
		return s, n, nil
	case Uint64, Uint32:
		if len(vs) > 0 && field != tpUint64Data {
			return wrong("uint64_data")
		}
		if dt == Uint64 {
			return vs, n, nil
		}
		s := make([]uint32, n)
		for i, v := range vs {
			s[i] = uint32(v)
		}
		return s, n, nil
	}
	if len(vs) > 0 && field != tpInt32Data {
		return wrong("int32_data")
	}
	switch dt {
	case Int32:
		s := make([]int32, n)
		for i, v := range vs {
			s[i] = int32(v)
		}
		return s, n, nil
	case Int16:
		s := make([]int16, n)
		for i, v := range vs {
			s[i] = int16(v)
		}
		return s, n, nil
	case Int8:
		s := make([]int8, n)
		for i, v := range vs {
			s[i] = int8(v)
		}
		return s, n, nil
	case Uint16, Float16, BFloat16:
		s := make([]uint16, n)
		for i, v := range vs {
			s[i] = uint16(v)
		}
		return s, n, nil
	case Uint8:
		s := make([]uint8, n)
		for i, v := range vs {
			s[i] = uint8(v)
		}
		return s, n, nil
	case Bool:
		s := make([]bool, n)
		for i, v := range vs {
			s[i] = v != 0
		}
		return s, n, nil
	}
	return nil, 0, fmt.Errorf("%w %q: element type %v", ErrUnsupportedTensor, name, dt)
}
