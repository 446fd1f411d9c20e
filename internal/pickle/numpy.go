package pickle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// numpyGlobal names the numpy callable g is ("_reconstruct", "dtype",
// "_frombuffer", "scalar"), "" for any other: numpy 1 (numpy.core) and
// numpy 2 (numpy._core) module names.
func numpyGlobal(g Global) string {
	switch g {
	case Global{"numpy.core.multiarray", "_reconstruct"}, Global{"numpy._core.multiarray", "_reconstruct"}:
		return "_reconstruct"
	case Global{"numpy", "dtype"}:
		return "dtype"
	case Global{"numpy.core.numeric", "_frombuffer"}, Global{"numpy._core.numeric", "_frombuffer"}:
		return "_frombuffer"
	case Global{"numpy.core.multiarray", "scalar"}, Global{"numpy._core.multiarray", "scalar"}:
		return "scalar"
	case Global{"numpy", "ndarray"}:
		return "ndarray"
	}
	return ""
}

// Dtype is a numpy dtype of the kinds a data set holds: "b1" (bool),
// "i1".."i8", "u1".."u8", "f4", "f8", and "O8" (Python objects).
type Dtype struct {
	Kind  string // "i8", "O8", ...
	Order byte   // '<', '>' or '|'
}

// Size is the bytes per item (8 for objects, which hold no bytes).
func (d *Dtype) Size() int {
	n, _ := strconv.Atoi(d.Kind[1:])
	return n
}

// Descr is numpy's dtype.str, e.g. "<i8", "|b1", "|O".
func (d *Dtype) Descr() string {
	if d.Kind == "O8" {
		return "|O"
	}
	return string(d.Order) + d.Kind
}

func newDtype(args Tuple) (*Dtype, error) {
	if len(args) == 0 {
		return nil, errors.New("dtype of nothing")
	}
	k, _ := args[0].(string)
	switch k {
	case "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8":
		order := byte('<')
		if k == "b1" || k[1] == '1' {
			order = '|'
		}
		return &Dtype{Kind: k, Order: order}, nil
	case "O8", "O4":
		return &Dtype{Kind: "O8", Order: '|'}, nil
	}
	return nil, fmt.Errorf("numpy dtype %q (data sets hold bool, int, uint, float32/64 and object arrays)", k)
}

// setState takes the dtype's byte order: (version, order, subarray,
// names, fields, elsize, alignment, flags[, metadata]).
func (d *Dtype) setState(state any) error {
	st, ok := state.(Tuple)
	if !ok || len(st) < 2 {
		return fmt.Errorf("dtype state %T", state)
	}
	o, _ := st[1].(string)
	switch o {
	case "<", ">", "|":
		d.Order = o[0]
	case "=":
		d.Order = '<'
	default:
		return fmt.Errorf("dtype byte order %q", o)
	}
	if len(st) >= 5 && (st[2] != nil || st[3] != nil || st[4] != nil) {
		return errors.New("structured or sub-array dtype")
	}
	return nil
}

// NDArray is a numpy array: Data holds a numeric array's items in C order
// and the dtype's byte order; Objects an object array's items in C order.
type NDArray struct {
	Shape   []int
	Dtype   *Dtype
	Data    []byte
	Objects []any
}

// Len is the number of items.
func (a *NDArray) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

func (a *NDArray) setShape(v any) error {
	sh, ok := v.(Tuple)
	if !ok {
		return fmt.Errorf("array shape %T", v)
	}
	n := int64(1)
	a.Shape = a.Shape[:0]
	for _, d := range sh {
		x, ok := d.(int64)
		if !ok || x < 0 || x > 1<<40 {
			return fmt.Errorf("array shape %v", sh)
		}
		if n *= x; n > 1<<40 {
			return fmt.Errorf("array shape %v too large", sh)
		}
		a.Shape = append(a.Shape, int(x))
	}
	return nil
}

// setState is ndarray.__setstate__((version, shape, dtype, is_fortran,
// data)).
func (a *NDArray) setState(state any) error {
	st, ok := state.(Tuple)
	if !ok || len(st) != 5 {
		return fmt.Errorf("array state %T of %d items", state, len(st))
	}
	if err := a.setShape(st[1]); err != nil {
		return err
	}
	dt, ok := st[2].(*Dtype)
	if !ok {
		return fmt.Errorf("array dtype %T", st[2])
	}
	a.Dtype = dt
	fortran, _ := st[3].(bool)
	if dt.Kind == "O8" {
		l, ok := st[4].(*List)
		if !ok || l.Len() != a.Len() {
			return fmt.Errorf("object array of %d items holds %T", a.Len(), st[4])
		}
		// numpy lists an object array's items in C order whatever its
		// layout.
		a.Objects = make([]any, l.Len())
		for i := range a.Objects {
			a.Objects[i] = l.At(i)
		}
		return nil
	}
	var data []byte
	switch d := st[4].(type) {
	case Bytes:
		data = d
	case string: // protocol 0-2 pickles of Python 2 str
		data = []byte(d)
	default:
		return fmt.Errorf("array data %T", st[4])
	}
	return a.setData(data, fortran)
}

func (a *NDArray) setData(data []byte, fortran bool) error {
	size := a.Dtype.Size()
	if a.Len()*size != len(data) {
		return fmt.Errorf("array of %s %v with %d bytes", a.Dtype.Descr(), a.Shape, len(data))
	}
	if fortran && len(a.Shape) > 1 {
		data = fortranToC(data, a.Shape, size)
	}
	a.Data = data
	return nil
}

// frombuffer is numpy's _frombuffer(buffer, dtype, shape, order), which
// protocol 5 pickles of numeric arrays call.
func frombuffer(args Tuple) (*NDArray, error) {
	if len(args) != 4 {
		return nil, fmt.Errorf("%d arguments", len(args))
	}
	buf, ok := args[0].(Bytes)
	dt, ok2 := args[1].(*Dtype)
	order, ok3 := args[3].(string)
	if !ok || !ok2 || !ok3 || dt.Kind == "O8" {
		return nil, fmt.Errorf("arguments %T, %T, %T", args[0], args[1], args[3])
	}
	a := &NDArray{Dtype: dt}
	if err := a.setShape(args[2]); err != nil {
		return nil, err
	}
	return a, a.setData(buf, order == "F")
}

// fortranToC reorders an array's items from column-major to row-major.
func fortranToC(data []byte, shape []int, size int) []byte {
	n := len(data) / max(size, 1)
	out := make([]byte, len(data))
	idx := make([]int, len(shape))
	for c := range n { // c: row-major position; idx its index
		f, stride := 0, 1
		for k := range shape {
			f += idx[k] * stride
			stride *= shape[k]
		}
		copy(out[c*size:(c+1)*size], data[f*size:(f+1)*size])
		for k := len(shape) - 1; k >= 0; k-- {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// Scalar is a numpy scalar (numpy.int64(3) in an object array): its
// value as int64, float64 or bool.
type Scalar struct{ Value any }

func newScalar(args Tuple) (any, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("%d arguments", len(args))
	}
	dt, ok := args[0].(*Dtype)
	b, ok2 := args[1].(Bytes)
	if !ok || !ok2 || dt.Kind == "O8" || len(b) != dt.Size() {
		return nil, fmt.Errorf("scalar of %T with %T", args[0], args[1])
	}
	a := &NDArray{Dtype: dt, Shape: []int{1}, Data: b}
	v, err := a.Value(0)
	return Scalar{v}, err
}

// Value is item i of a numeric array as int64, float64 or bool, or of an
// object array as stored.
func (a *NDArray) Value(i int) (any, error) {
	if a.Dtype.Kind == "O8" {
		return a.Objects[i], nil
	}
	size := a.Dtype.Size()
	p := a.Data[i*size : (i+1)*size]
	var bo binary.ByteOrder = binary.LittleEndian
	if a.Dtype.Order == '>' {
		bo = binary.BigEndian
	}
	switch a.Dtype.Kind {
	case "b1":
		return p[0] != 0, nil
	case "i1":
		return int64(int8(p[0])), nil
	case "u1":
		return int64(p[0]), nil
	case "i2":
		return int64(int16(bo.Uint16(p))), nil
	case "u2":
		return int64(bo.Uint16(p)), nil
	case "i4":
		return int64(int32(bo.Uint32(p))), nil
	case "u4":
		return int64(bo.Uint32(p)), nil
	case "i8":
		return int64(bo.Uint64(p)), nil
	case "u8":
		v := bo.Uint64(p)
		if v > math.MaxInt64 {
			return nil, fmt.Errorf("uint64 %d beyond int64", v)
		}
		return int64(v), nil
	case "f4":
		return float64(math.Float32frombits(bo.Uint32(p))), nil
	case "f8":
		return math.Float64frombits(bo.Uint64(p)), nil
	}
	return nil, fmt.Errorf("dtype %s", a.Dtype.Descr())
}

// Int64s returns an integer array's items.
func (a *NDArray) Int64s() ([]int64, error) {
	if a.Dtype.Kind[0] != 'i' && a.Dtype.Kind[0] != 'u' {
		return nil, fmt.Errorf("%w: array of %s, want integers", ErrPickle, a.Dtype.Descr())
	}
	out := make([]int64, a.Len())
	for i := range out {
		v, err := a.Value(i)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrPickle, err)
		}
		out[i] = v.(int64)
	}
	return out, nil
}

// Float32s returns a float32 array's items.
func (a *NDArray) Float32s() ([]float32, error) {
	if a.Dtype.Kind != "f4" {
		return nil, fmt.Errorf("%w: array of %s, want float32", ErrPickle, a.Dtype.Descr())
	}
	out := make([]float32, a.Len())
	for i := range out {
		v, _ := a.Value(i)
		out[i] = float32(v.(float64))
	}
	return out, nil
}

// Float64s returns a float64 array's items.
func (a *NDArray) Float64s() ([]float64, error) {
	if a.Dtype.Kind != "f8" {
		return nil, fmt.Errorf("%w: array of %s, want float64", ErrPickle, a.Dtype.Descr())
	}
	out := make([]float64, a.Len())
	for i := range out {
		v, _ := a.Value(i)
		out[i] = v.(float64)
	}
	return out, nil
}
