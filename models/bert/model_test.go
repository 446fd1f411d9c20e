package bert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/onnx"
)

// newFake returns a backendtest.Session whose start logit at a position is the
// token id there and whose end logit is the segment id minus the mask, so
// tests can see which sample went where and which input fed which tensor.

func officialInfos() ([]backend.Info, []backend.Info) {
	s := []int64{-1, MaxSeqLength}
	return []backend.Info{
			{Name: inputIDs, DType: backend.Int64, Shape: s},
			{Name: inputMask, DType: backend.Int64, Shape: s},
			{Name: inputSegmentIDs, DType: backend.Int64, Shape: s},
		}, []backend.Info{
			{Name: outputStart, DType: backend.Float32, Shape: s},
			{Name: outputEnd, DType: backend.Float32, Shape: s},
		}
}

func newFake() *backendtest.Session {
	in, out := officialInfos()
	s := &backendtest.Session{In: in, Out: out}
	s.RunFunc = func(_ context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
		return fakeRun(s.In, s.Out, in)
	}
	return s
}

func fakeRun(inputs, outputs []backend.Info, in []backend.Tensor) ([]backend.Tensor, error) {
	byName := map[string][]int64{}
	n := in[0].Shape[0]
	for _, t := range in {
		x := t.Data.([]int64)
		if int64(len(x)) != n*MaxSeqLength || t.Shape[0] != n {
			return nil, fmt.Errorf("fake: bad input %q %v len %d", t.Name, t.Shape, len(x))
		}
		byName[t.Name] = x
	}
	ids, mask, seg := byName[inputs[0].Name], byName[inputs[1].Name], byName[inputs[2].Name]
	start := make([]float32, n*MaxSeqLength)
	end := make([]float32, n*MaxSeqLength)
	for i := range start {
		start[i] = float32(ids[i])
		end[i] = float32(seg[i] - mask[i])
	}
	outs := make([]backend.Tensor, len(outputs))
	for i, o := range outputs {
		d := start
		if o.Name == outputEnd || (i == 1 && o.Name != outputStart) {
			d = end
		}
		outs[i] = backend.Tensor{Name: o.Name, DType: backend.Float32, Shape: []int64{n, MaxSeqLength}, Data: d}
	}
	return outs, nil
}

func TestCheckContract(t *testing.T) {
	ids := func(name string, dt backend.DType, shape ...int64) backend.Info {
		return backend.Info{Name: name, DType: dt, Shape: shape}
	}
	in, out := officialInfos()
	int8In := []backend.Info{in[0], ids(int8InputMask, backend.Int64, -1, 384), ids(int8InputSegmentIDs, backend.Int64, -1, 384)}
	unnamedOut := []backend.Info{ids("start", backend.Float32, -1, 384), ids("end", backend.Float32, -1, 384)}
	for _, tc := range []struct {
		name    string
		in, out []backend.Info
		want    contract
		err     string // "" for success
	}{
		{"official", in, out, contract{IDs: inputIDs, Mask: inputMask, Segments: inputSegmentIDs, Start: 0, End: 1}, ""},
		{"outputs swapped", in, []backend.Info{out[1], out[0]}, contract{IDs: inputIDs, Mask: inputMask, Segments: inputSegmentIDs, Start: 1, End: 0}, ""},
		{"int8 names, unnamed outputs", int8In, unnamedOut, contract{IDs: inputIDs, Mask: int8InputMask, Segments: int8InputSegmentIDs, Start: 0, End: 1}, ""},
		{"fixed batch", []backend.Info{ids(inputIDs, backend.Int64, 4, 384), ids(inputMask, backend.Int64, 4, 384), ids(inputSegmentIDs, backend.Int64, 4, 384)}, out,
			contract{IDs: inputIDs, Mask: inputMask, Segments: inputSegmentIDs, Start: 0, End: 1, FixedBatch: 4}, ""},
		{"dynamic sequence", []backend.Info{ids(inputIDs, backend.Int64, -1, -1), ids(inputMask, backend.Int64, -1, -1), ids(inputSegmentIDs, backend.Int64, -1, -1)}, out,
			contract{IDs: inputIDs, Mask: inputMask, Segments: inputSegmentIDs, Start: 0, End: 1}, ""},
		{"sequence 256", []backend.Info{ids(inputIDs, backend.Int64, -1, 256), in[1], in[2]}, out, contract{}, "sequence length 256"},
		{"mixed names", []backend.Info{in[0], in[1], int8In[2]}, out, contract{}, "want inputs"},
		{"missing input", in[:2], out, contract{}, "want inputs"},
		{"extra input", append(append([]backend.Info{}, in...), ids("position_ids", backend.Int64, -1, 384)), out, contract{}, "want inputs"},
		{"int32 ids", []backend.Info{ids(inputIDs, backend.Int32, -1, 384), in[1], in[2]}, out, contract{}, `"input_ids" is int32`},
		{"rank 1", []backend.Info{ids(inputIDs, backend.Int64, 384), in[1], in[2]}, out, contract{}, "want int64 [N,384]"},
		{"different fixed batches", []backend.Info{ids(inputIDs, backend.Int64, 2, 384), ids(inputMask, backend.Int64, 4, 384), in[2]}, out, contract{}, "different fixed batch"},
		{"one output", in, out[:1], contract{}, "want outputs"},
		{"three unnamed outputs", in, append(unnamedOut, unnamedOut[0]), contract{}, "want outputs"},
		{"float16 logits", in, []backend.Info{out[0], ids(outputEnd, backend.Float16, -1, 384)}, contract{}, "want float32"},
		{"logits length 512", in, []backend.Info{out[0], ids(outputEnd, backend.Float32, -1, 512)}, contract{}, "want float32 [N,384]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := checkContract(tc.in, tc.out)
			if tc.err == "" {
				if err != nil || c != tc.want {
					t.Fatalf("got %+v, %v; want %+v", c, err, tc.want)
				}
				return
			}
			if !errors.Is(err, errContract) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want ErrContract containing %q", err, tc.err)
			}
		})
	}
}

func TestModelVocabSize(t *testing.T) {
	dir := t.TempDir()
	small := TinyArch
	small.Vocab, small.Layers, small.Hidden, small.Heads, small.Intermediate = 1000, 1, 8, 2, 16
	int8Arch := small
	int8Arch.InputNames = [3]string{inputIDs, int8InputMask, int8InputSegmentIDs}
	build := func(name string, c ArchConfig) string {
		p := filepath.Join(dir, name)
		if err := BuildFileOf(p, c, 1); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A graph whose table is dequantised from int8 before the Gather, and
	// whose ids are cast first.
	g := onnx.NewGraph(onnx.Config{Name: "q"})
	ids := g.Input(inputIDs, onnx.Int64, onnx.Sym("N"), onnx.Fix(384))
	q := g.Param("emb_q", onnx.Int8, []int64{777, 4}, onnx.Uniform(-100, 100))
	table := g.Op("DequantizeLinear", []string{q, g.Scalar(onnx.Float, 0.01), g.Const("", onnx.Int8, []int64{}, []int8{0})})
	y := g.Gather(table, g.Cast(ids, onnx.Int32), 0)
	g.Output(y, onnx.Float, onnx.Sym("N"), onnx.Fix(384), onnx.Fix(4))
	quant := filepath.Join(dir, "quant.onnx")
	if err := g.WriteFile(quant, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	// A graph without a Gather on input_ids.
	g = onnx.NewGraph(onnx.Config{Name: "none"})
	x := g.Input(inputIDs, onnx.Int64, onnx.Sym("N"))
	g.Output(g.Identity(x), onnx.Int64, onnx.Sym("N"))
	none := filepath.Join(dir, "none.onnx")
	if err := g.WriteFile(none, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.onnx")
	os.WriteFile(garbage, []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"), 0o644)
	truncated := filepath.Join(dir, "truncated.onnx")
	b, _ := os.ReadFile(build("whole.onnx", small))
	os.WriteFile(truncated, b[:len(b)/2], 0o644)

	for _, tc := range []struct {
		name string
		path string
		want int
		err  string
	}{
		{"tiny", build("tiny.onnx", TinyArch), VocabSize, ""},
		{"small vocab", build("small.onnx", small), 1000, ""},
		{"int8 input names", build("int8.onnx", int8Arch), 1000, ""},
		{"dequantised table, cast ids", quant, 777, ""},
		{"no embedding", none, 0, "no word-embedding table"},
		{"garbage", garbage, 0, "not an ONNX model"},
		{"truncated", truncated, 0, "runs past"},
		{"missing", filepath.Join(dir, "nope.onnx"), 0, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := ModelVocabSize(tc.path)
			if tc.err == "" {
				if err != nil || n != tc.want {
					t.Fatalf("got %d, %v; want %d", n, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %d, %v; want an error containing %q", n, err, tc.err)
			}
		})
	}
}

func TestCheckVocab(t *testing.T) {
	v := testTokenizer(t).Vocab()
	if err := checkVocab(VocabSize, v); err != nil {
		t.Fatal(err)
	}
	if err := checkVocab(0, v); err != nil { // unknown: skipped
		t.Fatal(err)
	}
	for _, rows := range []int{30000, 30528} {
		err := checkVocab(rows, v)
		if !errors.Is(err, errContract) || !strings.Contains(err.Error(), fmt.Sprintf("embeds %d token ids but vocab.txt has %d", rows, VocabSize)) {
			t.Fatalf("rows %d: %v", rows, err)
		}
	}
}

// fakeSamples serves inputs whose ids are all v+1000 for sample v.
func fakeSamples(loaded map[loadgen.SampleIndex]bool) sampleFunc {
	return func(i loadgen.SampleIndex) (input, bool) {
		if !loaded[i] {
			return input{}, false
		}
		in := input{IDs: make([]int64, MaxSeqLength), Mask: make([]int64, MaxSeqLength), Segments: make([]int64, MaxSeqLength)}
		for p := range in.IDs {
			in.IDs[p] = int64(i) + 1000
			in.Mask[p] = 1
			in.Segments[p] = int64(p % 2)
		}
		return in, true
	}
}

func TestPredict(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fixed  int
		idx    []loadgen.SampleIndex
		loaded map[loadgen.SampleIndex]bool
		runs   []int64 // batch sizes the session saw
	}{
		{"single", 0, []loadgen.SampleIndex{3}, map[loadgen.SampleIndex]bool{3: true}, []int64{1}},
		{"batch", 0, []loadgen.SampleIndex{5, 2, 9}, map[loadgen.SampleIndex]bool{2: true, 5: true, 9: true}, []int64{3}},
		{"one missing", 0, []loadgen.SampleIndex{5, 7, 9}, map[loadgen.SampleIndex]bool{5: true, 9: true}, []int64{2}},
		{"all missing", 0, []loadgen.SampleIndex{1, 2}, nil, nil},
		{"fixed batch padded", 4, []loadgen.SampleIndex{1, 2}, map[loadgen.SampleIndex]bool{1: true, 2: true}, []int64{4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			if tc.fixed > 0 {
				for i := range f.In {
					f.In[i].Shape = []int64{int64(tc.fixed), MaxSeqLength}
				}
			}
			m, err := New(f, fakeSamples(tc.loaded))
			if err != nil {
				t.Fatal(err)
			}
			out := make([]loadgen.Response, len(tc.idx))
			if err := m.Predict(context.Background(), tc.idx, out); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(f.Batches()) != fmt.Sprint(tc.runs) {
				t.Errorf("session batches %v, want %v", f.Batches(), tc.runs)
			}
			for i, x := range tc.idx {
				if !tc.loaded[x] {
					if out[i].Err == nil || out[i].Data != nil {
						t.Errorf("sample %d not loaded: response %+v", x, out[i])
					}
					continue
				}
				if out[i].Err != nil || len(out[i].Data) != ResponseBytes {
					t.Fatalf("sample %d: err %v, %d bytes", x, out[i].Err, len(out[i].Data))
				}
				l, err := DecodeResponse(out[i].Data)
				if err != nil {
					t.Fatal(err)
				}
				for p := range MaxSeqLength {
					if l.Start[p] != float64(x)+1000 || l.End[p] != float64(p%2-1) {
						t.Fatalf("sample %d position %d: logits %v %v", x, p, l.Start[p], l.End[p])
					}
				}
			}
		})
	}
}

func TestPredictErrors(t *testing.T) {
	f := newFake()
	f.Err = errors.New("engine on fire")
	m, err := New(f, fakeSamples(map[loadgen.SampleIndex]bool{0: true}))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]loadgen.Response, 1)
	if err := m.Predict(context.Background(), []loadgen.SampleIndex{0}, out); err == nil || !strings.Contains(err.Error(), "engine on fire") {
		t.Fatalf("error %v", err)
	}
	m2, _ := New(newFake(), nil)
	if err := m2.Predict(context.Background(), []loadgen.SampleIndex{0}, out); err == nil {
		t.Fatal("no error without a sample source")
	}
	if _, _, err := m2.Logits(context.Background(), make([]int64, 10), make([]int64, 10), make([]int64, 10), 1); err == nil {
		t.Fatal("short batch accepted")
	}
	ff := newFake()
	for i := range ff.In {
		ff.In[i].Shape = []int64{2, MaxSeqLength}
	}
	m3, _ := New(ff, nil)
	z := make([]int64, 3*MaxSeqLength)
	if _, _, err := m3.Logits(context.Background(), z, z, z, 3); err == nil || !strings.Contains(err.Error(), "fixed batch size 2") {
		t.Fatalf("over-size batch: %v", err)
	}
	if _, err := New(nil, nil); err == nil {
		t.Fatal("nil session accepted")
	}
	bad := newFake()
	bad.In = bad.In[:2]
	if _, err := New(bad, nil); !errors.Is(err, errContract) {
		t.Fatalf("bad contract: %v", err)
	}
}

// TestPredictInt8Names checks that the int8 model's input names receive the
// mask and segment ids.
func TestPredictInt8Names(t *testing.T) {
	f := newFake()
	f.In[1].Name, f.In[2].Name = int8InputMask, int8InputSegmentIDs
	f.Out[0].Name, f.Out[1].Name = "out0", "out1"
	m, err := New(f, fakeSamples(map[loadgen.SampleIndex]bool{4: true}))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]loadgen.Response, 1)
	if err := m.Predict(context.Background(), []loadgen.SampleIndex{4}, out); err != nil {
		t.Fatal(err)
	}
	l, _ := DecodeResponse(out[0].Data)
	if l.Start[7] != 1004 || l.End[7] != 0 || l.End[6] != -1 {
		t.Fatalf("logits %v %v %v", l.Start[7], l.End[7], l.End[6])
	}
}

func TestNewInput(t *testing.T) {
	_, feats := synthSmall(t)
	for i := range feats {
		f := &feats[i]
		in, err := NewInput(f)
		if err != nil {
			t.Fatal(err)
		}
		ids, mask, seg := make([]int64, MaxSeqLength), make([]int64, MaxSeqLength), make([]int64, MaxSeqLength)
		f.Fill(ids, mask, seg)
		if !in.valid() || !bytes.Equal(i64bytes(in.IDs), i64bytes(ids)) || !bytes.Equal(i64bytes(in.Mask), i64bytes(mask)) || !bytes.Equal(i64bytes(in.Segments), i64bytes(seg)) {
			t.Fatalf("feature %d: input differs from Fill", i)
		}
	}
}

func i64bytes(x []int64) []byte { return []byte(fmt.Sprint(x)) }

// FuzzModelVocabSize checks that no file content makes the ONNX structure
// reader panic or loop.
func FuzzModelVocabSize(f *testing.F) {
	c := TinyArch
	c.Vocab, c.Layers, c.Hidden, c.Heads, c.Intermediate, c.Positions, c.SeqLen = 50, 1, 4, 1, 4, 8, 8
	g, err := archOf(c, 1, "fuzz")
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := g.WriteTo(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:b.Len()/3])
	f.Add([]byte{0x3a, 0x05, 0x0a, 0x03, 0x12, 0x01})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := modelVocabSize(bytes.NewReader(data), int64(len(data)))
		if err == nil && n <= 0 {
			t.Fatalf("size %d without an error", n)
		}
	})
}
