package fid

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkFrechetDistance256 is FID on 256-dimensional statistics (the
// real one is 2048: about 512× the Schur work).
func BenchmarkFrechetDistance256(b *testing.B) {
	const rows, dims = 400, 256
	rng := rand.New(rand.NewPCG(2, 2))
	x, y := make([]float64, rows*dims), make([]float64, rows*dims)
	for i := range x {
		x[i], y[i] = math.Abs(rng.NormFloat64()), math.Abs(rng.NormFloat64()+0.1)
	}
	m1, s1, _ := MeanCov(x, rows, dims)
	m2, s2, _ := MeanCov(y, rows, dims)
	for b.Loop() {
		if _, _, err := FrechetDistance(m1, s1, m2, s2); err != nil {
			b.Fatal(err)
		}
	}
}
