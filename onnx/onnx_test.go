package onnx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pbField is one decoded protobuf field: a varint/fixed value or bytes.
type pbField struct {
	num  int
	wire int
	v    uint64
	b    []byte
}

// pbDecode decodes one message level (a test-side oracle for the encoder).
func pbDecode(t *testing.T, b []byte) []pbField {
	t.Helper()
	var out []pbField
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("bad key varint")
		}
		b = b[n:]
		f := pbField{num: int(key >> 3), wire: int(key & 7)}
		switch f.wire {
		case 0:
			f.v, n = binary.Uvarint(b)
			if n <= 0 {
				t.Fatalf("bad varint in field %d", f.num)
			}
			b = b[n:]
		case 1:
			f.v, b = binary.LittleEndian.Uint64(b), b[8:]
		case 5:
			f.v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || int(l) > len(b)-n {
				t.Fatalf("bad length in field %d", f.num)
			}
			f.b, b = b[n:n+int(l)], b[n+int(l):]
		default:
			t.Fatalf("wire type %d", f.wire)
		}
		out = append(out, f)
	}
	return out
}

func pbGet(fs []pbField, num int) []pbField {
	var out []pbField
	for _, f := range fs {
		if f.num == num {
			out = append(out, f)
		}
	}
	return out
}

func sampleGraph() *Graph {
	g := NewGraph(Config{Name: "sample", Seed: 42})
	x := g.Input("x", Float, Sym("batch"), Fix(4))
	w := g.Param("w", Float, []int64{4, 2}, He(4))
	b := g.Const("b", Float, []int64{2}, []float32{0.5, -1})
	y := g.Rename(g.Softmax(g.Add(g.MatMul(x, w), b), 1), "y")
	g.Output(y, Float, Sym("batch"), Fix(2))
	return g
}

func TestEncoding(t *testing.T) {
	g := sampleGraph()
	var buf bytes.Buffer
	n, err := g.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if size, _ := g.Size(); n != int64(buf.Len()) || size != n {
		t.Fatalf("wrote %d bytes, buffer %d, Size %d", n, buf.Len(), size)
	}
	model := pbDecode(t, buf.Bytes())
	if ir := pbGet(model, 1); len(ir) != 1 || ir[0].v != DefaultIRVersion {
		t.Errorf("ir_version %v", ir)
	}
	ops := pbGet(model, 8)
	if len(ops) != 1 {
		t.Fatalf("%d opset imports", len(ops))
	}
	op := pbDecode(t, ops[0].b)
	if v := pbGet(op, 2); len(v) != 1 || v[0].v != DefaultOpset {
		t.Errorf("opset %v", v)
	}
	graph := pbDecode(t, pbGet(model, 7)[0].b)
	if name := pbGet(graph, 2); string(name[0].b) != "sample" {
		t.Errorf("graph name %q", name[0].b)
	}
	var opTypes []string
	for _, nf := range pbGet(graph, 1) {
		node := pbDecode(t, nf.b)
		opTypes = append(opTypes, string(pbGet(node, 4)[0].b))
	}
	if got := strings.Join(opTypes, ","); got != "MatMul,Add,Softmax" {
		t.Errorf("ops %s", got)
	}
	// Softmax's axis attribute: name, i = 1, type INT.
	soft := pbDecode(t, pbGet(graph, 1)[2].b)
	attr := pbDecode(t, pbGet(soft, 5)[0].b)
	if string(pbGet(attr, 1)[0].b) != "axis" || pbGet(attr, 3)[0].v != 1 || pbGet(attr, 20)[0].v != attrInt {
		t.Errorf("softmax attribute %+v", attr)
	}
	inits := pbGet(graph, 5)
	if len(inits) != 2 {
		t.Fatalf("%d initializers", len(inits))
	}
	bt := pbDecode(t, inits[1].b)
	if d := pbGet(bt, 1); len(d) != 1 || d[0].v != 2 {
		t.Errorf("b dims %v", d)
	}
	if dt := pbGet(bt, 2); dt[0].v != uint64(Float) {
		t.Errorf("b dtype %v", dt)
	}
	raw := pbGet(bt, 9)[0].b
	if math.Float32frombits(binary.LittleEndian.Uint32(raw)) != 0.5 || math.Float32frombits(binary.LittleEndian.Uint32(raw[4:])) != -1 {
		t.Errorf("b raw data % x", raw)
	}
	// Input x: type.tensor_type.shape.dim[0].dim_param == "batch".
	in := pbDecode(t, pbGet(graph, 11)[0].b)
	tt := pbDecode(t, pbGet(pbDecode(t, pbGet(in, 2)[0].b), 1)[0].b)
	dims := pbGet(pbDecode(t, pbGet(tt, 2)[0].b), 1)
	if len(dims) != 2 || string(pbGet(pbDecode(t, dims[0].b), 2)[0].b) != "batch" || pbGet(pbDecode(t, dims[1].b), 1)[0].v != 4 {
		t.Errorf("input dims %v", dims)
	}
}

func TestDeterministic(t *testing.T) {
	write := func() []byte {
		var buf bytes.Buffer
		if _, err := sampleGraph().WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a, b := write(), write()
	if !bytes.Equal(a, b) {
		t.Fatal("two writes of the same graph differ")
	}
	p := filepath.Join(t.TempDir(), "m.onnx")
	if err := sampleGraph().WriteFile(p, FileOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, c) {
		t.Fatal("WriteFile and WriteTo differ")
	}
	g2 := NewGraph(Config{Name: "sample", Seed: 43})
	x := g2.Input("x", Float, Sym("batch"), Fix(4))
	w := g2.Param("w", Float, []int64{4, 2}, He(4))
	g2.Output(g2.MatMul(x, w), Float)
	if v1, v2 := mustValues(t, sampleGraph().Initializers()[0]), mustValues(t, g2.Initializers()[0]); fmt.Sprint(v1) == fmt.Sprint(v2) {
		t.Error("seeds 42 and 43 give the same weights")
	}
}

func mustValues(t *testing.T, tn *Tensor) []float64 {
	t.Helper()
	v, err := tn.Values()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSplitMix64(t *testing.T) {
	// Published SplitMix64 outputs for seed 0 (Vigna's reference splitmix64.c).
	r := SplitMix64{}
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	for i, w := range want {
		if got := r.Next(); got != w {
			t.Errorf("output %d = %#x, want %#x", i, got, w)
		}
	}
}

func TestInit(t *testing.T) {
	cases := []struct {
		name string
		dt   DType
		init Init
		lo   float64
		hi   float64
	}{
		{"he", Float, He(50), -math.Sqrt(6.0 / 50), math.Sqrt(6.0 / 50)},
		{"xavier", Float, Xavier(10, 20), -math.Sqrt(6.0 / 30), math.Sqrt(6.0 / 30)},
		{"uniform f16", Float16, Uniform(2, 3), 2, 3},
		{"uniform bf16", BFloat16, Uniform(-1, 1), -1, 1},
		{"constant", Float, Constant(1.5), 1.5, 1.5},
		{"int64", Int64, Uniform(0, 10), 0, 9},
		{"uint8", Uint8, Uniform(0, 256), 0, 255},
		{"bool", Bool, Uniform(0, 1), 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tn := NewSeeded("t", c.dt, []int64{100, 50}, c.init, 7)
			v := mustValues(t, tn)
			if len(v) != 5000 {
				t.Fatalf("%d values", len(v))
			}
			mean := 0.0
			for _, x := range v {
				if x < c.lo || x > c.hi {
					t.Fatalf("value %v outside [%v, %v]", x, c.lo, c.hi)
				}
				mean += x / float64(len(v))
			}
			if mid := (c.lo + c.hi) / 2; math.Abs(mean-mid) > 0.05*(c.hi-c.lo)+1e-9 {
				t.Errorf("mean %v, want about %v", mean, mid)
			}
			// Element i follows the documented stream.
			r := SplitMix64{State: StreamSeed(7, "t")}
			r.Next()
			r.Next()
			want := c.init.Low + (c.init.High-c.init.Low)*r.Float64()
			var b [8]byte
			putValue(b[:], c.dt, want)
			got, _ := decodeRaw(c.dt, b[:c.dt.Size()])
			if v[2] != got[0] {
				t.Errorf("element 2 = %v, documented stream gives %v", v[2], got[0])
			}
		})
	}
}

func TestFloat16(t *testing.T) {
	cases := []struct {
		f float32
		h uint16
	}{
		{0, 0}, {float32(math.Copysign(0, -1)), 0x8000}, {1, 0x3c00}, {-2, 0xc000}, {0.1, 0x2e66},
		{65504, 0x7bff}, {65519, 0x7bff}, {65520, 0x7c00}, {1e9, 0x7c00}, {float32(math.Inf(-1)), 0xfc00},
		{5.960464477539063e-08, 0x0001}, {2.98e-08, 0}, {6.103515625e-05, 0x0400},
		{2049, 0x6800}, {2051, 0x6802}, {2050, 0x6801}, // ties to even
	}
	for _, c := range cases {
		if got := Float16Bits(c.f); got != c.h {
			t.Errorf("Float16Bits(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
	if h := Float16Bits(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("NaN → %#04x", h)
	}
	for h := 0; h < 1<<16; h++ {
		f := Float16ToFloat32(uint16(h))
		if f != f {
			continue
		}
		if back := Float16Bits(f); back != uint16(h) {
			t.Fatalf("%#04x → %v → %#04x", h, f, back)
		}
	}
	if BFloat16Bits(1) != 0x3f80 || BFloat16Bits(-2.5) != 0xc020 {
		t.Errorf("bfloat16: %#x %#x", BFloat16Bits(1), BFloat16Bits(-2.5))
	}
}

func TestGraphErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(g *Graph)
		want  string
	}{
		{"undefined input", func(g *Graph) { g.Output(g.Relu("nope"), Float) }, `input "nope" is not defined`},
		{"duplicate", func(g *Graph) { g.Input("x", Float); g.Input("x", Float); g.Output("x", Float) }, `"x" defined twice`},
		{"undefined output", func(g *Graph) { g.Input("x", Float); g.Output("y", Float) }, `output "y" is not defined`},
		{"no outputs", func(g *Graph) { g.Input("x", Float) }, "has no outputs"},
		{"values mismatch", func(g *Graph) {
			g.Output(g.Const("c", Float, []int64{3}, []float32{1, 2}), Float)
		}, "2 values for dimensions [3]"},
		{"wrong Go type", func(g *Graph) { g.Output(g.Const("c", Int64, []int64{1}, []float32{1}), Float) }, "[]float32 cannot hold int64"},
		{"negative dims", func(g *Graph) {
			g.Output(g.Param("p", Float, []int64{-1}, Constant(0)), Float)
		}, "negative dimension"},
		{"bad range", func(g *Graph) { g.Output(g.Param("p", Float, []int64{1}, Uniform(1, 0)), Float) }, "is empty"},
		{"layernorm opset", func(g *Graph) {
			x := g.Input("x", Float)
			g.Output(g.LayerNorm(x, x, "", -1, 1e-5), Float)
		}, "needs opset 17"},
		{"rename clash", func(g *Graph) { x := g.Input("x", Float); y := g.Relu(x); g.Rename(y, "x"); g.Output(y, Float) }, `"x" is already defined`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opset := int64(0)
			if c.name == "layernorm opset" {
				opset = 13
			}
			g := NewGraph(Config{Opset: opset})
			c.build(g)
			_, err := g.WriteTo(&bytes.Buffer{})
			if !errors.Is(err, ErrGraph) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrGraph containing %q", err, c.want)
			}
		})
	}
}

func TestExternalData(t *testing.T) {
	g := NewGraph(Config{Seed: 3})
	x := g.Input("x", Float, Fix(64))
	big := g.Param("big", Float, []int64{64, 64}, Uniform(-1, 1)) // 16 KiB: external
	small := g.Const("small", Float, []int64{4}, []float32{1, 2, 3, 4})
	g.Output(g.MatMul(x, big), Float)
	g.Output(small, Float, Fix(4))
	dir := t.TempDir()
	p := filepath.Join(dir, "m.onnx")

	check := func(wantExternal bool) {
		t.Helper()
		main, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data, derr := os.ReadFile(DataPath(p))
		if !wantExternal {
			if derr == nil {
				t.Fatal("side file left behind by an inline write")
			}
			return
		}
		if derr != nil {
			t.Fatal(derr)
		}
		graph := pbDecode(t, pbGet(pbDecode(t, main), 7)[0].b)
		inits := pbGet(graph, 5)
		bt := pbDecode(t, inits[0].b)
		if len(pbGet(bt, 9)) != 0 || pbGet(bt, 14)[0].v != 1 {
			t.Fatal("big tensor is not external")
		}
		kv := map[string]string{}
		for _, e := range pbGet(bt, 13) {
			f := pbDecode(t, e.b)
			kv[string(pbGet(f, 1)[0].b)] = string(pbGet(f, 2)[0].b)
		}
		off, _ := strconv.Atoi(kv["offset"])
		n, _ := strconv.Atoi(kv["length"])
		if kv["location"] != "m.onnx.data" || off%ExternalAlign != 0 || n != 64*64*4 || off+n > len(data) {
			t.Fatalf("external entry %v (side file %d bytes)", kv, len(data))
		}
		want := mustValues(t, g.Initializers()[0])
		for i := 0; i < 64*64; i++ {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(data[off+4*i:])); float64(got) != want[i] {
				t.Fatalf("element %d = %v, want %v", i, got, want[i])
			}
		}
		st := pbDecode(t, inits[1].b)
		if len(pbGet(st, 9)) != 1 {
			t.Fatal("small tensor should stay inline")
		}
	}

	if err := g.WriteFile(p, FileOptions{External: ExternalAlways}); err != nil {
		t.Fatal(err)
	}
	check(true)
	if err := g.WriteFile(p, FileOptions{}); err != nil {
		t.Fatal(err)
	}
	check(false)

	// Auto switches to external data over the limit, and WriteTo refuses.
	defer func(v int64) { maxInline = v }(maxInline)
	maxInline = 8 << 10
	if err := g.WriteFile(p, FileOptions{}); err != nil {
		t.Fatal(err)
	}
	check(true)
	if _, err := g.WriteTo(&bytes.Buffer{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("WriteTo over the limit: err = %v", err)
	}
	if err := g.WriteFile(p, FileOptions{External: ExternalNever}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ExternalNever over the limit: err = %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// BenchmarkSeededFloat32 measures the weight generator's write speed.
func BenchmarkSeededFloat32(b *testing.B) {
	t := NewSeeded("w", Float, []int64{1 << 20}, He(1024), 1)
	b.SetBytes(t.Bytes())
	for b.Loop() {
		if err := t.writeRaw(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func TestIRVersion(t *testing.T) {
	for _, c := range []struct{ opset, ir, want int64 }{{0, 0, 8}, {13, 0, 8}, {18, 0, 8}, {19, 0, 9}, {20, 0, 9}, {21, 0, 10}, {23, 0, 11}, {17, 7, 7}} {
		g := NewGraph(Config{Opset: c.opset, IRVersion: c.ir})
		g.Output(g.Identity(g.Input("x", Float)), Float)
		var buf bytes.Buffer
		if _, err := g.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if got := pbGet(pbDecode(t, buf.Bytes()), 1)[0].v; int64(got) != c.want {
			t.Errorf("opset %d, IR %d: wrote IR %d, want %d", c.opset, c.ir, got, c.want)
		}
	}
}
