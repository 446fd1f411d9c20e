//go:build cgo

package retinanet

import (
	"context"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
)

// BenchmarkPerf is `mlperf perf retinanet`: raw one-image engine calls
// against loadgen Offline runs through the harness (benchmark.Perf). It
// reports images/s of both sides and their ratio. The model is
// RETINANET_BENCH_MODEL (default synthetic:tiny; synthetic for the full
// architecture, or a .onnx file) and each side runs for
// RETINANET_BENCH_SECONDS (default 4) in all:
//
//	RETINANET_BENCH_MODEL=synthetic RETINANET_BENCH_SECONDS=120 \
//	  go test -run '^$' -bench Perf -benchtime 1x ./models/retinanet
func BenchmarkPerf(b *testing.B) {
	orttest.Need(b)
	model := os.Getenv("RETINANET_BENCH_MODEL")
	if model == "" {
		model = "synthetic:tiny"
	}
	secs := 4.0
	if s := os.Getenv("RETINANET_BENCH_SECONDS"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 {
			b.Fatalf("RETINANET_BENCH_SECONDS=%q: want a positive number", s)
		}
		secs = v
	}
	if os.Getenv("MLPERF_CACHE_DIR") == "" {
		b.Setenv("MLPERF_CACHE_DIR", b.TempDir())
	}
	o := benchmark.Options{Model: model, Data: "synthetic", Backend: "cpu", Out: b.TempDir(), Mode: loadgen.PerformanceOnly, Scenario: loadgen.Offline}
	var r benchmark.PerfResult
	for range b.N {
		var err error
		r, err = benchmark.Perf(context.Background(), descriptor, o, time.Duration(secs*float64(time.Second)), io.Discard, os.Stderr)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(r.Raw, "raw-img/s")
	b.ReportMetric(r.Harness, "offline-img/s")
	b.ReportMetric(r.Ratio(), "ratio")
}
