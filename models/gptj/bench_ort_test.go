//go:build cgo

package gptj

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
)

// BenchmarkBeam measures the reference's beam search (4 beams) on the tiny
// GPT-J, 64-token prompt, 32 new tokens: with the KV cache (prefill once,
// cache forked to the beams and reordered by parent) and naive (every
// step recomputes the 4 whole sequences).
func BenchmarkBeam(b *testing.B) {
	needORT(b)
	c := Configs[SizeTiny]
	path := filepath.Join(b.TempDir(), "m.onnx")
	if err := BuildConfigFile(path, c, ArchSeed); err != nil {
		b.Fatal(err)
	}
	s, err := ort.Open(path, ort.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m, err := generate.New(s, c.Spec())
	if err != nil {
		b.Fatal(err)
	}
	prompt := make([]int32, 64)
	for i := range prompt {
		prompt[i] = int32(200 + 97*i%40000)
	}
	const newTokens = 32
	cfg := Generation(sample.LengthWithPrompt)
	cfg.MinNewTokens, cfg.MaxNewTokens = newTokens, newTokens
	ctx := context.Background()
	for _, naive := range []bool{false, true} {
		name, run := "cached", m.Beam
		if naive {
			name, run = "naive", m.BeamNaive
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := run(ctx, [][]int32{prompt}, cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*newTokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
