//go:build cgo

package gptj

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
)

// BenchmarkBeam measures the reference's beam search (4 beams) on the tiny
// GPT-J, 64-token prompt, 32 new tokens: with the KV cache (prefill once,
// cache forked to the beams and reordered by parent) and naive (every
// step recomputes the 4 whole sequences).
func BenchmarkBeam(b *testing.B) {
	orttest.Need(b)
	c := Configs[SizeTiny]
	path := filepath.Join(b.TempDir(), "m.onnx")
	if err := BuildConfigFile(path, c, archSeed); err != nil {
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

// benchConfigs are the sizes the decode benchmarks run: tiny (2 layers of
// width 64) and mid (2 layers of GPT-J's full width, 4096, and its 16384
// MLP: the per-layer cost and the 50400-wide lm_head of the real model).
var benchConfigs = []struct {
	name string
	c    config
}{
	{"tiny", Configs[SizeTiny]},
	{"mid", config{Layers: 2, Hidden: 4096, Heads: 16, RotaryDim: 64, Inner: 16384, Vocab: 50400, MaxPositions: 2048, LNEps: 1e-5}},
}

func openBench(b *testing.B, c config) (*ort.Session, *generate.Model) {
	b.Helper()
	orttest.Need(b)
	path := filepath.Join(b.TempDir(), "m.onnx")
	if err := BuildConfigFile(path, c, archSeed); err != nil {
		b.Fatal(err)
	}
	s, err := ort.Open(path, ort.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	m, err := generate.New(s, c.Spec())
	if err != nil {
		b.Fatal(err)
	}
	return s, m
}

func benchPrompt(n, salt int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(200 + (97*i+31*salt)%40000)
	}
	return p
}

// rawDecoder returns what the beam search's engine work is, straight on
// ONNX Runtime with tensors allocated once (the decode loop's buffers live
// in a pooled state too): a prefill of the prompt on one row, then steps
// of `rows` rows (the beams), each step's present outputs written in place
// into the buffers the next step reads as its past. No log-softmax, no
// top-k, no cache reorder.
func rawDecoder(s *ort.Session, c config, promptLen, rows, steps int) func(ctx context.Context, prompt []int32) error {
	H, D := c.Heads, c.HeadDim()
	L := int(c.Layers)
	maxT := promptLen + steps
	cur := make([][]float32, 2*L)
	next := make([][]float32, 2*L)
	for i := range cur {
		cur[i] = make([]float32, rows*int(H*D)*maxT)
		next[i] = make([]float32, rows*int(H*D)*maxT)
	}
	logits := make([]float32, max(rows, promptLen)*int(c.Vocab))
	mask := make([]int64, rows*(maxT+1))
	pos := make([]int64, max(rows, promptLen))
	ids := make([]int64, max(rows, promptLen))
	for i := range mask {
		mask[i] = 1
	}
	var in, out []backend.Tensor
	run := func(ctx context.Context, n, S, T int, ids []int64) error {
		for r := range n {
			for j := range S {
				pos[r*S+j] = int64(T + j)
			}
		}
		in = append(in[:0],
			backend.Tensor{Name: generate.InputIDs, DType: backend.Int64, Shape: []int64{int64(n), int64(S)}, Data: ids},
			backend.Tensor{Name: generate.AttentionMask, DType: backend.Int64, Shape: []int64{int64(n), int64(T + S)}, Data: mask[:n*(T+S)]},
			backend.Tensor{Name: generate.PositionIDs, DType: backend.Int64, Shape: []int64{int64(n), int64(S)}, Data: pos[:n*S]},
		)
		out = append(out[:0], backend.Tensor{Name: generate.Logits, DType: backend.Float32, Shape: []int64{int64(n), int64(S), c.Vocab}, Data: logits[:n*S*int(c.Vocab)]})
		for l := range L {
			for j, names := range [][2]string{{"past_key_values.%d.key", "present.%d.key"}, {"past_key_values.%d.value", "present.%d.value"}} {
				i := 2*l + j
				in = append(in, backend.Tensor{Name: fmt.Sprintf(names[0], l), DType: backend.Float32, Shape: []int64{int64(n), H, int64(T), D}, Data: cur[i][:n*int(H*D)*T]})
				out = append(out, backend.Tensor{Name: fmt.Sprintf(names[1], l), DType: backend.Float32, Shape: []int64{int64(n), H, int64(T + S), D}, Data: next[i][:n*int(H*D)*(T+S)]})
			}
		}
		if err := s.RunInto(ctx, in, out); err != nil {
			return err
		}
		cur, next = next, cur
		return nil
	}
	return func(ctx context.Context, prompt []int32) error {
		for i, t := range prompt {
			ids[i] = int64(t)
		}
		if err := run(ctx, 1, len(prompt), 0, ids[:len(prompt)]); err != nil {
			return err
		}
		T := len(prompt)
		for range steps {
			// The rows continue from the prefilled one (their caches are
			// not filled in: the cost of a step does not depend on the
			// values).
			if err := run(ctx, rows, 1, T, ids[:rows]); err != nil {
				return err
			}
			T++
		}
		return nil
	}
}

// BenchmarkDecodeOverhead compares the beam search through llm/generate
// (prefill once, fork to 4 beams, per step: log-softmax over 4×50400,
// top-8, hypothesis bookkeeping, cache reorder by parent beam) with the
// same engine work run raw on ONNX Runtime (rawDecoder): 64-token prompt,
// exactly 32 new tokens, which is the prefill (it gives the first token)
// and 31 steps of 4 rows in both. overhead-% = (loop − raw) / raw per
// generated token.
func BenchmarkDecodeOverhead(b *testing.B) {
	const promptLen, newTokens = 64, 32
	ctx := context.Background()
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			s, m := openBench(b, bc.c)
			prompt := benchPrompt(promptLen, 0)
			cfg := Generation(sample.LengthWithPrompt)
			cfg.MinNewTokens, cfg.MaxNewTokens = newTokens, newTokens
			raw := rawDecoder(s, bc.c, promptLen, beams, newTokens-1)
			// warm up both paths
			if err := raw(ctx, prompt); err != nil {
				b.Fatal(err)
			}
			if _, err := m.Beam(ctx, [][]int32{prompt}, cfg); err != nil {
				b.Fatal(err)
			}
			var rawT, loopT time.Duration
			for b.Loop() {
				t0 := time.Now()
				if err := raw(ctx, prompt); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := m.Beam(ctx, [][]int32{prompt}, cfg); err != nil {
					b.Fatal(err)
				}
				rawT, loopT = rawT+t1.Sub(t0), loopT+time.Since(t1)
			}
			n := float64(b.N * newTokens)
			b.ReportMetric(float64(rawT.Microseconds())/n, "raw-µs/token")
			b.ReportMetric(float64(loopT.Microseconds())/n, "loop-µs/token")
			b.ReportMetric(100*(loopT.Seconds()-rawT.Seconds())/rawT.Seconds(), "overhead-%")
		})
	}
}

// BenchmarkOfflineBatching measures generated tokens/s of the reference's
// beam search (4 beams, 64..96-token prompts, 32 new tokens each) for 4
// prompts run one at a time (the reference's Offline loop) and as one
// batch of 16 rows (mlperf run gptj --batch 4).
func BenchmarkOfflineBatching(b *testing.B) {
	const newTokens, n = 32, 4
	ctx := context.Background()
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			_, m := openBench(b, bc.c)
			prompts := make([][]int32, n)
			for i := range prompts {
				prompts[i] = benchPrompt(64+8*i, i)
			}
			cfg := Generation(sample.LengthWithPrompt)
			cfg.MinNewTokens, cfg.MaxNewTokens = newTokens, newTokens
			for _, batch := range []int{1, n} {
				b.Run(fmt.Sprintf("batch%d", batch), func(b *testing.B) {
					for b.Loop() {
						for i := 0; i < n; i += batch {
							if _, err := m.Beam(ctx, prompts[i:i+batch], cfg); err != nil {
								b.Fatal(err)
							}
						}
					}
					b.ReportMetric(float64(b.N*n*newTokens)/b.Elapsed().Seconds(), "tokens/s")
				})
			}
		})
	}
}
