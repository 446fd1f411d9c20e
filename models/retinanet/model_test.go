package retinanet

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/loadgen"
)

func contractInputs(shape ...int64) []backend.Info {
	return []backend.Info{{Name: inputName, DType: backend.Float32, Shape: shape}}
}

func contractOutputs() []backend.Info {
	return []backend.Info{
		{Name: labelsName, DType: backend.Int64, Shape: []int64{-1}},
		{Name: boxesName, DType: backend.Float32, Shape: []int64{-1, 4}},
		{Name: scoresName, DType: backend.Float32, Shape: []int64{-1}},
	}
}

// TestCheckContractEachBranch: every way a model can differ from the
// official contract is refused with its own message, and the accepted
// shapes (batch 1 or symbolic) pass.
func TestCheckContractEachBranch(t *testing.T) {
	outs := contractOutputs()
	with := func(i int, f func(*backend.Info)) []backend.Info {
		o := slices.Clone(outs)
		for k := range o {
			o[k].Shape = slices.Clone(o[k].Shape)
		}
		f(&o[i])
		return o
	}
	for _, c := range []struct {
		name    string
		in, out []backend.Info
		want    string // "" accepted
	}{
		{"batch 1", contractInputs(1, 3, 800, 800), outs, ""},
		{"symbolic batch", contractInputs(-1, 3, 800, 800), outs, ""},
		{"batch 2", contractInputs(2, 3, 800, 800), outs, `input "images" has batch size 2`},
		{"two inputs", append(contractInputs(1, 3, 800, 800), backend.Info{Name: "x"}), outs, `want exactly one input "images"`},
		{"no input", nil, outs, `want exactly one input "images", model has none`},
		{"float16 input", []backend.Info{{Name: inputName, DType: backend.Float16, Shape: []int64{1, 3, 800, 800}}}, outs, "want float32 [1 3 800 800]"},
		{"rank 3", contractInputs(3, 800, 800), outs, "want float32 [1 3 800 800]"},
		{"4 channels", contractInputs(1, 4, 800, 800), outs, "want float32 [1 3 800 800]"},
		{"height 799", contractInputs(1, 3, 799, 800), outs, "want float32 [1 3 800 800]"},
		{"width 801", contractInputs(1, 3, 800, 801), outs, "want float32 [1 3 800 800]"},
		{"no boxes", contractInputs(1, 3, 800, 800), outs[:1], `no output "boxes" among "labels" int64 [-1]`},
		{"no scores", contractInputs(1, 3, 800, 800), outs[:2], `no output "scores"`},
		{"no labels", contractInputs(1, 3, 800, 800), outs[1:], `no output "labels"`},
		{"boxes of 5", contractInputs(1, 3, 800, 800), with(1, func(o *backend.Info) { o.Shape[1] = 5 }), `output "boxes" is float32 [-1 5], want float32 of rank 2`},
		{"boxes rank 1", contractInputs(1, 3, 800, 800), with(1, func(o *backend.Info) { o.Shape = []int64{-1} }), `output "boxes"`},
		{"scores rank 2", contractInputs(1, 3, 800, 800), with(2, func(o *backend.Info) { o.Shape = []int64{-1, 1} }), `output "scores"`},
		{"labels int32", contractInputs(1, 3, 800, 800), with(0, func(o *backend.Info) { o.DType = backend.Int32 }), `output "labels" is int32 [-1], want int64 of rank 1`},
		{"scores float16", contractInputs(1, 3, 800, 800), with(2, func(o *backend.Info) { o.DType = backend.Float16 }), `output "scores"`},
	} {
		err := checkContract(c.in, c.out)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, errContract) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want errContract with %q", c.name, err, c.want)
		}
	}
}

// fakeDetector answers every Run with fixed outputs, in the contract's
// output order (labels, boxes, scores).
func fakeDetector(boxes, scores []float32, labels []int64) *backendtest.Session {
	return &backendtest.Session{In: contractInputs(1, 3, 800, 800), Out: contractOutputs(),
		RunFunc: func(context.Context, []backend.Tensor) ([]backend.Tensor, error) {
			return []backend.Tensor{
				{Name: labelsName, Data: labels},
				{Name: boxesName, Data: boxes},
				{Name: scoresName, Data: scores},
			}, nil
		}}
}

// TestPredictEncodesDetectionsAboveTheThreshold: outputs found by name
// whatever their order; detections encoded as the reference's 7 floats
// [idx, y1/800, x1/800, y2/800, x2/800, score, label] until the first score
// under 0.05 (0.05 itself is kept); a sample not loaded, or of the wrong
// length, fails alone.
func TestPredictEncodesDetectionsAboveTheThreshold(t *testing.T) {
	boxes := []float32{80, 160, 240, 400, 0, 0, 800, 800, 1, 2, 3, 4}
	sess := fakeDetector(boxes, []float32{0.9, 0.05, 0.0499}, []int64{7, 12, 3})
	img := make([]float32, sampleLen)
	m, err := New(sess, func(i loadgen.SampleIndex) ([]float32, bool) {
		switch i {
		case 4:
			return img, true
		case 6:
			return img[1:], true
		}
		return nil, false
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]loadgen.Response, 3)
	if err := m.Predict(context.Background(), []loadgen.SampleIndex{4, 5, 6}, out); err != nil {
		t.Fatal(err)
	}
	var got []float32
	for i := 0; i+4 <= len(out[0].Data); i += 4 {
		got = append(got, math.Float32frombits(binary.LittleEndian.Uint32(out[0].Data[i:])))
	}
	want := []float32{4, 0.2, 0.1, 0.5, 0.3, 0.9, 7, 4, 0, 0, 1, 1, 0.05, 12}
	if !slices.Equal(got, want) {
		t.Errorf("sample 4 encoded %v, want %v", got, want)
	}
	for _, i := range []int{1, 2} {
		if out[i].Err == nil || out[i].Data != nil {
			t.Errorf("sample %d (not loaded or short): %v, %x", 4+i, out[i].Err, out[i].Data)
		}
	}
	if m2, _ := New(sess, nil); m2.Predict(context.Background(), []loadgen.SampleIndex{4}, make([]loadgen.Response, 1)) == nil {
		t.Error("Predict without a sample source: no error")
	}
}

// TestDetectRefusesOutputsThatDisagree: outputs whose lengths or types do
// not describe one set of detections, too few outputs, and an image of the
// wrong size are errors.
func TestDetectRefusesOutputsThatDisagree(t *testing.T) {
	img := make([]float32, sampleLen)
	for _, c := range []struct {
		name string
		sess *backendtest.Session
		img  []float32
		want string
	}{
		{"one box value too many", fakeDetector(make([]float32, 9), make([]float32, 2), make([]int64, 2)), img, "outputs of 9 boxes values, 2 scores and 2 labels"},
		{"one label too many", fakeDetector(make([]float32, 8), make([]float32, 2), make([]int64, 3)), img, "8 boxes values, 2 scores and 3 labels"},
		{"short image", fakeDetector(nil, nil, nil), img[1:], "image of 1919999 values, want 1920000 (3×800×800)"},
	} {
		m, err := New(c.sess, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Detect(context.Background(), c.img); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	few := fakeDetector(nil, nil, nil)
	few.RunFunc = func(context.Context, []backend.Tensor) ([]backend.Tensor, error) {
		return []backend.Tensor{{Name: labelsName, Data: []int64{}}, {Name: boxesName, Data: []float32{}}}, nil
	}
	m, _ := New(few, nil)
	if _, err := m.Detect(context.Background(), img); err == nil || !strings.Contains(err.Error(), "session returned 2 outputs") {
		t.Errorf("two outputs: %v", err)
	}
	wrongType := fakeDetector(nil, nil, nil)
	wrongType.RunFunc = func(context.Context, []backend.Tensor) ([]backend.Tensor, error) {
		return []backend.Tensor{{Name: labelsName, Data: []int32{}}, {Name: boxesName, Data: []float32{}}, {Name: scoresName, Data: []float32{}}}, nil
	}
	m, _ = New(wrongType, nil)
	if _, err := m.Detect(context.Background(), img); err == nil || !strings.Contains(err.Error(), "[]int32") {
		t.Errorf("int32 labels: %v", err)
	}
	if _, err := New(nil, nil); err == nil {
		t.Error("New(nil): no error")
	}
}

// TestScoreWarnsOfNoDetections: a log whose every response is empty scores
// mAP 0 and says so on stderr (accuracy-openimages.py crashes there); a nil
// Stderr is allowed.
func TestScoreWarnsOfNoDetections(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	var log strings.Builder
	log.WriteString("[\n")
	for i := range synthSamples {
		if i > 0 {
			log.WriteString(",\n")
		}
		fmt.Fprintf(&log, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "" }`, i, i)
	}
	log.WriteString("\n]\n")
	path := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	os.WriteFile(path, []byte(log.String()), 0o644)
	var stderr bytes.Buffer
	req := &spec.ScoreRequest{Log: path, Data: "synthetic", CacheDir: t.TempDir(), Stderr: &stderr}
	sc, err := descriptor.Driver.Score(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Lines) != 1 || !strings.Contains(sc.Lines[0], "mAP=0.000%") || !strings.Contains(stderr.String(), "retinanet: warning: no detections at all") {
		t.Errorf("score %v, stderr %q", sc.Lines, stderr.String())
	}
	req.Stderr = nil
	if _, err := descriptor.Driver.Score(context.Background(), req); err != nil {
		t.Errorf("nil Stderr: %v", err)
	}
}
