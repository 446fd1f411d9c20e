package kserve

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
)

// oldRequest is the request header as the client wrote it with
// encoding/json before appendRequest: the reference appendRequest must
// match byte for byte.
func oldRequest(t *testing.T, in []backend.Tensor, outputs []backend.Info) []byte {
	t.Helper()
	meta, _, err := encodeTensors(in)
	if err != nil {
		t.Fatal(err)
	}
	req := InferRequest{Inputs: meta, Outputs: make([]RequestOutput, len(outputs))}
	for i, o := range outputs {
		req.Outputs[i] = RequestOutput{Name: o.Name, Parameters: map[string]any{"binary_data": true}}
	}
	js, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func TestAppendRequestMatchesEncodingJSON(t *testing.T) {
	f32 := backend.Tensor{Name: "x", DType: backend.Float32, Shape: []int64{2, 3}, Data: make([]float32, 6)}
	cases := []struct {
		name string
		in   []backend.Tensor
		out  []backend.Info
	}{
		{"one in one out", []backend.Tensor{f32}, []backend.Info{{Name: "y"}}},
		{"no outputs", []backend.Tensor{f32}, nil},
		{"no inputs", nil, []backend.Info{{Name: "y"}, {Name: "z"}}},
		{"all types", []backend.Tensor{
			{Name: "a", DType: backend.Float16, Shape: []int64{1, 2}, Data: []uint16{1, 2}},
			{Name: "b", DType: backend.Int64, Shape: []int64{3}, Data: []int64{1, 2, 3}},
			{Name: "c_d.e:0", DType: backend.Int32, Shape: []int64{0}, Data: []int32{}},
			{Name: "scalar", DType: backend.Uint8, Shape: nil, Data: []uint8{7}},
			{Name: "empty shape", DType: backend.Bool, Shape: []int64{}, Data: []bool{true}},
		}, []backend.Info{{Name: "ArgMax:0"}, {Name: "p/q"}}},
	}
	for _, c := range cases {
		got, payloads, ok, err := appendRequest(nil, c.in, c.out, nil)
		if err != nil || !ok {
			t.Fatalf("%s: ok=%v err=%v", c.name, ok, err)
		}
		if want := oldRequest(t, c.in, c.out); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
		if len(payloads) != len(c.in) {
			t.Errorf("%s: %d payloads for %d tensors", c.name, len(payloads), len(c.in))
		}
	}
	// Names encoding/json escapes are left to it.
	for _, name := range []string{`a"b`, `a\b`, "a<b", "a&b", "é", "a\nb"} {
		in := []backend.Tensor{f32}
		in[0].Name = name
		if _, _, ok, err := appendRequest(nil, in, nil, nil); ok || err != nil {
			t.Errorf("input %q: ok=%v err=%v, want not handled", name, ok, err)
		}
		if _, _, ok, err := appendRequest(nil, []backend.Tensor{f32}, []backend.Info{{Name: name}}, nil); ok || err != nil {
			t.Errorf("output %q: ok=%v err=%v, want not handled", name, ok, err)
		}
	}
	// Bad tensors fail with encodeTensors' errors.
	for _, bad := range []backend.Tensor{
		{Name: "x", DType: backend.Float32, Shape: []int64{2, 2}, Data: make([]float32, 3)},
		{Name: "x", DType: backend.Float32, Shape: []int64{-1}, Data: make([]float32, 3)},
		{Name: "x", DType: backend.Float32, Shape: []int64{3}, Data: "nope"},
		{Name: "x", DType: backend.DType(99), Shape: []int64{1}, Data: []float32{1}},
	} {
		_, _, want := encodeTensors([]backend.Tensor{bad})
		_, _, _, err := appendRequest(nil, []backend.Tensor{f32, bad}, nil, nil)
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("tensor %+v: error %v, want %v", bad, err, want)
		}
	}
}

func TestAppendResponseMatchesEncodingJSON(t *testing.T) {
	outs := []RequestTensor{
		{Name: "y", Shape: []int64{1, 3}, Datatype: "FP32", Parameters: map[string]any{"binary_data_size": 12}},
		{Name: "n", Shape: nil, Datatype: "INT64", Parameters: map[string]any{"binary_data_size": int64(8), "binary_data": true, "z": false}},
		{Name: "e", Shape: []int64{}, Datatype: "BOOL"},
	}
	timings := map[string]any{paramQueue: int64(4), paramInput: int64(-2), paramInfer: int64(1 << 40), paramOutput: int64(0)}
	many := map[string]any{}
	for _, k := range strings.Split("k j i h g f e d c b a", " ") {
		many[k] = len(k)
	}
	for _, r := range []InferResponse{
		{ModelName: "m", ModelVersion: "1", Parameters: timings, Outputs: outs},
		{ModelName: "m", ID: "req-7", Outputs: outs[:1]},
		{ModelName: "", Outputs: nil},
		{ModelName: "m", Outputs: []RequestTensor{}, Parameters: many},
	} {
		got, ok := appendResponse(nil, &r)
		want, _ := json.Marshal(r)
		if !ok || string(got) != string(want) {
			t.Errorf("ok=%v\n got %s\nwant %s", ok, got, want)
		}
		body, n, err := encodeResponse(&r, [][]byte{{1, 2}, {3}})
		if err != nil || n != len(want) || string(body) != string(want)+"\x01\x02\x03" {
			t.Errorf("encodeResponse: %q, %d, %v", body, n, err)
		}
	}
	// What it does not write, encodeResponse leaves to encoding/json.
	for _, r := range []InferResponse{
		{ModelName: "m<1>"},
		{ModelName: "m", ModelVersion: "1&2"},
		{ModelName: "m", ID: "\u2028"},
		{ModelName: "m", Parameters: map[string]any{"t": 1.5}},
		{ModelName: "m", Parameters: map[string]any{"a&b": 1}},
		{ModelName: "m", Outputs: []RequestTensor{{Name: "y", Datatype: "FP32", Data: json.RawMessage("[1]")}}},
		{ModelName: "m", Outputs: []RequestTensor{{Name: "y", Datatype: "FP32", Parameters: map[string]any{"s": "x"}}}},
	} {
		if _, ok := appendResponse(nil, &r); ok {
			t.Errorf("%+v: handled, want left to encoding/json", r)
		}
		want, _ := json.Marshal(r)
		body, n, err := encodeResponse(&r, nil)
		if err != nil || string(body) != string(want) || n != len(want) {
			t.Errorf("encodeResponse(%+v) = %s, %v; want %s", r, body, err, want)
		}
	}
}

// respCases and reqCases are response and request headers the fast
// parsers must decode exactly as encoding/json does.
var respCases = []string{
	`{"model_name":"m","model_version":"1","parameters":{"compute_infer_ns":12,"compute_input_ns":3,"compute_output_ns":4,"queue_ns":0},"outputs":[{"name":"y","shape":[1,3],"datatype":"FP32","parameters":{"binary_data_size":12}}]}`,
	` { "model_name" : "m" , "outputs" : [ ] , "id" : "" } `,
	"{\"model_name\":\"m\",\n\t\"outputs\":[{\"name\":\"y\",\"shape\":[],\"datatype\":\"BOOL\",\"parameters\":{\"binary_data\":true,\"binary_data_size\":1}}],\r\"parameters\":{\"x\":-7,\"compute_infer_ns\":-9,\"queue_ns\":true,\"c\":false}}",
	`{"model_name":"m","outputs":[{"name":"a","shape":[2,1],"datatype":"INT32","parameters":{"binary_data_size":8}},{"name":"b","shape":[0],"datatype":"FP16","parameters":{"binary_data_size":0}},{"name":"c","shape":[3],"datatype":"UINT8","parameters":{"binary_data_size":3}}]}`,
	`{}`,
}

var reqCases = []string{
	`{"inputs":[{"name":"x","shape":[1,16],"datatype":"FP32","parameters":{"binary_data_size":64}}],"outputs":[{"name":"y","parameters":{"binary_data":true}}]}`,
	`{"id":"r1","inputs":[{"name":"a","shape":[2],"datatype":"INT64","parameters":{"binary_data_size":16}},{"name":"b","shape":[0],"datatype":"UINT8","parameters":{"binary_data_size":0}}],"outputs":[{"name":"y"}],"parameters":{"p":1}}`,
	`{"inputs":[]}`,
	`{}`,
}

// slowCases are well-formed headers beyond the fast subset, and malformed
// ones: the fast parsers must refuse them, leaving them (and their error
// messages) to encoding/json.
var slowCases = []string{
	``, ` `, `{`, `}`, `[]`, `null`, `{"outputs":[}`, `{"outputs":[{]}`, `{"model_name":"m"`, `{"model_name":"m",}`,
	`{"model_name":"m"}x`, `{"model_name":"m"}{}`, `{"model_name" "m"}`, `{model_name:"m"}`,
	`{"model_name":"m","model_name":"n"}`, `{"Model_Name":"m"}`, `{"unknown":1}`, `{"model_name":null}`,
	`{"model_name":"a\"b"}`, `{"model_name":"\u00e9"}`, `{"model_name":"é"}`, "{\"model_name\":\"a\tb\"}",
	`{"parameters":{"t":1.5}}`, `{"parameters":{"t":1e3}}`, `{"parameters":{"t":01}}`, `{"parameters":{"t":-}}`,
	`{"parameters":{"t":1234567890123456}}`, `{"parameters":{"t":"s"}}`, `{"parameters":{"t":null}}`,
	`{"parameters":{"t":[1]}}`, `{"parameters":{"t":{}}}`, `{"parameters":{"t":tru}}`, `{"parameters":{"t":+1}}`,
	`{"outputs":[{"name":"y","data":[1,2]}]}`, `{"outputs":[{"name":"y","shape":null}]}`, `{"outputs":[{"name":"y","shape":[1.0]}]}`,
	`{"outputs":[{"name":"y","shape":[1,]}]}`, `{"outputs":[{"name":"y"},]}`, `{"outputs":[{"name":"y"} {"name":"z"}]}`,
	`{"inputs":[{"name":"x","shape":[1],"datatype":"FP32","parameters":{"binary_data_size":4},"name":"z"}]}`,
	`{"outputs":[{"name":"y","parameters":{"binary_data":true,"binary_data":false}}]}`,
	`{"inputs":{"name":"x"}}`, `{"outputs":"y"}`, "\x00{}",
}

// slowAnswer is what the client made of a response header before
// parseAnswer: encoding/json, decodeTensors and timingsOf.
func slowAnswer(js, bin []byte) ([]backend.Tensor, Timings, error) {
	var ir InferResponse
	if err := json.Unmarshal(js, &ir); err != nil {
		return nil, Timings{}, err
	}
	out, err := decodeTensors(ir.Outputs, bin)
	return out, timingsOf(ir.Parameters), err
}

// binFor makes binary data of the sizes the header's outputs declare.
func binFor(t *testing.T, js []byte) []byte {
	var ir InferResponse
	if err := json.Unmarshal(js, &ir); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	var bin []byte
	for i, o := range ir.Outputs {
		n, _ := binarySize(o.Parameters)
		if n > 1<<16 {
			t.Skip("binary data too large to make")
		}
		for k := int64(0); k < n; k++ {
			bin = append(bin, byte(i+1))
		}
	}
	return bin
}

func TestParseAnswerMatchesEncodingJSON(t *testing.T) {
	for _, js := range respCases {
		bin := binFor(t, []byte(js))
		want, wantT, err := slowAnswer([]byte(js), bin)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		var a answer
		if !parseAnswer([]byte(js), &a) {
			t.Errorf("%s: not parsed", js)
			continue
		}
		got, ok := a.decode(bin)
		if !ok || !reflect.DeepEqual(got, want) || a.t != wantT {
			t.Errorf("%s:\n got %#v %+v\nwant %#v %+v", js, got, a.t, want, wantT)
		}
		// Binary data that does not fit the header is the slow path's
		// to report.
		for _, b := range [][]byte{append(bin, 0), bin[:len(bin)/2]} {
			if len(b) == len(bin) {
				continue
			}
			if _, ok := a.decode(b); ok {
				t.Errorf("%s: %d bytes of binary data for %d decoded", js, len(b), len(bin))
			}
		}
	}
	for _, js := range slices.Concat(slowCases, []string{
		`{"outputs":[{"name":"y","shape":[1],"datatype":"FP32"}]}`,
		`{"outputs":[{"name":"y","shape":[1],"datatype":"FP32","parameters":{"binary_data_size":-4}}]}`,
		`{"outputs":[{"name":"y","shape":[1],"datatype":"FP32","parameters":{"binary_data_size":true}}]}`,
		`{"outputs":[{"name":"y","shape":[1],"datatype":"FP32","parameters":{"binary_data":true}}]}`,
	}) {
		var a answer
		if parseAnswer([]byte(js), &a) {
			t.Errorf("%q: parsed, want left to encoding/json", js)
		}
	}
	// A datatype or shape decodeTensors refuses is left to it too.
	for _, js := range []string{
		`{"outputs":[{"name":"y","shape":[1],"datatype":"FP64","parameters":{"binary_data_size":8}}]}`,
		`{"outputs":[{"name":"y","shape":[2],"datatype":"FP32","parameters":{"binary_data_size":4}}]}`,
		`{"outputs":[{"name":"y","shape":[-1],"datatype":"FP32","parameters":{"binary_data_size":4}}]}`,
	} {
		var a answer
		if !parseAnswer([]byte(js), &a) {
			t.Fatalf("%s: not parsed", js)
		}
		bin := binFor(t, []byte(js))
		if _, ok := a.decode(bin); ok {
			t.Errorf("%s: decoded", js)
		}
		if _, _, err := slowAnswer([]byte(js), bin); err == nil {
			t.Errorf("%s: the slow path decodes it", js)
		}
	}
}

func TestParseRequestMatchesEncodingJSON(t *testing.T) {
	for _, js := range reqCases {
		var want InferRequest
		if err := json.Unmarshal([]byte(js), &want); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		var got InferRequest
		if !parseRequest([]byte(js), &got) {
			t.Errorf("%s: not parsed", js)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", js, got, want)
		}
	}
	for _, js := range slowCases {
		var got, want InferRequest
		if parseRequest([]byte(js), &got) {
			t.Errorf("%q: parsed, want left to encoding/json", js)
		}
		errWant := json.Unmarshal([]byte(js), &want)
		err := unmarshalRequest([]byte(js), &got)
		if (err == nil) != (errWant == nil) || (err != nil && err.Error() != errWant.Error()) || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: unmarshalRequest = %#v, %v; want %#v, %v", js, got, err, want, errWant)
		}
	}
}

// The fast parsers accept nothing encoding/json would decode otherwise
// (go test -fuzz FuzzParseHeaders ./remote/kserve).
func FuzzParseHeaders(f *testing.F) {
	for _, js := range slices.Concat(respCases, reqCases, slowCases) {
		f.Add([]byte(js))
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		var a answer
		if parseAnswer(js, &a) {
			bin := binFor(t, js)
			want, wantT, err := slowAnswer(js, bin)
			got, ok := a.decode(bin)
			if ok != (err == nil) || (ok && (!reflect.DeepEqual(got, want) || a.t != wantT)) {
				t.Fatalf("%q: parseAnswer %#v %+v, %v; encoding/json %#v %+v, %v", js, got, a.t, ok, want, wantT, err)
			}
		}
		var q, qw InferRequest
		if parseRequest(js, &q) {
			if err := json.Unmarshal(js, &qw); err != nil || !reflect.DeepEqual(q, qw) {
				t.Fatalf("%q: parseRequest %#v; encoding/json %#v, %v", js, q, qw, err)
			}
		}
	})
}

// plain is true for 0x20 to 0x7e less " \\ < > & (and false for every
// other byte, 0x1f and 0x7f included); what it accepts, encoding/json
// writes as itself.
func TestPlainMatchesEncodingJSON(t *testing.T) {
	for c := range 256 {
		s := string([]byte{byte(c)})
		want := c >= 0x20 && c <= 0x7e && !strings.ContainsRune(`"\<>&`, rune(c))
		if got := plain(s); got != want {
			t.Errorf("plain(%q) = %v, want %v", s, got, want)
		}
		if js, _ := json.Marshal(s); want && string(js) != `"`+s+`"` {
			t.Errorf("plain(%q), but encoding/json writes %s", s, js)
		}
	}
}
