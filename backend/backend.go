// Package backend defines the inference-engine seam: a Session runs a model
// on Tensors. It has no cgo; engines such as ONNX Runtime live in
// sub-packages (backend/ort) that implement these interfaces.
package backend

import (
	"context"
	"fmt"
)

// DType is a tensor element type.
type DType int

// The element types the benchmarks use.
const (
	Float32 DType = iota + 1
	Float16       // raw IEEE 754 half bits, stored as uint16
	Int64
	Int32
	Uint8
	Bool
)

// String returns the ONNX-style name of the type.
func (d DType) String() string {
	switch d {
	case Float32:
		return "float32"
	case Float16:
		return "float16"
	case Int64:
		return "int64"
	case Int32:
		return "int32"
	case Uint8:
		return "uint8"
	case Bool:
		return "bool"
	}
	return fmt.Sprintf("dtype(%d)", int(d))
}

// Size is the size of one element in bytes.
func (d DType) Size() int {
	switch d {
	case Float32, Int32:
		return 4
	case Float16:
		return 2
	case Int64:
		return 8
	case Uint8, Bool:
		return 1
	}
	return 0
}

// Info describes one model input or output. A dimension of -1 is dynamic.
type Info struct {
	Name  string
	DType DType
	Shape []int64
}

// Tensor is a named, typed, shaped buffer. Data holds a Go slice of the
// element type ([]float32, []uint16 for Float16, []int64, []int32, []uint8,
// []bool); sessions read inputs without copying where the engine allows, so
// the caller must not change Data while Run is in progress.
type Tensor struct {
	Name  string
	DType DType
	Shape []int64
	Data  any
}

// Session is a loaded model. Run is safe for concurrent use.
type Session interface {
	// Inputs describes the model's inputs in order.
	Inputs() []Info
	// Outputs describes the model's outputs in order.
	Outputs() []Info
	// Run executes the model on in (matched by name) and returns every
	// output in Outputs order. The returned tensors are owned by the caller.
	Run(ctx context.Context, in []Tensor) ([]Tensor, error)
	// Close releases the session.
	Close() error
}
