//go:build cgo

package resnet50

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx"
)

// archInputs returns n pseudo-images scaled like mean-subtracted pixels.
func archInputs(n int, seed uint64) []float32 {
	rng := onnx.SplitMix64{State: seed}
	x := make([]float32, n*3*archSide*archSide)
	for i := range x {
		x[i] = float32(rng.Float64()*255 - 120)
	}
	return x
}

func TestArchTinyRuns(t *testing.T) {
	orttest.Need(t)
	path := filepath.Join(t.TempDir(), "tiny.onnx")
	if err := buildFile(path, sizeTiny, archSeed); err != nil {
		t.Fatal(err)
	}
	s, err := ort.Open(path, ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = backend.Validate(s,
		[]backend.Info{{Name: archInput, DType: backend.Float32, Shape: []int64{-1, 3, archSide, archSide}}},
		[]backend.Info{
			{Name: archArgMax, DType: backend.Int64, Shape: []int64{-1}},
			{Name: archSoftmax, DType: backend.Float32, Shape: []int64{-1, archClasses}},
		})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	out, err := s.Run(context.Background(), []backend.Tensor{{Name: archInput, DType: backend.Float32,
		Shape: []int64{n, 3, archSide, archSide}, Data: archInputs(n, 7)}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(out[0].Shape) != "[3]" || fmt.Sprint(out[1].Shape) != "[3 1001]" {
		t.Fatalf("output shapes %v %v", out[0].Shape, out[1].Shape)
	}
	am, sm := out[0].Data.([]int64), out[1].Data.([]float32)
	for i := range n {
		row := sm[i*archClasses : (i+1)*archClasses]
		best, sum := 0, 0.0
		for j, p := range row {
			if math.IsNaN(float64(p)) || p < 0 || p > 1 {
				t.Fatalf("image %d: probability %d = %v", i, j, p)
			}
			sum += float64(p)
			if p > row[best] {
				best = j
			}
		}
		if math.Abs(sum-1) > 1e-4 {
			t.Errorf("image %d: probabilities sum to %v", i, sum)
		}
		if am[i] != int64(best) {
			t.Errorf("image %d: ArgMax %d, argmax(softmax) %d", i, am[i], best)
		}
		t.Logf("image %d: class %d, probability %v", i, best, row[best])
		if row[best] > 0.999 {
			t.Errorf("image %d: softmax saturated (%v): synthetic activations are out of scale", i, row[best])
		}
	}
}

// BenchmarkArchFull measures raw ONNX Runtime throughput of the full
// synthetic model (default threads) at batch 1 and 8; the custom metric
// images/s is per image.
func BenchmarkArchFull(b *testing.B) {
	orttest.Need(b)
	path := filepath.Join(b.TempDir(), "full.onnx")
	if err := buildFile(path, sizeFull, archSeed); err != nil {
		b.Fatal(err)
	}
	s, err := ort.Open(path, ort.Options{Outputs: []string{archArgMax}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			in := []backend.Tensor{{Name: archInput, DType: backend.Float32,
				Shape: []int64{int64(n), 3, archSide, archSide}, Data: archInputs(n, 1)}}
			out := []backend.Tensor{{Name: archArgMax, DType: backend.Int64, Shape: []int64{int64(n)}, Data: make([]int64, n)}}
			ctx := context.Background()
			if err := s.RunInto(ctx, in, out); err != nil { // warm-up
				b.Fatal(err)
			}
			for b.Loop() {
				if err := s.RunInto(ctx, in, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}
