package yolo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
	"github.com/mlperf-go/inference/loadgen"
)

var (
	exportIn  = backend.Info{Name: inputName, DType: backend.Float32, Shape: []int64{1, 3, inputSize, inputSize}}
	exportOut = backend.Info{Name: outputName, DType: backend.Float32, Shape: []int64{1, 84, 8400}}
)

// The export's contract is accepted (also with symbolic batch and output
// dimensions); other models are refused with errContract and a message
// naming what differs: RetinaNet's, a dynamic-size export, batch 2, an
// end-to-end export with NMS in the graph, float16.
func TestCheckContract(t *testing.T) {
	sym := func(i backend.Info, shape ...int64) backend.Info { i.Shape = shape; return i }
	cases := []struct {
		name    string
		in, out []backend.Info
		want    string // "" accepts
	}{
		{"export", []backend.Info{exportIn}, []backend.Info{exportOut}, ""},
		{"symbolic batch", []backend.Info{sym(exportIn, -1, 3, 640, 640)}, []backend.Info{sym(exportOut, -1, 84, -1)}, ""},
		{"retinanet", []backend.Info{{Name: "images", DType: backend.Float32, Shape: []int64{1, 3, 800, 800}}},
			[]backend.Info{{Name: "boxes", DType: backend.Float32, Shape: []int64{-1, 4}}, {Name: "scores", DType: backend.Float32, Shape: []int64{-1}}, {Name: "labels", DType: backend.Int64, Shape: []int64{-1}}},
			"want float32 [1,3,640,640]"},
		{"dynamic size", []backend.Info{sym(exportIn, 1, 3, -1, -1)}, []backend.Info{exportOut}, "want float32 [1,3,640,640]"},
		{"batch 2", []backend.Info{sym(exportIn, 2, 3, 640, 640)}, []backend.Info{exportOut}, "one image"},
		{"nms in graph", []backend.Info{exportIn}, []backend.Info{sym(exportOut, 1, 300, 6)}, "NMS not in the graph"},
		{"renamed output", []backend.Info{exportIn}, []backend.Info{{Name: "output", DType: backend.Float32, Shape: []int64{1, 84, 8400}}}, `no output "output0"`},
		{"float16", []backend.Info{{Name: inputName, DType: backend.Float16, Shape: exportIn.Shape}}, []backend.Info{exportOut}, "float16"},
		{"two inputs", []backend.Info{exportIn, exportIn}, []backend.Info{exportOut}, "exactly one input"},
	}
	for _, c := range cases {
		err := checkContract(c.in, c.out)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, errContract) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrContract mentioning %q", c.name, err, c.want)
		}
	}
}

// Predict runs each loaded sample through the session, NMS, scaling and
// packing: on the golden raw prediction it answers exactly the response
// yolo_loadgen.py packs. A sample not loaded fails alone; an engine error
// or a wrong-sized output fails the call.
func TestPredictMatchesReferenceResponse(t *testing.T) {
	g := loadGolden(t)
	c := g.NMSCases[0]
	raw := rawPrediction(c.Seed, c.NC, c.N, c.Objects)
	sc := c.Scaled[0] // 773×512
	sess := &backendtest.Session{In: []backend.Info{exportIn}, Out: []backend.Info{exportOut},
		RunFunc: func(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
			return []backend.Tensor{{Name: outputName, DType: backend.Float32, Shape: []int64{1, 84, 8400}, Data: raw}}, nil
		}}
	samples := func(i loadgen.SampleIndex) (sample, bool) {
		if i != 7 {
			return sample{}, false
		}
		return sample{Input: make([]float32, sampleLen), Width: sc.W, Height: sc.H}, true
	}
	m, err := New(sess, samples)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]loadgen.Response, 2)
	if err := m.Predict(context.Background(), []loadgen.SampleIndex{7, 8}, out); err != nil {
		t.Fatal(err)
	}
	if out[0].Err != nil || len(out[0].Data) != sc.ResponseLen || sha256Hex(out[0].Data) != sc.Response {
		t.Errorf("sample 7: %d bytes (%v), want the reference's %d", len(out[0].Data), out[0].Err, sc.ResponseLen)
	}
	if out[1].Err == nil {
		t.Error("sample 8 is not loaded, but got no error")
	}

	sess.Err = errors.New("device lost")
	if err := m.Predict(context.Background(), []loadgen.SampleIndex{7}, out[:1]); err == nil || !strings.Contains(err.Error(), "device lost") {
		t.Errorf("engine error: %v", err)
	}
	sess.Err = nil
	sess.RunFunc = func(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
		return []backend.Tensor{{Name: outputName, DType: backend.Float32, Data: raw[:100]}}, nil
	}
	if err := m.Predict(context.Background(), []loadgen.SampleIndex{7}, out[:1]); err == nil || !strings.Contains(err.Error(), "want 705600 float32") {
		t.Errorf("short output: %v", err)
	}
	if _, err := New(&backendtest.Session{In: []backend.Info{exportIn}}, nil); !errors.Is(err, errContract) {
		t.Errorf("session without outputs: %v", err)
	}
}
