//go:build bigtests

// Opt-in tests on inputs too large to commit or to make in every run:
// `go test -tags bigtests` compiles them, and each reads the environment
// variables its comment names. They are left out of `make test`, so that
// it runs without skips.

package onnx_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx"
)

// TestBigModelExternal writes a model over the 2 GiB protobuf limit (three
// 1 GiB weight matrices), checks that writing it kept memory bounded, and
// runs it in ONNX Runtime against Go. Heavy (3 GiB of disk, ~4 GiB of RAM
// in ONNX Runtime): set MLPERF_BIG_MODEL_TEST=1 to run it.
func TestBigModelExternal(t *testing.T) {
	if os.Getenv("MLPERF_BIG_MODEL_TEST") != "1" {
		t.Skip("set MLPERF_BIG_MODEL_TEST=1 to write and run a 3 GiB model")
	}
	orttest.Need(t)
	const n = 16384
	g := onnx.NewGraph(onnx.Config{Seed: 11})
	y := g.Input("x", onnx.Float, onnx.Fix(1), onnx.Fix(n))
	for i := range 3 {
		y = g.MatMul(y, g.Param(fmt.Sprintf("w%d", i), onnx.Float, []int64{n, n}, onnx.He(n)))
	}
	g.Output(g.Rename(y, "y"), onnx.Float, onnx.Fix(1), onnx.Fix(n))
	p := filepath.Join(t.TempDir(), "big.onnx")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := g.WriteFile(p, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grown := int64(after.Sys) - int64(before.Sys); grown > 256<<20 {
		t.Errorf("writing a 3 GiB model grew the process by %d MiB", grown>>20)
	}
	st, err := os.Stat(onnx.DataPath(p))
	if err != nil || st.Size() < 3*n*n*4 {
		t.Fatalf("side file: %v, %v", st, err)
	}
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(wave(i))
	}
	s, err := ort.Open(p, ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, n}, Data: x}})
	if err != nil {
		t.Fatal(err)
	}
	got := out[0].Data.([]float32)
	// Go reference, one weight row at a time from the documented streams.
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(x[i])
	}
	init := onnx.He(n)
	for i := range 3 {
		r := onnx.SplitMix64{State: onnx.StreamSeed(11, fmt.Sprintf("w%d", i))}
		next := make([]float64, n)
		for k := 0; k < n; k++ {
			for j := 0; j < n; j++ {
				next[j] += v[k] * float64(float32(init.Low+(init.High-init.Low)*r.Float64()))
			}
		}
		v = next
	}
	for j := range v {
		if math.Abs(float64(got[j])-v[j]) > 1e-3*max(1, math.Abs(v[j])) {
			t.Fatalf("y[%d] = %v, want %v", j, got[j], v[j])
		}
	}
}
