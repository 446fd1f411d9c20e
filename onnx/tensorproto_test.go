package onnx

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// elementsAsStrings renders a Go slice from ReadTensor in want.txt's
// notation: float types as float.hex() values, integers and bools in
// decimal.
func elementsAsStrings(t *testing.T, dt DType, v any) []string {
	t.Helper()
	var out []string
	hex := func(f float64) string {
		switch {
		case math.IsNaN(f):
			return "nan"
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		}
		return strconv.FormatFloat(f, 'x', -1, 64)
	}
	switch s := v.(type) {
	case []float32:
		for _, x := range s {
			out = append(out, hex(float64(x)))
		}
	case []float64:
		for _, x := range s {
			out = append(out, hex(x))
		}
	case []uint16:
		for _, x := range s {
			if dt == Float16 {
				out = append(out, hex(float64(Float16ToFloat32(x))))
			} else {
				out = append(out, strconv.FormatUint(uint64(x), 10))
			}
		}
	case []int64:
		for _, x := range s {
			out = append(out, strconv.FormatInt(x, 10))
		}
	case []int32:
		for _, x := range s {
			out = append(out, strconv.FormatInt(int64(x), 10))
		}
	case []int16:
		for _, x := range s {
			out = append(out, strconv.FormatInt(int64(x), 10))
		}
	case []int8:
		for _, x := range s {
			out = append(out, strconv.FormatInt(int64(x), 10))
		}
	case []uint8:
		for _, x := range s {
			out = append(out, strconv.FormatUint(uint64(x), 10))
		}
	case []uint32:
		for _, x := range s {
			out = append(out, strconv.FormatUint(uint64(x), 10))
		}
	case []uint64:
		for _, x := range s {
			out = append(out, strconv.FormatUint(x, 10))
		}
	case []bool:
		for _, x := range s {
			out = append(out, map[bool]string{false: "0", true: "1"}[x])
		}
	default:
		t.Fatalf("unexpected data type %T", v)
	}
	return out
}

// normHex rewrites Python's float.hex() spelling to Go's, so both sides
// compare as strings (exactly, bit for bit).
func normHex(t *testing.T, s string) string {
	t.Helper()
	switch s {
	case "nan", "inf", "-inf":
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s // an integer
	}
	if strings.Contains(s, "0x") {
		return strconv.FormatFloat(f, 'x', -1, 64)
	}
	return s
}

// TestReadTensorMatchesONNXPythonFiles reads TensorProtos written by the
// reference onnx Python package (raw_data and every typed field) and checks
// name, type, dims and every element bit for bit.
func TestReadTensorMatchesONNXPythonFiles(t *testing.T) {
	dir := filepath.Join("testdata", "tensorproto")
	f, err := os.Open(filepath.Join(dir, "want.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		file, name := fields[0], fields[1]
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		n++
		got, err := ReadTensor(b)
		if fields[2] == "error" {
			if !errors.Is(err, ErrUnsupportedTensor) || !strings.Contains(err.Error(), name) {
				t.Errorf("%s: err = %v, want ErrUnsupportedTensor naming %q", file, err, name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if got.Name != name || got.DType.String() != fields[2] {
			t.Errorf("%s: name %q type %v, want %q %s", file, got.Name, got.DType, name, fields[2])
		}
		var dims []int64
		if fields[3] != "-" {
			for _, d := range strings.Split(fields[3], ",") {
				v, _ := strconv.ParseInt(d, 10, 64)
				dims = append(dims, v)
			}
		}
		if !reflect.DeepEqual(got.Dims, dims) && !(len(got.Dims) == 0 && len(dims) == 0) {
			t.Errorf("%s: dims %v, want %v", file, got.Dims, dims)
		}
		want := fields[4:]
		for i := range want {
			want[i] = normHex(t, want[i])
		}
		have := elementsAsStrings(t, got.DType, got.Data())
		if len(have) != len(want) {
			t.Errorf("%s: %d elements, want %d", file, len(have), len(want))
			continue
		}
		for i := range want {
			if have[i] != want[i] {
				t.Errorf("%s: element %d = %s, want %s", file, i, have[i], want[i])
			}
		}
	}
	if n < 20 {
		t.Fatalf("want.txt lists %d files, want at least 20", n)
	}
}

// TestReadTensorRoundTripsTheWriter decodes what encodeTensor writes for
// every element type the writer supports.
func TestReadTensorRoundTripsTheWriter(t *testing.T) {
	cases := []*Tensor{
		NewTensor("f", Float, []int64{2, 2}, []float32{1, -2, 3.5, float32(math.Inf(-1))}),
		NewTensor("d", Double, []int64{2}, []float64{math.Pi, -0.0}),
		NewTensor("i64", Int64, []int64{3}, []int64{math.MinInt64, 0, math.MaxInt64}),
		NewTensor("u16", Uint16, []int64{1}, []uint16{65535}),
		NewTensor("h", Float16, []int64{2}, []uint16{Float16Bits(1.5), Float16Bits(-3)}),
		NewTensor("bf", BFloat16, []int64{1}, []uint16{BFloat16Bits(2)}),
		NewTensor("b", Bool, []int64{2, 1}, []bool{true, false}),
		NewTensor("u32", Uint32, []int64{1}, []uint32{math.MaxUint32}),
	}
	for _, want := range cases {
		var buf bytes.Buffer
		if err := encodeTensor(want, nil).writeTo(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := ReadTensor(buf.Bytes())
		if err != nil {
			t.Errorf("%s: %v", want.Name, err)
			continue
		}
		if got.Name != want.Name || got.DType != want.DType || !reflect.DeepEqual(got.Dims, want.Dims) || !reflect.DeepEqual(got.Data(), want.Data()) {
			t.Errorf("%s: got %s %v %v %v, want %v %v %v", want.Name, got.Name, got.DType, got.Dims, got.Data(), want.DType, want.Dims, want.Data())
		}
	}
}

// TestReadTensorPackedDimsAndUnpackedData reads the encodings the Python
// writer does not produce: packed dims and unpacked repeated data.
func TestReadTensorPackedDimsAndUnpackedData(t *testing.T) {
	var b []byte
	b = protowire.AppendTag(b, tpDims, protowire.BytesType)
	b = protowire.AppendBytes(b, protowire.AppendVarint(protowire.AppendVarint(nil, 1), 2))
	b = protowire.AppendTag(b, tpDataType, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(Float))
	for _, v := range []float32{0.5, -1} {
		b = protowire.AppendTag(b, tpFloatData, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(v))
	}
	got, err := ReadTensor(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Dims, []int64{1, 2}) || !reflect.DeepEqual(got.Data(), []float32{0.5, -1}) {
		t.Fatalf("got dims %v data %v, want [1 2] [0.5 -1]", got.Dims, got.Data())
	}
}

// TestReadTensorRefusesBadMessages checks each malformed or unsupported
// message gives an error saying what is wrong, never a panic or a wrong
// tensor.
func TestReadTensorRefusesBadMessages(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "tensorproto", "f32_raw.pb"))
	if err != nil {
		t.Fatal(err)
	}
	tensor := func(fields ...func([]byte) []byte) []byte {
		var b []byte
		for _, f := range fields {
			b = f(b)
		}
		return b
	}
	dims := func(d ...int64) func([]byte) []byte {
		return func(b []byte) []byte {
			for _, v := range d {
				b = protowire.AppendTag(b, tpDims, protowire.VarintType)
				b = protowire.AppendVarint(b, uint64(v))
			}
			return b
		}
	}
	dtype := func(dt DType) func([]byte) []byte {
		return func(b []byte) []byte {
			return protowire.AppendVarint(protowire.AppendTag(b, tpDataType, protowire.VarintType), uint64(dt))
		}
	}
	raw := func(n int) func([]byte) []byte {
		return func(b []byte) []byte {
			return protowire.AppendBytes(protowire.AppendTag(b, tpRawData, protowire.BytesType), make([]byte, n))
		}
	}
	ints := func(field protowire.Number, v ...uint64) func([]byte) []byte {
		return func(b []byte) []byte {
			var p []byte
			for _, x := range v {
				p = protowire.AppendVarint(p, x)
			}
			return protowire.AppendBytes(protowire.AppendTag(b, field, protowire.BytesType), p)
		}
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated", good[:len(good)-3], "field 9"},
		{"raw too short", tensor(dims(2, 3), dtype(Float), raw(20)), "20 bytes of raw_data for dims [2 3] of float32 (want 24)"},
		{"too few values", tensor(dims(3), dtype(Int64), ints(tpInt64Data, 1, 2)), "2 values for dims [3] (3 elements)"},
		{"int64 in int32 field", tensor(dims(1), dtype(Int64), ints(tpInt32Data, 1)), "want int64_data"},
		{"two integer fields", tensor(dims(2), dtype(Int32), ints(tpInt32Data, 1), ints(tpInt64Data, 2)), "both fields"},
		{"raw and typed", tensor(dims(1), dtype(Int64), raw(8), ints(tpInt64Data, 1)), "both raw_data and typed data"},
		{"negative dim", tensor(dims(-1), dtype(Float)), "negative dimension"},
		{"overflowing dims", tensor(dims(1<<40, 1<<40), dtype(Float)), "overflow"},
		{"unknown type", tensor(dims(1), dtype(DType(99)), raw(1)), "element type 99"},
		{"external", tensor(dims(1), dtype(Float), func(b []byte) []byte {
			return protowire.AppendVarint(protowire.AppendTag(b, tpDataLocation, protowire.VarintType), 1)
		}), "external data"},
		{"wrong wire type", tensor(func(b []byte) []byte {
			return protowire.AppendFixed32(protowire.AppendTag(b, tpDataType, protowire.Fixed32Type), 1)
		}), "want varint"},
	} {
		got, err := ReadTensor(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, %v; want an error containing %q", c.name, got, err, c.want)
		}
	}
}
