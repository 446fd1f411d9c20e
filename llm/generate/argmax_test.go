package generate

import (
	"math"
	"testing"

	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/onnx"
)

func TestArgmaxMatchesSample(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	rows := [][]float32{
		{}, {1}, {nan}, {1, nan, 2, nan}, {-inf, -inf}, {inf, 1, inf}, {negZero, 0}, {0, negZero},
		{1, 2, 3, 3, 2, 1, 3}, {5, 4, 3, 2, 1, 0, -1, -2, -3}, {-inf, -1, -inf, -1},
	}
	rng := onnx.SplitMix64{State: 8}
	for n := 1; n < 40; n++ {
		r := make([]float32, n)
		for i := range r {
			r[i] = float32(rng.Next()%7) - 3 // many ties
		}
		rows = append(rows, r)
	}
	for _, r := range rows {
		if got, want := argmax(r), sample.Argmax(r); got != want {
			t.Errorf("%v: argmax %d, sample.Argmax %d", r, got, want)
		}
	}
}

func BenchmarkArgmax(b *testing.B) {
	rng := onnx.SplitMix64{State: 1}
	row := make([]float32, 32000)
	for i := range row {
		row[i] = float32(rng.Float64())
	}
	b.Run("sample", func(b *testing.B) {
		for b.Loop() {
			sample.Argmax(row)
		}
	})
	b.Run("generate", func(b *testing.B) {
		for b.Loop() {
			argmax(row)
		}
	})
}
