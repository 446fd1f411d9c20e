// Package decodertest holds checks shared by the tests of decoder models
// (models/llama2, models/gptj) built with llm/decoder: the graph's cache
// semantics and llm/generate's cached decoding against the naive path. It
// runs on any backend.Session and needs no cgo itself.
package decodertest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/kvcache"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/onnx"
)

// Prompts returns n pseudo-random prompts of 2..maxLen tokens below vocab.
func Prompts(n, maxLen, vocab int, seed uint64) [][]int32 {
	rng := onnx.SplitMix64{State: seed}
	out := make([][]int32, n)
	for i := range out {
		l := 2 + int(rng.Next()%uint64(maxLen-1))
		for range l {
			out[i] = append(out[i], int32(rng.Next()%uint64(vocab)))
		}
	}
	return out
}

// Step is one raw run of a decoder: the logits and the present tensors.
type Step struct {
	Logits  []float32
	Present map[string]backend.Tensor
}

// Run feeds rows (all of one length) after a past of pastLen columns taken
// from past (present.* tensors of an earlier Run; nil: an empty past).
// masks default to all ones; position ids count the unmasked columns (1 at
// masked ones), as transformers derives them.
func Run(s backend.Session, spec generate.Spec, rows [][]int64, past map[string]backend.Tensor, pastLen int, masks [][]int64) (Step, error) {
	B, S := len(rows), len(rows[0])
	T := pastLen + S
	ids := slices.Concat(rows...)
	mask := make([]int64, 0, B*T)
	pos := make([]int64, 0, B*S)
	for b := range B {
		m := slices.Repeat([]int64{1}, T)
		if masks != nil {
			m = masks[b]
		}
		mask = append(mask, m...)
		n := int64(0)
		for c := range T {
			if c >= pastLen {
				p := n
				if m[c] == 0 {
					p = 1
				}
				pos = append(pos, p)
			}
			n += m[c]
		}
	}
	in := []backend.Tensor{
		{Name: generate.InputIDs, DType: backend.Int64, Shape: []int64{int64(B), int64(S)}, Data: ids},
		{Name: generate.AttentionMask, DType: backend.Int64, Shape: []int64{int64(B), int64(T)}, Data: mask},
		{Name: generate.PositionIDs, DType: backend.Int64, Shape: []int64{int64(B), int64(S)}, Data: pos},
	}
	for l := range spec.Layers {
		pk, pv := kvcache.PastNames(l)
		qk, qv := kvcache.PresentNames(l)
		for _, n := range [][2]string{{pk, qk}, {pv, qv}} {
			t := backend.Tensor{Name: n[0], DType: backend.Float32, Shape: []int64{int64(B), int64(spec.KVHeads), 0, int64(spec.HeadDim)}, Data: []float32{}}
			if past != nil {
				p := past[n[1]]
				t.Shape, t.Data = p.Shape, p.Data
			}
			in = append(in, t)
		}
	}
	out, err := s.Run(context.Background(), in)
	if err != nil {
		return Step{}, err
	}
	r := Step{Present: map[string]backend.Tensor{}}
	for _, o := range out {
		if o.Name == generate.Logits {
			r.Logits = o.Data.([]float32)
		} else {
			r.Present[o.Name] = o
		}
	}
	return r, nil
}

// MaxDiff is the largest absolute difference of two equal-length rows.
func MaxDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// CheckGraph checks a float32 decoder graph's cache semantics: a token fed
// with the cache of its prefix gives the logits of the whole sequence
// recomputed; a left-padded row gives those of the row alone; the present
// outputs extend the past; and the context matters (the last token alone
// gives other logits).
func CheckGraph(t *testing.T, s backend.Session, spec generate.Spec) {
	t.Helper()
	V := spec.Vocab
	seq := []int64{5, 17, 3, 90 % int64(V), 44, 8}
	n := len(seq)
	must := func(st Step, err error) Step {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	full := must(Run(s, spec, [][]int64{seq}, nil, 0, nil))
	want := full.Logits[(n-1)*V : n*V]
	pre := must(Run(s, spec, [][]int64{seq[:n-1]}, nil, 0, nil))
	step := must(Run(s, spec, [][]int64{seq[n-1:]}, pre.Present, n-1, nil))
	if d := MaxDiff(step.Logits, want); d > 1e-4 {
		t.Errorf("cached step differs from the recomputed sequence by %g", d)
	}
	k0, _ := kvcache.PresentNames(0)
	if got := step.Present[k0].Shape; !slices.Equal(got, []int64{1, int64(spec.KVHeads), int64(n), int64(spec.HeadDim)}) {
		t.Errorf("%s after a step has shape %v", k0, got)
	}
	if d := MaxDiff(step.Present[k0].Data.([]float32), full.Present[k0].Data.([]float32)); d > 1e-4 {
		t.Errorf("%s of the cached step differs from the recomputed one by %g", k0, d)
	}
	padded := append([]int64{2, 2, 2}, seq...)
	other := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	both := must(Run(s, spec, [][]int64{padded, other}, nil, 0, [][]int64{{0, 0, 0, 1, 1, 1, 1, 1, 1}, slices.Repeat([]int64{1}, 9)}))
	if d := MaxDiff(both.Logits[(len(padded)-1)*V:len(padded)*V], want); d > 1e-4 {
		t.Errorf("left-padded row differs from the row alone by %g", d)
	}
	for _, v := range both.Logits {
		if v != v {
			t.Fatal("NaN logits in a left-padded batch")
		}
	}
	alone := must(Run(s, spec, [][]int64{seq[n-1:]}, nil, 0, nil))
	if d := MaxDiff(alone.Logits, want); d < 1e-3 {
		t.Errorf("logits without context differ by only %g: attention has no effect", d)
	}
}

// CheckCachedEqualsNaive checks that cached decoding gives the naive path's
// tokens, greedy and beam search, alone and in batches of prompts of
// different lengths, and that a batched prompt decodes as it does alone.
func CheckCachedEqualsNaive(t *testing.T, m *generate.Model, eos int32) {
	t.Helper()
	ctx := context.Background()
	V := m.Spec().Vocab
	g := generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: eos, MinNewTokens: 1, MaxNewTokens: 12}}
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprintf("greedy/batch%d", n), func(t *testing.T) {
			ps := Prompts(n, 10, V, uint64(40+n))
			cached, err := m.Greedy(ctx, ps, g)
			if err != nil {
				t.Fatal(err)
			}
			naive, err := m.GreedyNaive(ctx, ps, g)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ps {
				if !slices.Equal(cached[i], naive[i]) {
					t.Errorf("prompt %d: cached %v, naive %v", i, cached[i], naive[i])
				}
				alone, err := m.Greedy(ctx, ps[i:i+1], g)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(alone[0], cached[i]) {
					t.Errorf("prompt %d: batched %v, alone %v", i, cached[i], alone[0])
				}
			}
		})
	}
	b := sample.BeamConfig{Beams: 4, EOS: eos, MinNewTokens: 3, MaxNewTokens: 10, LengthPenalty: 1, EarlyStopping: true, NumReturn: 2}
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("beam/batch%d", n), func(t *testing.T) {
			ps := Prompts(n, 8, V, uint64(70+n))
			cached, err := m.Beam(ctx, ps, b)
			if err != nil {
				t.Fatal(err)
			}
			naive, err := m.BeamNaive(ctx, ps, b)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ps {
				for k := range cached[i] {
					c, nv := cached[i][k], naive[i][k]
					if !slices.Equal(c.Tokens, nv.Tokens) || math.Abs(c.Score-nv.Score) > 1e-4 {
						t.Errorf("prompt %d hypothesis %d: cached %v (%v), naive %v (%v)", i, k, c.Tokens, c.Score, nv.Tokens, nv.Score)
					}
				}
			}
		})
	}
}

// CheckBatcher checks that continuous batching (requests of different
// lengths joining and leaving a running batch) decodes each prompt as Greedy
// does alone.
func CheckBatcher(t *testing.T, m *generate.Model, eos int32) {
	t.Helper()
	cfg := generate.BatcherConfig{GreedyConfig: sample.GreedyConfig{EOS: eos, MinNewTokens: 1, MaxNewTokens: 9}, MaxBatch: 3}
	bt, err := m.NewBatcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ps := Prompts(8, 12, m.Spec().Vocab, 123)
	got := make([][]int32, len(ps))
	errs := make([]error, len(ps))
	for i, p := range ps {
		bt.Submit(&generate.Request{Prompt: p, Done: func(toks []int32, err error) { got[i], errs[i] = toks, err }})
	}
	bt.Close()
	if err := bt.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		alone, err := m.Greedy(context.Background(), [][]int32{p}, generate.GreedyConfig{GreedyConfig: cfg.GreedyConfig})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[i], alone[0]) {
			t.Errorf("request %d: batcher %v, alone %v", i, got[i], alone[0])
		}
	}
}
