package kserve

// The JSON headers of inference requests and responses on the hot path,
// written and read without encoding/json's reflection and without the
// map[string]any parameters it decodes into: at tens of thousands of small
// requests per second the reflective encoding was a fifth of the CPU of a
// loopback round trip. Each fast function handles the plain shape that
// this package's client and server send (ASCII names, integer sizes and
// timings, binary tensor data) and reports false for anything else, and
// its caller then uses encoding/json as before; so behaviour, including
// every error message, stays encoding/json's.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/mlperf-go/inference/backend"
)

// plain reports whether encoding/json writes s as itself between quotes:
// printable ASCII without the characters it escapes (" \ < > &).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// AppendShape appends a tensor shape as encoding/json writes it ([]int64;
// nil: null), as KServe v2 requests carry it.
func AppendShape(b []byte, shape []int64) []byte {
	if shape == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, d := range shape {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, d, 10)
	}
	return append(b, ']')
}

// appendParams writes a parameters map whose keys are plain and whose
// values are integers or booleans, keys sorted as encoding/json sorts
// them; false for any other map.
func appendParams(b []byte, p map[string]any) ([]byte, bool) {
	b = append(b, '{')
	var keys [8]string
	ks := keys[:0]
	for k := range p {
		if !plain(k) {
			return b, false
		}
		ks = append(ks, k)
	}
	if len(ks) > 1 {
		slices.Sort(ks)
	}
	for i, k := range ks {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, k)
		b = append(b, ':')
		switch v := p[k].(type) {
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case bool:
			b = strconv.AppendBool(b, v)
		default:
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendTensors writes RequestTensors without JSON data as encoding/json
// does; false where one has data or a name or parameter it cannot write.
func appendTensors(b []byte, ts []RequestTensor) ([]byte, bool) {
	b = append(b, '[')
	for i, t := range ts {
		if len(t.Data) > 0 || !plain(t.Name) || !plain(t.Datatype) {
			return b, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendQuoted(b, t.Name)
		b = append(b, `,"shape":`...)
		b = AppendShape(b, t.Shape)
		b = append(b, `,"datatype":`...)
		b = appendQuoted(b, t.Datatype)
		if len(t.Parameters) > 0 {
			var ok bool
			b = append(b, `,"parameters":`...)
			if b, ok = appendParams(b, t.Parameters); !ok {
				return b, false
			}
		}
		b = append(b, '}')
	}
	return append(b, ']'), true
}

// appendResponse writes r as json.Marshal does, or reports false.
func appendResponse(b []byte, r *InferResponse) ([]byte, bool) {
	if !plain(r.ModelName) || !plain(r.ModelVersion) || !plain(r.ID) {
		return b, false
	}
	b = append(b, `{"model_name":`...)
	b = appendQuoted(b, r.ModelName)
	if r.ModelVersion != "" {
		b = append(b, `,"model_version":`...)
		b = appendQuoted(b, r.ModelVersion)
	}
	if r.ID != "" {
		b = append(b, `,"id":`...)
		b = appendQuoted(b, r.ID)
	}
	ok := true
	if len(r.Parameters) > 0 {
		b = append(b, `,"parameters":`...)
		if b, ok = appendParams(b, r.Parameters); !ok {
			return b, false
		}
	}
	b = append(b, `,"outputs":`...)
	if r.Outputs == nil {
		b = append(b, "null"...)
	} else if b, ok = appendTensors(b, r.Outputs); !ok {
		return b, false
	}
	return append(b, '}'), true
}

// encodeResponse is encodeBody for an inference response: the JSON header
// written by appendResponse where it can, by encoding/json otherwise.
func encodeResponse(r *InferResponse, payloads [][]byte) ([]byte, int, error) {
	n := 256
	for _, p := range payloads {
		n += len(p)
	}
	body, ok := appendResponse(make([]byte, 0, n), r)
	if !ok {
		return encodeBody(r, payloads)
	}
	jsonLen := len(body)
	for _, p := range payloads {
		body = append(body, p...)
	}
	return body, jsonLen, nil
}

// appendRequest writes the JSON header of an inference request for the
// tensors in (their data going as binary) and the outputs wanted as
// binary data, as json.Marshal writes the InferRequest the client used to
// build, and returns the tensors' payloads; false (and no error) where a
// name is not plain. The errors are encodeTensors'.
func appendRequest(b []byte, in []backend.Tensor, outputs []backend.Info, payloads [][]byte) ([]byte, [][]byte, bool, error) {
	for _, t := range in {
		if !plain(t.Name) {
			return b, nil, false, nil
		}
	}
	for _, o := range outputs {
		if !plain(o.Name) {
			return b, nil, false, nil
		}
	}
	b = append(b, `{"inputs":[`...)
	for i, t := range in {
		dt, err := Datatype(t.DType)
		if err != nil {
			return b, nil, false, err
		}
		raw, err := rawBytes(t)
		if err != nil {
			return b, nil, false, err
		}
		if n := elements(t.Shape); n < 0 || n*int64(t.DType.Size()) != int64(len(raw)) {
			_, _, err := encodeTensors(in[i : i+1]) // the same error
			return b, nil, false, err
		}
		payloads = append(payloads, raw)
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendQuoted(b, t.Name)
		b = append(b, `,"shape":`...)
		b = AppendShape(b, t.Shape)
		b = append(b, `,"datatype":"`...)
		b = append(b, dt...)
		b = append(b, `","parameters":{"binary_data_size":`...)
		b = strconv.AppendInt(b, int64(len(raw)), 10)
		b = append(b, "}}"...)
	}
	b = append(b, ']')
	if len(outputs) > 0 {
		b = append(b, `,"outputs":[`...)
		for i, o := range outputs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendQuoted(b, o.Name)
			b = append(b, `,"parameters":{"binary_data":true}}`...)
		}
		b = append(b, ']')
	}
	return append(b, '}'), payloads, true, nil
}

// scanner reads the plain subset of JSON the fast parsers accept. Any
// input outside it sets bad; the parsers then give up.
type scanner struct {
	b   []byte
	i   int
	bad bool
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte (0 at the end).
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// expect consumes c after white space.
func (s *scanner) expect(c byte) {
	if s.peek() != c {
		s.bad = true
		return
	}
	s.i++
}

// raw reads a string of printable ASCII without escapes and returns its
// bytes (in the input).
func (s *scanner) raw() []byte {
	if s.peek() != '"' {
		s.bad = true
		return nil
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			s.i++
			return s.b[start : s.i-1]
		}
		if c < 0x20 || c > 0x7e || c == '\\' {
			break
		}
		s.i++
	}
	s.bad = true
	return nil
}

// str is raw as a string.
func (s *scanner) str() string { return string(s.raw()) }

// int reads an integer of at most 15 digits (exact as a float64), as
// JSON writes it: no leading zeros, no fraction or exponent.
func (s *scanner) int() int64 {
	s.ws()
	neg := false
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	start := s.i
	var v int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = v*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	n := s.i - start
	if n == 0 || n > 15 || (n > 1 && s.b[start] == '0') {
		s.bad = true
		return 0
	}
	if s.i < len(s.b) {
		if c := s.b[s.i]; c == '.' || c == 'e' || c == 'E' {
			s.bad = true
			return 0
		}
	}
	if neg {
		v = -v
	}
	return v
}

// word consumes the literal w (true, false).
func (s *scanner) word(w string) bool {
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	s.bad = true
	return false
}

// object calls field for each key of an object; duplicate keys are
// beyond the subset (encoding/json keeps the last one).
func (s *scanner) object(field func(key []byte)) {
	s.expect('{')
	if s.peek() == '}' {
		s.i++
		return
	}
	var seen [8][]byte
	keys := seen[:0]
	for !s.bad {
		k := s.raw()
		if slices.ContainsFunc(keys, func(o []byte) bool { return bytes.Equal(o, k) }) {
			s.bad = true
		}
		keys = append(keys, k)
		s.expect(':')
		if s.bad {
			return
		}
		field(k)
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.bad = true
		}
	}
}

// array calls elem for each element of an array.
func (s *scanner) array(elem func()) {
	s.expect('[')
	if s.peek() == ']' {
		s.i++
		return
	}
	for !s.bad {
		elem()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.bad = true
		}
	}
}

// shape reads an array of integers (an empty array: a non-nil empty
// shape, as encoding/json decodes it).
func (s *scanner) shape() []int64 {
	out := make([]int64, 0, 4)
	s.array(func() { out = append(out, s.int()) })
	return out
}

// value reads a parameter value: an integer or a boolean.
func (s *scanner) value() (n int64, isBool, b bool) {
	switch s.peek() {
	case 't':
		return 0, true, s.word("true")
	case 'f':
		s.word("false")
		return 0, true, false
	}
	return s.int(), false, false
}

// param is value as encoding/json decodes it into an any (an integer as
// a float64).
func (s *scanner) param() any {
	n, isBool, b := s.value()
	if isBool {
		return b
	}
	return float64(n)
}

// params reads a parameters object into the map encoding/json would make.
func (s *scanner) params() map[string]any {
	p := make(map[string]any, 2)
	s.object(func(k []byte) { p[string(k)] = s.param() })
	return p
}

// end checks that only white space follows.
func (s *scanner) end() {
	if s.peek() != 0 || s.i != len(s.b) {
		s.bad = true
	}
}

// tensor reads one tensor entry without JSON data.
func (s *scanner) tensor() RequestTensor {
	var t RequestTensor
	s.object(func(k []byte) {
		switch string(k) {
		case "name":
			t.Name = s.str()
		case "shape":
			t.Shape = s.shape()
		case "datatype":
			t.Datatype = s.str()
		case "parameters":
			t.Parameters = s.params()
		default:
			s.bad = true
		}
	})
	return t
}

// parseRequest decodes the plain subset of an inference request's JSON
// into req exactly as json.Unmarshal would; false (req then undefined)
// outside it.
func parseRequest(js []byte, req *InferRequest) bool {
	s := scanner{b: js}
	*req = InferRequest{}
	s.object(func(k []byte) {
		switch string(k) {
		case "id":
			req.ID = s.str()
		case "parameters":
			req.Parameters = s.params()
		case "inputs":
			req.Inputs = make([]RequestTensor, 0, 1)
			s.array(func() { req.Inputs = append(req.Inputs, s.tensor()) })
		case "outputs":
			req.Outputs = make([]RequestOutput, 0, 1)
			s.array(func() {
				var o RequestOutput
				s.object(func(k []byte) {
					switch string(k) {
					case "name":
						o.Name = s.str()
					case "parameters":
						o.Parameters = s.params()
					default:
						s.bad = true
					}
				})
				req.Outputs = append(req.Outputs, o)
			})
		default:
			s.bad = true
		}
	})
	s.end()
	return !s.bad
}

// unmarshalRequest is json.Unmarshal of an inference request, by
// parseRequest where it can.
func unmarshalRequest(js []byte, req *InferRequest) error {
	if parseRequest(js, req) {
		return nil
	}
	*req = InferRequest{}
	return json.Unmarshal(js, req)
}

// answer is the plain subset of an inference response as the client
// uses it: the outputs, all with binary data, and the server's timings.
type answer struct {
	outputs []answerTensor
	t       Timings
}

type answerTensor struct {
	name, datatype string
	shape          []int64
	size           int64 // binary_data_size
}

// parseAnswer reads the plain subset of an inference response's JSON
// without the maps encoding/json decodes parameters into: the same
// outputs and timings, or false outside the subset (a tensor without a
// non-negative binary_data_size included).
func parseAnswer(js []byte, a *answer) bool {
	s := scanner{b: js}
	*a = answer{}
	s.object(func(k []byte) {
		switch string(k) {
		case "model_name", "model_version", "id":
			s.raw()
		case "parameters":
			s.object(func(k []byte) {
				n, isBool, _ := s.value()
				if isBool {
					n = 0 // not a number: no timing, as timingsOf reads it
				}
				switch string(k) {
				case paramQueue:
					a.t.Queue = n
				case paramInput:
					a.t.Input = n
				case paramInfer:
					a.t.Infer = n
				case paramOutput:
					a.t.Output = n
				}
			})
		case "outputs":
			a.outputs = make([]answerTensor, 0, 1)
			s.array(func() {
				t := answerTensor{size: -1}
				s.object(func(k []byte) {
					switch string(k) {
					case "name":
						t.name = s.str()
					case "shape":
						t.shape = s.shape()
					case "datatype":
						t.datatype = s.str()
					case "parameters":
						s.object(func(k []byte) {
							n, isBool, _ := s.value()
							if string(k) == "binary_data_size" {
								if isBool || n < 0 {
									s.bad = true
								}
								t.size = n
							}
						})
					default:
						s.bad = true
					}
				})
				if t.size < 0 {
					s.bad = true
				}
				a.outputs = append(a.outputs, t)
			})
		default:
			s.bad = true
		}
	})
	s.end()
	return !s.bad
}

// decode is decodeTensors of the answer's outputs; false where that
// fails (the caller then decodes the slow way, for its error).
func (a *answer) decode(bin []byte) ([]backend.Tensor, bool) {
	out := make([]backend.Tensor, len(a.outputs))
	off := int64(0)
	for i, t := range a.outputs {
		d, err := ParseDatatype(t.datatype)
		if err != nil || off+t.size > int64(len(bin)) {
			return nil, false
		}
		if out[i], err = fromBytes(t.name, d, t.shape, bin[off:off+t.size]); err != nil {
			return nil, false
		}
		off += t.size
	}
	return out, off == int64(len(bin))
}
