//go:build cgo

package llama2

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/decoder/decodertest"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/kvcache"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/onnx"
)

// rawGreedy is the leanest greedy loop over the session: RunInto with
// preallocated ping-pong cache buffers, an all-ones mask and argmax. It is
// the "raw ONNX Runtime step time" the decode loop's overhead is measured
// against.
type rawGreedy struct {
	s    *timedSession
	c    config
	bufs [2][][]float32
	lo   []float32
}

func newRawGreedy(s *timedSession, c config, maxT int) *rawGreedy {
	r := &rawGreedy{s: s, c: c, lo: make([]float32, maxT*int(c.Vocab))}
	n := int(c.KVHeads * c.HeadDim())
	for i := range r.bufs {
		r.bufs[i] = make([][]float32, 2*c.Layers)
		for j := range r.bufs[i] {
			r.bufs[i][j] = make([]float32, maxT*n)
		}
	}
	return r
}

func (r *rawGreedy) run(ctx context.Context, prompt []int32, newTokens int) ([]int32, error) {
	c := r.c
	KV, D, V := c.KVHeads, c.HeadDim(), int(c.Vocab)
	ids := make([]int64, len(prompt))
	for i, t := range prompt {
		ids[i] = int64(t)
	}
	var out []int32
	past, cur := 0, 0
	mask := make([]int64, 0, len(prompt)+newTokens)
	for len(out) < newTokens {
		S := len(ids)
		T := past + S
		for len(mask) < T {
			mask = append(mask, 1)
		}
		pos := make([]int64, S)
		for i := range pos {
			pos[i] = int64(past + i)
		}
		in := []backend.Tensor{
			{Name: "input_ids", DType: backend.Int64, Shape: []int64{1, int64(S)}, Data: ids},
			{Name: "attention_mask", DType: backend.Int64, Shape: []int64{1, int64(T)}, Data: mask[:T]},
			{Name: "position_ids", DType: backend.Int64, Shape: []int64{1, int64(S)}, Data: pos},
		}
		outs := []backend.Tensor{{Name: "logits", DType: backend.Float32, Shape: []int64{1, int64(S), int64(V)}, Data: r.lo[:S*V]}}
		n := int(KV * D)
		for l := range int(c.Layers) {
			pk, pv := kvcache.PastNames(l)
			qk, qv := kvcache.PresentNames(l)
			for j, names := range [][2]string{{pk, qk}, {pv, qv}} {
				in = append(in, backend.Tensor{Name: names[0], DType: backend.Float32, Shape: []int64{1, KV, int64(past), D}, Data: r.bufs[cur][2*l+j][:past*n]})
				outs = append(outs, backend.Tensor{Name: names[1], DType: backend.Float32, Shape: []int64{1, KV, int64(T), D}, Data: r.bufs[1-cur][2*l+j][:T*n]})
			}
		}
		if err := r.s.RunInto(ctx, in, outs); err != nil {
			return nil, err
		}
		cur = 1 - cur
		past = T
		tok := int32(sample.Argmax(r.lo[(S-1)*V : S*V]))
		out = append(out, tok)
		ids = []int64{int64(tok)}
	}
	return out, nil
}

// timedSession adds up the time spent in ONNX Runtime.
type timedSession struct {
	*ort.Session
	in time.Duration
}

func (t *timedSession) RunInto(ctx context.Context, in, out []backend.Tensor) error {
	start := time.Now()
	err := t.Session.RunInto(ctx, in, out)
	t.in += time.Since(start)
	return err
}

// BenchmarkDecode measures greedy decoding per generated token: "raw" is the
// leanest hand-written loop over the same session, "generate" is
// llm/generate's Greedy. Each also reports overhead-%: the time spent
// outside ONNX Runtime's Run relative to the time inside it, measured in the
// same iterations (robust to a noisy machine).
func BenchmarkDecode(b *testing.B) {
	orttest.Need(b)
	for size, c := range benchConfigs() {
		path := filepath.Join(b.TempDir(), "m.onnx")
		if err := BuildConfigFile(path, c, archSeed); err != nil {
			b.Fatal(err)
		}
		s, err := ort.Open(path, ort.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		ts := &timedSession{Session: s}
		m, err := generate.New(ts, c.Spec())
		if err != nil {
			b.Fatal(err)
		}
		const promptLen, newTokens = 64, 64
		prompt := make([]int32, promptLen)
		for i := range prompt {
			prompt[i] = int32(100 + 37*i%3000)
		}
		ctx := context.Background()
		raw := newRawGreedy(ts, c, promptLen+newTokens)
		want, err := raw.run(ctx, prompt, newTokens)
		if err != nil {
			b.Fatal(err)
		}
		cfg := generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: newTokens}}
		got, err := m.Greedy(ctx, [][]int32{prompt}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if fmt.Sprint(got[0]) != fmt.Sprint(want) {
			b.Fatalf("generate %v, raw %v", got[0], want)
		}
		b.Run(size+"/raw", func(b *testing.B) {
			ts.in = 0
			for b.Loop() {
				if _, err := raw.run(ctx, prompt, newTokens); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*newTokens), "ns/token")
			b.ReportMetric(100*float64(b.Elapsed()-ts.in)/float64(ts.in), "overhead-%")
		})
		b.Run(size+"/generate", func(b *testing.B) {
			ts.in = 0
			for b.Loop() {
				if _, err := m.Greedy(ctx, [][]int32{prompt}, cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*newTokens), "ns/token")
			b.ReportMetric(100*float64(b.Elapsed()-ts.in)/float64(ts.in), "overhead-%")
		})
	}
}

// benchConfigs are the sizes the throughput benchmark runs: tiny always,
// and two layers of the 7B width when MLPERF_LLM_BENCH_MID=1 (a 2.7 GB
// model file in the temporary folder).
func benchConfigs() map[string]config {
	cs := map[string]config{SizeTiny: Configs[SizeTiny]}
	if os.Getenv("MLPERF_LLM_BENCH_MID") == "1" {
		c := Configs[size7B]
		c.Layers = 2
		cs["7b-width-2-layers"] = c
	}
	return cs
}

// BenchmarkOffline measures Offline throughput in generated tokens per
// second over 16 prompts of 16..128 tokens and 8..64 new tokens each: one
// sequence at a time, a static batch of all (Greedy), and continuous
// batching with 8 rows.
func BenchmarkOffline(b *testing.B) {
	orttest.Need(b)
	for name, c := range benchConfigs() {
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
		rng := onnx.SplitMix64{State: 5}
		const n = 16
		prompts := make([][]int32, n)
		newTok := make([]int, n)
		total := 0
		for i := range prompts {
			l := 16 + int(rng.Next()%113)
			for range l {
				prompts[i] = append(prompts[i], int32(3+rng.Next()%uint64(c.Vocab-3)))
			}
			newTok[i] = 8 + int(rng.Next()%57)
			total += newTok[i]
		}
		ctx := context.Background()
		// EOS disabled so that every prompt generates exactly newTok tokens
		cfg := func(i int) generate.GreedyConfig {
			return generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: newTok[i]}}
		}
		report := func(b *testing.B) {
			b.ReportMetric(float64(b.N*total)/b.Elapsed().Seconds(), "tokens/s")
		}
		b.Run(name+"/sequential", func(b *testing.B) {
			for b.Loop() {
				for i, p := range prompts {
					if _, err := m.Greedy(ctx, [][]int32{p}, cfg(i)); err != nil {
						b.Fatal(err)
					}
				}
			}
			report(b)
		})
		b.Run(name+"/continuous-8", func(b *testing.B) {
			for b.Loop() {
				bt, err := m.NewBatcher(generate.BatcherConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: 64}, MaxBatch: 8})
				if err != nil {
					b.Fatal(err)
				}
				var failed error
				for i, p := range prompts {
					bt.Submit(&generate.Request{Prompt: p, MaxNewTokens: newTok[i], Done: func(toks []int32, err error) {
						if err != nil || len(toks) != newTok[i] {
							failed = fmt.Errorf("request %d: %d tokens, %v", i, len(toks), err)
						}
					}})
				}
				bt.Close()
				if err := bt.Run(ctx); err != nil || failed != nil {
					b.Fatal(err, failed)
				}
			}
			report(b)
		})
	}
}

// BenchmarkKVCache reports the KV cache memory per token of one sequence:
// arith-B/token is 2 × layers × kv heads × head dim × 4 bytes
// (Spec.BytesPerToken), present-B/token the bytes of the present.* outputs
// ONNX Runtime returns for a prefill of 4 rows × 32 tokens divided by those
// 128 tokens (they must agree: the export carries the grouped-query cache,
// not one per query head), and 70b-fp16-B/token the arithmetic of the real
// model with a float16 cache. The Go decode state holds two such buffers
// per layer (past and present, swapped each step) sized for the longest
// row. The timed loop is the prefill.
func BenchmarkKVCache(b *testing.B) {
	orttest.Need(b)
	for size, c := range benchConfigs() {
		path := filepath.Join(b.TempDir(), "m.onnx")
		if err := BuildConfigFile(path, c, archSeed); err != nil {
			b.Fatal(err)
		}
		s, err := ort.Open(path, ort.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		spec := c.Spec()
		rows := make([][]int64, 4)
		for r := range rows {
			for k := range 32 {
				rows[r] = append(rows[r], int64(3+(r*31+k*7)%int(c.Vocab-3)))
			}
		}
		b.Run(size, func(b *testing.B) {
			var bytes int64
			for b.Loop() {
				st, err := decodertest.Run(s, spec, rows, nil, 0, nil)
				if err != nil {
					b.Fatal(err)
				}
				bytes = 0
				for _, t := range st.Present {
					bytes += int64(backend.DataLen(t.DType, t.Data)) * int64(t.DType.Size())
				}
			}
			arith := spec.BytesPerToken(backend.Float32)
			if got := bytes / (4 * 32); got != arith {
				b.Fatalf("present outputs hold %d bytes per token, the arithmetic %d", got, arith)
			}
			b.ReportMetric(float64(arith), "arith-B/token")
			b.ReportMetric(float64(bytes)/(4*32), "present-B/token")
			b.ReportMetric(float64(Configs[size70B].Spec().BytesPerToken(backend.Float16)), "70b-fp16-B/token")
		})
	}
}
