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

// benchConfigs are the sizes the decode benchmarks run: tiny (2 layers of
// width 64) and mid (2 layers of GPT-J's full width, 4096, and its 16384
// MLP: the per-layer cost and the 50400-wide lm_head of the real model).
var benchConfigs = []struct {
	name string
	c    Config
}{
	{"tiny", Configs[SizeTiny]},
	{"mid", Config{Layers: 2, Hidden: 4096, Heads: 16, RotaryDim: 64, Inner: 16384, Vocab: 50400, MaxPositions: 2048, LNEps: 1e-5}},
}

func openBench(b *testing.B, c Config) (*ort.Session, *generate.Model) {
	b.Helper()
	needORT(b)
	path := filepath.Join(b.TempDir(), "m.onnx")
	if err := BuildConfigFile(path, c, ArchSeed); err != nil {
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

// rawDecode runs what the beam search's engine work is, straight on ONNX
// Runtime with preallocated tensors: a prefill of the prompt on one row,
// then steps of `rows` rows (the beams), each step's present outputs
// written in place into the buffers the next step reads as its past. No
// log-softmax, no top-k, no cache reorder.
func rawDecode(ctx context.Context, s *ort.Session, c Config, prompt []int32, rows, steps int) error {
	H, D := c.Heads, c.HeadDim()
	L := int(c.Layers)
	maxT := len(prompt) + steps
	cur := make([][]float32, 2*L)
	next := make([][]float32, 2*L)
	for i := range cur {
		cur[i] = make([]float32, rows*int(H*D)*maxT)
		next[i] = make([]float32, rows*int(H*D)*maxT)
	}
	logits := make([]float32, rows*len(prompt)*int(c.Vocab))
	run := func(n, S, T int, ids []int64) error {
		mask := make([]int64, n*(T+S))
		pos := make([]int64, n*S)
		for i := range mask {
			mask[i] = 1
		}
		for r := range n {
			for j := range S {
				pos[r*S+j] = int64(T + j)
			}
		}
		in := []backend.Tensor{
			{Name: generate.InputIDs, DType: backend.Int64, Shape: []int64{int64(n), int64(S)}, Data: ids},
			{Name: generate.AttentionMask, DType: backend.Int64, Shape: []int64{int64(n), int64(T + S)}, Data: mask},
			{Name: generate.PositionIDs, DType: backend.Int64, Shape: []int64{int64(n), int64(S)}, Data: pos},
		}
		out := []backend.Tensor{{Name: generate.Logits, DType: backend.Float32, Shape: []int64{int64(n), int64(S), c.Vocab}, Data: logits[:n*S*int(c.Vocab)]}}
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
	ids := make([]int64, len(prompt))
	for i, t := range prompt {
		ids[i] = int64(t)
	}
	if err := run(1, len(prompt), 0, ids); err != nil {
		return err
	}
	T := len(prompt)
	for range steps {
		// The rows continue from the prefilled one (their caches are not
		// filled in: the cost of a step does not depend on the values).
		if err := run(rows, 1, T, make([]int64, rows)); err != nil {
			return err
		}
		T++
	}
	return nil
}

// BenchmarkDecodeOverhead compares the beam search through llm/generate
// (prefill once, fork to 4 beams, per step: log-softmax over 4×50400,
// top-8, hypothesis bookkeeping, cache reorder by parent beam) with the
// same engine work run raw on ONNX Runtime (rawDecode): 64-token prompt,
// exactly 32 new tokens. overhead-% = (loop − raw) / raw per generated
// token.
func BenchmarkDecodeOverhead(b *testing.B) {
	const promptLen, newTokens = 64, 32
	ctx := context.Background()
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			s, m := openBench(b, bc.c)
			prompt := benchPrompt(promptLen, 0)
			cfg := Generation(sample.LengthWithPrompt)
			cfg.MinNewTokens, cfg.MaxNewTokens = newTokens, newTokens
			// warm up both paths
			if err := rawDecode(ctx, s, bc.c, prompt, Beams, newTokens); err != nil {
				b.Fatal(err)
			}
			if _, err := m.Beam(ctx, [][]int32{prompt}, cfg); err != nil {
				b.Fatal(err)
			}
			var raw, loop time.Duration
			for b.Loop() {
				t0 := time.Now()
				if err := rawDecode(ctx, s, bc.c, prompt, Beams, newTokens); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := m.Beam(ctx, [][]int32{prompt}, cfg); err != nil {
					b.Fatal(err)
				}
				raw, loop = raw+t1.Sub(t0), loop+time.Since(t1)
			}
			n := float64(b.N * newTokens)
			b.ReportMetric(float64(raw.Microseconds())/n, "raw-µs/token")
			b.ReportMetric(float64(loop.Microseconds())/n, "loop-µs/token")
			b.ReportMetric(100*(loop.Seconds()-raw.Seconds())/raw.Seconds(), "overhead-%")
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
