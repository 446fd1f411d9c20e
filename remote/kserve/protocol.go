// Package kserve speaks the Open Inference Protocol (KServe v2) over HTTP:
// a client that is one more backend.Session, so any tensor benchmark can
// run against a remote Triton, KServe, Seldon MLServer or `mlperf serve`
// node, and an http.Handler that serves backend.Sessions the same way.
//
// Tensors travel with the binary tensor data extension (Triton's
// "binary_data", which KServe and MLServer accept too): the JSON header is
// followed by the raw little-endian element bytes, and the
// Inference-Header-Content-Length header gives the JSON's length. Plain
// JSON "data" arrays are accepted on input and decoded as well.
//
// Protocol: https://github.com/kserve/open-inference-protocol
// (specification/protocol/inference_rest.md) and Triton's
// docs/protocol/extension_binary_data.md.
package kserve

import (
	"encoding/json"
	"fmt"
	"math"
	"unsafe"

	"github.com/mlperf-go/inference/backend"
)

// HeaderLength is the HTTP header giving the JSON part's length when binary
// tensor data follows it in the body.
const HeaderLength = "Inference-Header-Content-Length"

// TensorMeta is a tensor's entry in model metadata.
type TensorMeta struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// ModelMeta is the model metadata response (GET /v2/models/{name}).
type ModelMeta struct {
	Name     string       `json:"name"`
	Versions []string     `json:"versions,omitempty"`
	Platform string       `json:"platform"`
	Inputs   []TensorMeta `json:"inputs"`
	Outputs  []TensorMeta `json:"outputs"`
}

// ServerMeta is the server metadata response (GET /v2).
type ServerMeta struct {
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Extensions []string `json:"extensions"`
}

// RequestTensor is one input of an inference request.
type RequestTensor struct {
	Name       string          `json:"name"`
	Shape      []int64         `json:"shape"`
	Datatype   string          `json:"datatype"`
	Parameters map[string]any  `json:"parameters,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
}

// RequestOutput asks for one output.
type RequestOutput struct {
	Name       string         `json:"name"`
	Parameters map[string]any `json:"parameters,omitempty"`
}

// InferRequest is the JSON part of POST /v2/models/{name}/infer.
type InferRequest struct {
	ID         string          `json:"id,omitempty"`
	Parameters map[string]any  `json:"parameters,omitempty"`
	Inputs     []RequestTensor `json:"inputs"`
	Outputs    []RequestOutput `json:"outputs,omitempty"`
}

// InferResponse is the JSON part of an inference response. Parameters of
// responses from `mlperf serve` carry the server-side timings (see
// Timings).
type InferResponse struct {
	ModelName    string          `json:"model_name"`
	ModelVersion string          `json:"model_version,omitempty"`
	ID           string          `json:"id,omitempty"`
	Parameters   map[string]any  `json:"parameters,omitempty"`
	Outputs      []RequestTensor `json:"outputs"`
}

// ErrorResponse is the body of a failed request.
type ErrorResponse struct {
	Error string `json:"error"`
}

// datatypes maps backend types to the protocol's names.
var datatypes = map[backend.DType]string{
	backend.Float32: "FP32",
	backend.Float16: "FP16",
	backend.Int64:   "INT64",
	backend.Int32:   "INT32",
	backend.Uint8:   "UINT8",
	backend.Bool:    "BOOL",
}

// Datatype returns the protocol's name of d ("FP32", ...).
func Datatype(d backend.DType) (string, error) {
	if s, ok := datatypes[d]; ok {
		return s, nil
	}
	return "", fmt.Errorf("kserve: element type %v has no Open Inference Protocol datatype", d)
}

// ParseDatatype returns the backend type of a protocol datatype name.
func ParseDatatype(s string) (backend.DType, error) {
	for d, n := range datatypes {
		if n == s {
			return d, nil
		}
	}
	return 0, fmt.Errorf("kserve: datatype %q is not one this suite's Open Inference Protocol client and server carry (FP32, FP16, INT64, INT32, UINT8, BOOL): serve a model whose inputs and outputs use those", s)
}

func metaInfo(ts []TensorMeta) ([]backend.Info, error) {
	out := make([]backend.Info, len(ts))
	for i, t := range ts {
		d, err := ParseDatatype(t.Datatype)
		if err != nil {
			return nil, fmt.Errorf("%w (tensor %s)", err, t.Name)
		}
		out[i] = backend.Info{Name: t.Name, DType: d, Shape: append([]int64(nil), t.Shape...)}
	}
	return out, nil
}

func infoMeta(is []backend.Info) []TensorMeta {
	out := make([]TensorMeta, len(is))
	for i, in := range is {
		dt, _ := Datatype(in.DType)
		out[i] = TensorMeta{Name: in.Name, Datatype: dt, Shape: append([]int64(nil), in.Shape...)}
	}
	return out
}

// elements is the element count of a shape; -1 for a negative dimension.
func elements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		if d > 0 && n > math.MaxInt64/d {
			return -1
		}
		n *= d
	}
	return n
}

// rawBytes returns the little-endian bytes of a tensor's data without
// copying. The Go platforms this project runs on (amd64, arm64) are
// little-endian, which is what the binary extension specifies.
func rawBytes(t backend.Tensor) ([]byte, error) {
	switch s := t.Data.(type) {
	case []float32:
		return sliceBytes(s, 4), nil
	case []uint16:
		return sliceBytes(s, 2), nil
	case []int64:
		return sliceBytes(s, 8), nil
	case []int32:
		return sliceBytes(s, 4), nil
	case []uint8:
		return s, nil
	case []bool:
		return sliceBytes(s, 1), nil
	}
	return nil, fmt.Errorf("kserve: tensor %s: unsupported data %T", t.Name, t.Data)
}

func sliceBytes[T any](s []T, size int) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*size)
}

// fromBytes makes a tensor of type d and shape from b (copied).
func fromBytes(name string, d backend.DType, shape []int64, b []byte) (backend.Tensor, error) {
	n := elements(shape)
	if n < 0 {
		return backend.Tensor{}, fmt.Errorf("kserve: tensor %s: bad shape %v", name, shape)
	}
	if int64(len(b)) != n*int64(d.Size()) {
		return backend.Tensor{}, fmt.Errorf("kserve: tensor %s: %d bytes for shape %v of %v, want %d", name, len(b), shape, d, n*int64(d.Size()))
	}
	t := backend.Tensor{Name: name, DType: d, Shape: append([]int64(nil), shape...)}
	switch d {
	case backend.Float32:
		v := make([]float32, n)
		copy(sliceBytes(v, 4), b)
		t.Data = v
	case backend.Float16:
		v := make([]uint16, n)
		copy(sliceBytes(v, 2), b)
		t.Data = v
	case backend.Int64:
		v := make([]int64, n)
		copy(sliceBytes(v, 8), b)
		t.Data = v
	case backend.Int32:
		v := make([]int32, n)
		copy(sliceBytes(v, 4), b)
		t.Data = v
	case backend.Uint8:
		t.Data = append([]uint8(nil), b...)
	case backend.Bool:
		v := make([]bool, n)
		for i, x := range b {
			v[i] = x != 0
		}
		t.Data = v
	}
	return t, nil
}

// fromJSON decodes a plain JSON "data" array (flat, row-major).
func fromJSON(name string, d backend.DType, shape []int64, data json.RawMessage) (backend.Tensor, error) {
	n := elements(shape)
	if n < 0 {
		return backend.Tensor{}, fmt.Errorf("kserve: tensor %s: bad shape %v", name, shape)
	}
	bad := func(err error) (backend.Tensor, error) {
		return backend.Tensor{}, fmt.Errorf("kserve: tensor %s: data is not a flat array of %v: %v", name, d, err)
	}
	t := backend.Tensor{Name: name, DType: d, Shape: append([]int64(nil), shape...)}
	var err error
	var got int
	switch d {
	case backend.Float32:
		var v []float32
		err = json.Unmarshal(data, &v)
		got, t.Data = len(v), v
	case backend.Int64:
		var v []int64
		err = json.Unmarshal(data, &v)
		got, t.Data = len(v), v
	case backend.Int32:
		var v []int32
		err = json.Unmarshal(data, &v)
		got, t.Data = len(v), v
	case backend.Uint8:
		var v []uint16
		err = json.Unmarshal(data, &v)
		u := make([]uint8, len(v))
		for i, x := range v {
			if x > 255 {
				return bad(fmt.Errorf("%d is out of range", x))
			}
			u[i] = uint8(x)
		}
		got, t.Data = len(u), u
	case backend.Bool:
		var v []bool
		err = json.Unmarshal(data, &v)
		got, t.Data = len(v), v
	default:
		return bad(fmt.Errorf("JSON data of this type is not supported; send binary data"))
	}
	if err != nil {
		return bad(err)
	}
	if int64(got) != n {
		return backend.Tensor{}, fmt.Errorf("kserve: tensor %s: %d elements for shape %v, want %d", name, got, shape, n)
	}
	return t, nil
}

// binarySize reads the binary_data_size parameter (-1: absent).
func binarySize(p map[string]any) (int64, error) {
	v, ok := p["binary_data_size"]
	if !ok {
		return -1, nil
	}
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) {
		return 0, fmt.Errorf("kserve: binary_data_size %v is not a non-negative integer", v)
	}
	return int64(f), nil
}

// encodeBody writes the JSON header v followed by the binary payloads, and
// returns the body and the JSON part's length.
func encodeBody(v any, payloads [][]byte) ([]byte, int, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, 0, fmt.Errorf("kserve: encoding the request: %w", err)
	}
	n := len(js)
	for _, p := range payloads {
		n += len(p)
	}
	body := make([]byte, 0, n)
	body = append(body, js...)
	for _, p := range payloads {
		body = append(body, p...)
	}
	return body, len(js), nil
}

// splitBody separates the JSON header from the binary data of a body whose
// JSON part is jsonLen bytes (-1: the whole body is JSON).
func splitBody(body []byte, jsonLen int64) (js, bin []byte, err error) {
	if jsonLen < 0 {
		return body, nil, nil
	}
	if jsonLen > int64(len(body)) {
		return nil, nil, fmt.Errorf("kserve: %s %d exceeds the body's %d bytes", HeaderLength, jsonLen, len(body))
	}
	return body[:jsonLen], body[jsonLen:], nil
}

// decodeTensors turns the tensors of a request or response into backend
// tensors, taking binary data from bin in order.
func decodeTensors(ts []RequestTensor, bin []byte) ([]backend.Tensor, error) {
	out := make([]backend.Tensor, len(ts))
	off := int64(0)
	for i, t := range ts {
		d, err := ParseDatatype(t.Datatype)
		if err != nil {
			return nil, fmt.Errorf("%w (tensor %s)", err, t.Name)
		}
		size, err := binarySize(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("%w (tensor %s)", err, t.Name)
		}
		if size >= 0 {
			if off+size > int64(len(bin)) {
				return nil, fmt.Errorf("kserve: tensor %s: binary data runs past the body (%d+%d > %d bytes)", t.Name, off, size, len(bin))
			}
			out[i], err = fromBytes(t.Name, d, t.Shape, bin[off:off+size])
			off += size
		} else {
			out[i], err = fromJSON(t.Name, d, t.Shape, t.Data)
		}
		if err != nil {
			return nil, err
		}
	}
	if off != int64(len(bin)) {
		return nil, fmt.Errorf("kserve: %d bytes of binary data left over after the tensors", int64(len(bin))-off)
	}
	return out, nil
}

// encodeTensors describes tensors as binary-data entries and returns their
// payloads.
func encodeTensors(ts []backend.Tensor) ([]RequestTensor, [][]byte, error) {
	meta := make([]RequestTensor, len(ts))
	payloads := make([][]byte, len(ts))
	for i, t := range ts {
		dt, err := Datatype(t.DType)
		if err != nil {
			return nil, nil, err
		}
		b, err := rawBytes(t)
		if err != nil {
			return nil, nil, err
		}
		if n := elements(t.Shape); n < 0 || n*int64(t.DType.Size()) != int64(len(b)) {
			return nil, nil, fmt.Errorf("kserve: tensor %s: %d bytes of data for shape %v of %v", t.Name, len(b), t.Shape, t.DType)
		}
		meta[i] = RequestTensor{Name: t.Name, Shape: t.Shape, Datatype: dt, Parameters: map[string]any{"binary_data_size": len(b)}}
		payloads[i] = b
	}
	return meta, payloads, nil
}
