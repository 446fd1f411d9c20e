package resnet50

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
	"github.com/mlperf-go/inference/loadgen"
)

// newFake returns a backendtest.Session whose "ArgMax" of an image is the first
// value of that image, so tests can see which sample went where.

func officialInfos() ([]backend.Info, []backend.Info) {
	return []backend.Info{{Name: InputName, DType: backend.Float32, Shape: []int64{-1, 3, 224, 224}}},
		[]backend.Info{
			{Name: ArgMaxName, DType: backend.Int64, Shape: []int64{-1}},
			{Name: SoftmaxName, DType: backend.Float32, Shape: []int64{-1, classes}},
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
	x := in[0].Data.([]float32)
	n := in[0].Shape[0]
	if int64(len(x)) != n*SampleLen || in[0].Name != InputName {
		return nil, fmt.Errorf("fake: bad input %q %v len %d", in[0].Name, in[0].Shape, len(x))
	}
	am := make([]int64, n)
	for i := range am {
		am[i] = int64(x[int64(i)*SampleLen])
	}
	outs := make([]backend.Tensor, len(outputs))
	for i, o := range outputs {
		switch o.Name {
		case ArgMaxName:
			outs[i] = backend.Tensor{Name: o.Name, DType: backend.Int64, Shape: []int64{n}, Data: am}
		default:
			outs[i] = backend.Tensor{Name: o.Name, DType: backend.Float32, Shape: []int64{n, classes}, Data: make([]float32, n*classes)}
		}
	}
	return outs, nil
}

// image returns a sample whose first value (the fake's ArgMax) is v.
func image(v float32) []float32 {
	s := make([]float32, SampleLen)
	s[0] = v
	return s
}

func TestCheckContract(t *testing.T) {
	in, out := officialInfos()
	fixedIn := []backend.Info{{Name: InputName, DType: backend.Float32, Shape: []int64{8, 3, 224, 224}}}
	for _, tc := range []struct {
		name      string
		in, out   []backend.Info
		wantFixed int
		wantErr   string
	}{
		{"official", in, out, 0, ""},
		{"argmax only", in, out[:1], 0, ""},
		{"argmax [N,1]", in, []backend.Info{{Name: ArgMaxName, DType: backend.Int64, Shape: []int64{-1, 1}}}, 0, ""},
		{"fixed batch", fixedIn, out, 8, ""},
		{"wrong input name", []backend.Info{{Name: "images", DType: backend.Float32, Shape: []int64{-1, 3, 224, 224}}}, out, 0, `"input_tensor:0"`},
		{"NHWC", []backend.Info{{Name: InputName, DType: backend.Float32, Shape: []int64{-1, 224, 224, 3}}}, out, 0, "NCHW"},
		{"uint8 input", []backend.Info{{Name: InputName, DType: backend.Uint8, Shape: []int64{-1, 3, 224, 224}}}, out, 0, "uint8"},
		{"two inputs", append(in[:1:1], backend.Info{Name: "x", DType: backend.Float32}), out, 0, "exactly one input"},
		{"no inputs", nil, out, 0, "none"},
		{"no argmax", in, out[1:], 0, `no output "ArgMax:0"`},
		{"float argmax", in, []backend.Info{{Name: ArgMaxName, DType: backend.Float32, Shape: []int64{-1}}}, 0, "want int64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixed, err := checkContract(tc.in, tc.out)
			if tc.wantErr == "" {
				if err != nil || fixed != tc.wantFixed {
					t.Fatalf("fixed %d, err %v; want %d, nil", fixed, err, tc.wantFixed)
				}
				return
			}
			if !errors.Is(err, errContract) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want ErrContract mentioning %s", err, tc.wantErr)
			}
		})
	}
	if _, err := New(nil, nil); err == nil {
		t.Fatal("New(nil): no error")
	}
	bad := newFake()
	bad.In = nil
	if _, err := New(bad, nil); !errors.Is(err, errContract) {
		t.Fatalf("New on a wrong model: %v", err)
	}
}

func TestPredictGathersAndEncodes(t *testing.T) {
	loaded := map[loadgen.SampleIndex][]float32{
		0: image(1), 1: image(66), 2: image(1000), 3: image(0),
	}
	samples := func(i loadgen.SampleIndex) ([]float32, bool) { s, ok := loaded[i]; return s, ok }
	for _, tc := range []struct {
		name    string
		idx     []loadgen.SampleIndex
		want    []string // hex of each response, "" for an error
		batches []int64
	}{
		{"single zero-copy", []loadgen.SampleIndex{1}, []string{"00008242"}, []int64{1}},
		{"batch", []loadgen.SampleIndex{2, 0, 3, 1}, []string{"00C07944", "00000000", "000080BF", "00008242"}, []int64{4}},
		{"repeats", []loadgen.SampleIndex{1, 1}, []string{"00008242", "00008242"}, []int64{2}},
		{"one not loaded", []loadgen.SampleIndex{0, 7, 1}, []string{"00000000", "", "00008242"}, []int64{2}},
		{"none loaded", []loadgen.SampleIndex{8}, []string{""}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := newFake()
			m, err := New(sess, samples)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]loadgen.Response, len(tc.idx))
			if err := m.Predict(context.Background(), tc.idx, out); err != nil {
				t.Fatal(err)
			}
			for i, w := range tc.want {
				if w == "" {
					if out[i].Err == nil {
						t.Fatalf("sample %d: no error", i)
					}
					continue
				}
				if got := strings.ToUpper(hex.EncodeToString(out[i].Data)); got != w || out[i].Err != nil {
					t.Fatalf("sample %d: %s (err %v), want %s", i, got, out[i].Err, w)
				}
			}
			if fmt.Sprint(sess.Batches()) != fmt.Sprint(tc.batches) {
				t.Fatalf("session batches %v, want %v", sess.Batches(), tc.batches)
			}
		})
	}
}

func TestPredictSessionError(t *testing.T) {
	sess := newFake()
	sess.Err = errors.New("ort: out of memory")
	m, _ := New(sess, func(loadgen.SampleIndex) ([]float32, bool) { return image(3), true })
	out := make([]loadgen.Response, 2)
	err := m.Predict(context.Background(), []loadgen.SampleIndex{0, 1}, out)
	if !errors.Is(err, sess.Err) || !strings.HasPrefix(err.Error(), "resnet50: ") {
		t.Fatalf("err %v", err)
	}
}

func TestFixedBatchPads(t *testing.T) {
	sess := newFake()
	sess.In[0].Shape[0] = 4
	m, err := New(sess, nil)
	if err != nil || m.FixedBatch() != 4 {
		t.Fatalf("fixed %d, err %v", m.FixedBatch(), err)
	}
	batch := append(image(5), image(9)...)
	got, err := m.Classify(context.Background(), batch, 2)
	if err != nil || fmt.Sprint(got) != "[5 9]" || fmt.Sprint(sess.Batches()) != "[4]" {
		t.Fatalf("got %v, err %v, batches %v", got, err, sess.Batches())
	}
	if _, err := m.Classify(context.Background(), make([]float32, 5*SampleLen), 5); err == nil || !strings.Contains(err.Error(), "--batch 4") {
		t.Fatalf("batch over the fixed size: %v", err)
	}
	if _, err := m.Classify(context.Background(), make([]float32, 10), 1); err == nil {
		t.Fatal("short batch buffer: no error")
	}
}

func TestResponseEncoding(t *testing.T) {
	for _, tc := range []struct {
		argmax int64
		hex    string
		label  int
	}{
		{66, "00008242", 65}, // the spec's example: label 65
		{1, "00000000", 0},
		{0, "000080BF", -1}, // background
		{1000, "00C07944", 999},
	} {
		b := encodeResponse(nil, tc.argmax)
		if got := strings.ToUpper(hex.EncodeToString(b)); got != tc.hex {
			t.Errorf("argmax %d: %s, want %s", tc.argmax, got, tc.hex)
		}
		if l, err := DecodeResponse(b); err != nil || l != tc.label {
			t.Errorf("decode %s: %d, %v", tc.hex, l, err)
		}
	}
	for _, bad := range []string{"", "0000", "0000000000", "0000C07F", "0000003F", "00207A44"} {
		b, _ := hex.DecodeString(bad)
		if _, err := DecodeResponse(b); err == nil {
			t.Errorf("decode %q: no error", bad)
		}
	}
}
