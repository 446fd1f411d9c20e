package kserve

import (
	"fmt"
	"unsafe"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/remote/kserve/pb"
)

// This file converts tensors to and from the gRPC API's messages. Tensors
// are sent as raw_input_contents / raw_output_contents (flat little-endian
// element bytes, one entry per tensor, in order), as Triton's clients do;
// typed "contents" are accepted on receipt too, for peers that send them.

// pbTensor is what the request's and the response's tensor messages have
// in common.
type pbTensor interface {
	GetName() string
	GetDatatype() string
	GetShape() []int64
	GetContents() *pb.InferTensorContents
}

// decodePB turns the tensors of a request or response into backend
// tensors, taking data from raw (one entry per tensor) when it is there,
// else from each tensor's contents. The tensors may share memory with raw:
// the caller gives up raw (protobuf decoding makes it a fresh copy of the
// wire bytes, owned by the message).
func decodePB[T pbTensor](ts []T, raw [][]byte) ([]backend.Tensor, error) {
	if len(raw) > 0 && len(raw) != len(ts) {
		return nil, fmt.Errorf("kserve: %d raw contents for %d tensors", len(raw), len(ts))
	}
	out := make([]backend.Tensor, len(ts))
	for i, t := range ts {
		d, err := ParseDatatype(t.GetDatatype())
		if err != nil {
			return nil, fmt.Errorf("%w (tensor %s)", err, t.GetName())
		}
		if len(raw) > 0 {
			if t.GetContents() != nil {
				return nil, fmt.Errorf("kserve: tensor %s has both raw and typed contents", t.GetName())
			}
			out[i], err = aliasBytes(t.GetName(), d, t.GetShape(), raw[i])
		} else {
			out[i], err = fromContents(t.GetName(), d, t.GetShape(), t.GetContents())
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// aliasBytes is fromBytes without the copy where the bytes are aligned
// for the element type (a fresh allocation always is): the tensor's data
// is b itself. BOOL data is copied (to make every element true or false).
func aliasBytes(name string, d backend.DType, shape []int64, b []byte) (backend.Tensor, error) {
	n := elements(shape)
	size := int64(d.Size())
	if n < 0 || int64(len(b)) != n*size || d == backend.Bool || n == 0 || uintptr(unsafe.Pointer(&b[0]))%uintptr(size) != 0 {
		return fromBytes(name, d, shape, b)
	}
	t := backend.Tensor{Name: name, DType: d, Shape: append([]int64(nil), shape...)}
	p := unsafe.Pointer(&b[0])
	switch d {
	case backend.Float32:
		t.Data = unsafe.Slice((*float32)(p), n)
	case backend.Float16:
		t.Data = unsafe.Slice((*uint16)(p), n)
	case backend.Int64:
		t.Data = unsafe.Slice((*int64)(p), n)
	case backend.Int32:
		t.Data = unsafe.Slice((*int32)(p), n)
	case backend.Uint8:
		t.Data = b
	default:
		return fromBytes(name, d, shape, b)
	}
	return t, nil
}

// fromContents makes a tensor from typed contents (copied).
func fromContents(name string, d backend.DType, shape []int64, c *pb.InferTensorContents) (backend.Tensor, error) {
	n := elements(shape)
	if n < 0 {
		return backend.Tensor{}, fmt.Errorf("kserve: tensor %s: bad shape %v", name, shape)
	}
	if c == nil {
		return backend.Tensor{}, fmt.Errorf("kserve: tensor %s has no data (neither raw nor typed contents)", name)
	}
	t := backend.Tensor{Name: name, DType: d, Shape: append([]int64(nil), shape...)}
	var got int
	switch d {
	case backend.Float32:
		got, t.Data = len(c.Fp32Contents), append([]float32(nil), c.Fp32Contents...)
	case backend.Int64:
		got, t.Data = len(c.Int64Contents), append([]int64(nil), c.Int64Contents...)
	case backend.Int32:
		got, t.Data = len(c.IntContents), append([]int32(nil), c.IntContents...)
	case backend.Bool:
		got, t.Data = len(c.BoolContents), append([]bool(nil), c.BoolContents...)
	case backend.Uint8:
		u := make([]uint8, len(c.UintContents))
		for i, x := range c.UintContents {
			if x > 255 {
				return backend.Tensor{}, fmt.Errorf("kserve: tensor %s: UINT8 element %d is out of range", name, x)
			}
			u[i] = uint8(x)
		}
		got, t.Data = len(u), u
	default:
		return backend.Tensor{}, fmt.Errorf("kserve: tensor %s: %v data must come as raw contents", name, d)
	}
	if int64(got) != n {
		return backend.Tensor{}, fmt.Errorf("kserve: tensor %s: %d elements for shape %v, want %d", name, got, shape, n)
	}
	return t, nil
}

// pbRaw returns a tensor's protocol datatype and its raw bytes (not
// copied), checked against its shape.
func pbRaw(t backend.Tensor) (string, []byte, error) {
	dt, err := Datatype(t.DType)
	if err != nil {
		return "", nil, err
	}
	b, err := rawBytes(t)
	if err != nil {
		return "", nil, err
	}
	if n := elements(t.Shape); n < 0 || n*int64(t.DType.Size()) != int64(len(b)) {
		return "", nil, fmt.Errorf("kserve: tensor %s: %d bytes of data for shape %v of %v", t.Name, len(b), t.Shape, t.DType)
	}
	return dt, b, nil
}

// pbMeta converts the gRPC model metadata to the REST one.
func pbMeta(r *pb.ModelMetadataResponse) ModelMeta {
	conv := func(ts []*pb.ModelMetadataResponse_TensorMetadata) []TensorMeta {
		out := make([]TensorMeta, len(ts))
		for i, t := range ts {
			out[i] = TensorMeta{Name: t.GetName(), Datatype: t.GetDatatype(), Shape: t.GetShape()}
		}
		return out
	}
	return ModelMeta{Name: r.GetName(), Versions: r.GetVersions(), Platform: r.GetPlatform(), Inputs: conv(r.GetInputs()), Outputs: conv(r.GetOutputs())}
}

// Timing parameters travel as int64_param.
func timingsOfPB(p map[string]*pb.InferParameter) Timings {
	return Timings{Queue: p[paramQueue].GetInt64Param(), Input: p[paramInput].GetInt64Param(), Infer: p[paramInfer].GetInt64Param(), Output: p[paramOutput].GetInt64Param()}
}

func pbTimings(tm Timings) map[string]*pb.InferParameter {
	i := func(v int64) *pb.InferParameter {
		return &pb.InferParameter{ParameterChoice: &pb.InferParameter_Int64Param{Int64Param: v}}
	}
	return map[string]*pb.InferParameter{paramQueue: i(tm.Queue), paramInput: i(tm.Input), paramInfer: i(tm.Infer), paramOutput: i(tm.Output)}
}
