//go:build cgo

package retinanet

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
)

func TestTinyModelRuns(t *testing.T) {
	needORT(t)
	path := filepath.Join(t.TempDir(), "m.onnx")
	if err := Build(path, SizeTiny, ArchSeed); err != nil {
		t.Fatal(err)
	}
	s, err := ort.Open(path, ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, err := New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	img := make([]float32, SampleLen)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img {
		img[i] = r.Float32()
	}
	d, err := m.Detect(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d detections, first %v %v %v", len(d.Scores), d.Boxes[:4], d.Scores[:3], d.Labels[:3])
}
