package unet3d

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
	"github.com/mlperf-go/inference/datasets/kits19"
	"github.com/mlperf-go/inference/loadgen"
)

func info(name string, shape ...int64) backend.Info {
	return backend.Info{Name: name, DType: backend.Float32, Shape: shape}
}

// TestCheckContractEachBranch: the accepted shapes (fixed or symbolic batch
// and dims) and each way of differing, just outside, with its message.
func TestCheckContractEachBranch(t *testing.T) {
	in := func(shape ...int64) []backend.Info { return []backend.Info{info(inputName, shape...)} }
	out := func(shape ...int64) []backend.Info { return []backend.Info{info(outputName, shape...)} }
	for _, c := range []struct {
		name      string
		ins, outs []backend.Info
		fixed     int
		want      string // "" accepted
	}{
		{"dynamic batch", in(-1, 1, 128, 128, 128), out(-1, 3, 128, 128, 128), 0, ""},
		{"fixed batch 2", in(2, 1, 128, 128, 128), out(2, 3, 128, 128, 128), 2, ""},
		{"fixed input, dynamic output", in(1, 1, 128, 128, 128), out(-1, 3, 128, 128, 128), 1, ""},
		{"symbolic spatial dims", in(-1, 1, -1, -1, -1), out(-1, 3, -1, -1, -1), 0, ""},
		{"batches differ", in(1, 1, 128, 128, 128), out(2, 3, 128, 128, 128), 0, "input batch 1 differs from output batch 2"},
		{"2 input channels", in(-1, 2, 128, 128, 128), out(-1, 3, 128, 128, 128), 0, `input "input" is float32 [-1 2 128 128 128], want float32 [N 1 128 128 128]`},
		{"2 classes", in(-1, 1, 128, 128, 128), out(-1, 2, 128, 128, 128), 0, `output "output" is float32 [-1 2 128 128 128], want float32 [N 3 128 128 128]`},
		{"depth 0", in(-1, 1, 0, 128, 128), out(-1, 3, 128, 128, 128), 0, `input "input" is float32 [-1 1 0 128 128]`},
		{"width 127", in(-1, 1, 128, 128, 127), out(-1, 3, 128, 128, 128), 0, `input "input"`},
		{"rank 4", in(-1, 1, 128, 128), out(-1, 3, 128, 128, 128), 0, `input "input"`},
		{"float16 output", in(-1, 1, 128, 128, 128), []backend.Info{{Name: outputName, DType: backend.Float16, Shape: []int64{-1, 3, 128, 128, 128}}}, 0, `output "output" is float16`},
		{"two inputs", append(in(-1, 1, 128, 128, 128), info("x")), out(-1, 3, 128, 128, 128), 0, `want exactly one input "input"`},
		{"input misnamed", []backend.Info{info("images", -1, 1, 128, 128, 128)}, out(-1, 3, 128, 128, 128), 0, `no input "input" among [images float32 [-1 1 128 128 128]]`},
		{"no output", in(-1, 1, 128, 128, 128), nil, 0, `no output "output"`},
	} {
		fixed, err := checkContract(c.ins, c.outs)
		switch {
		case c.want == "" && (err != nil || fixed != c.fixed):
			t.Errorf("%s: fixed %d, %v; want %d", c.name, fixed, err, c.fixed)
		case c.want != "" && (!errors.Is(err, errContract) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want errContract with %q", c.name, err, c.want)
		}
	}
	if _, err := New(nil, nil, 1); err == nil || err.Error() != "unet3d: nil session" {
		t.Errorf("New(nil): %v", err)
	}
}

// TestSegmentRefusesBadEngineOutputs: too few outputs, logits of another
// type or one value short, and an engine error are errors (never a panic),
// as is a volume whose data does not fill its shape.
func TestSegmentRefusesBadEngineOutputs(t *testing.T) {
	shape := [3]int{window, window, window}
	vol := kits19.Volume[float32]{Shape: shape, Data: make([]float32, windowVoxels)}
	boom := errors.New("engine down")
	for _, c := range []struct {
		name string
		run  func(n int) ([]backend.Tensor, error)
		want string
	}{
		{"no outputs", func(int) ([]backend.Tensor, error) { return nil, nil }, `session returned 0 outputs, want "output"`},
		{"float64 logits", func(n int) ([]backend.Tensor, error) {
			return []backend.Tensor{{Name: outputName, Data: make([]float64, n*classes*windowVoxels)}}, nil
		}, `output "output" holds []float64`},
		{"one logit short", func(n int) ([]backend.Tensor, error) {
			return []backend.Tensor{{Name: outputName, Data: make([]float32, n*classes*windowVoxels-1)}}, nil
		}, `want 6291456 float32 logits`},
		{"engine error", func(int) ([]backend.Tensor, error) { return nil, boom }, "unet3d: engine down"},
	} {
		s := &backendtest.Session{
			In:  []backend.Info{info(inputName, -1, 1, window, window, window)},
			Out: []backend.Info{info(outputName, -1, classes, window, window, window)},
			RunFunc: func(_ context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
				return c.run(int(in[0].Shape[0]))
			},
		}
		m, err := New(s, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Segment(context.Background(), vol); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	m, _ := New(&fakeSession{batch: -1}, nil, 1)
	short := kits19.Volume[float32]{Shape: shape, Data: make([]float32, windowVoxels-1)}
	if _, err := m.Segment(context.Background(), short); err == nil || !strings.Contains(err.Error(), "volume [128 128 128] with 2097151 voxels") {
		t.Errorf("short volume: %v", err)
	}
	// A case that is not loaded fails alone.
	m, _ = New(&fakeSession{batch: -1}, func(loadgen.SampleIndex) (kits19.Volume[float32], bool) { return vol, false }, 1)
	out := make([]loadgen.Response, 1)
	if err := m.Predict(context.Background(), []loadgen.SampleIndex{3}, out); err != nil || out[0].Err == nil {
		t.Errorf("case not loaded: Predict %v, response error %v", err, out[0].Err)
	}
}
