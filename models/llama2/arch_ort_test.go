//go:build cgo

package llama2

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/onnx"
)

func needORT(t testing.TB) {
	t.Helper()
	if err := ort.Init(); err != nil {
		if errors.Is(err, ort.ErrNoLibrary) {
			t.Skipf("ONNX Runtime not available: %v", err)
		}
		t.Fatal(err)
	}
}

// small is tiny with a small vocabulary, so that decoding tests run fast.
var small = Config{Layers: 2, Hidden: 32, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 97, MaxPositions: 256, RopeTheta: 10000, RMSEps: 1e-5}

func openModel(t testing.TB, c Config) (*ort.Session, *generate.Model) {
	t.Helper()
	needORT(t)
	path := filepath.Join(t.TempDir(), "llama2.onnx")
	if err := BuildConfigFile(path, c, ArchSeed); err != nil {
		t.Fatal(err)
	}
	s, err := ort.Open(path, ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m, err := generate.New(s, c.Spec())
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

func testPrompts(n, maxLen int, vocab int64, seed uint64) [][]int32 {
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

// TestCachedStepEqualsRecompute checks the graph itself: the logits of a
// token fed with the cache of its prefix equal those of the whole sequence
// recomputed, and a left-padded row equals the same row alone.
func TestCachedStepEqualsRecompute(t *testing.T) {
	s, _ := openModel(t, small)
	ctx := context.Background()
	seq := []int64{5, 17, 3, 90, 44, 8}
	full := run(t, s, [][]int64{seq}, nil, 0)
	n := len(seq)
	pre := run(t, s, [][]int64{seq[:n-1]}, nil, 0)
	step := run(t, s, [][]int64{seq[n-1:]}, pre.present, n-1)
	V := int(small.Vocab)
	want := full.logits[(n-1)*V : n*V]
	if d := maxDiff(step.logits, want); d > 1e-4 {
		t.Errorf("cached step differs from recompute by %g", d)
	}
	// the same sequence left-padded by 3 in a batch with a longer one
	padded := append([]int64{2, 2, 2}, seq...)
	other := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	mask := [][]int64{{0, 0, 0, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}}
	both := run(t, s, [][]int64{padded, other}, nil, 0, mask...)
	got := both.logits[(len(padded)-1)*V : len(padded)*V]
	if d := maxDiff(got, want); d > 1e-4 {
		t.Errorf("left-padded row differs from the row alone by %g", d)
	}
	_ = ctx
}

type stepOut struct {
	logits  []float32
	present map[string]backend.Tensor
}

// run feeds rows (equal length) after a past of length pastLen; masks default
// to all ones and positions to pastLen+i (or cumsum of the mask).
func run(t *testing.T, s *ort.Session, rows [][]int64, past map[string]backend.Tensor, pastLen int, masks ...[]int64) stepOut {
	t.Helper()
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
		{Name: "input_ids", DType: backend.Int64, Shape: []int64{int64(B), int64(S)}, Data: ids},
		{Name: "attention_mask", DType: backend.Int64, Shape: []int64{int64(B), int64(T)}, Data: mask},
		{Name: "position_ids", DType: backend.Int64, Shape: []int64{int64(B), int64(S)}, Data: pos},
	}
	D := small.HeadDim()
	for l := range small.Layers {
		for _, kv := range []string{"key", "value"} {
			name := "past_key_values." + itoa(l) + "." + kv
			tt := backend.Tensor{Name: name, DType: backend.Float32, Shape: []int64{int64(B), small.KVHeads, 0, D}, Data: []float32{}}
			if past != nil {
				p := past["present."+itoa(l)+"."+kv]
				tt.Shape, tt.Data = p.Shape, p.Data
			}
			in = append(in, tt)
		}
	}
	out, err := s.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	r := stepOut{present: map[string]backend.Tensor{}}
	for _, o := range out {
		if o.Name == "logits" {
			r.logits = o.Data.([]float32)
		} else {
			r.present[o.Name] = o
		}
	}
	return r
}

func itoa(i int64) string { return string(rune('0' + i)) }

func maxDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func TestCachedEqualsNaiveGreedy(t *testing.T) {
	_, m := openModel(t, small)
	ctx := context.Background()
	cfg := generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: EOS, MinNewTokens: 1, MaxNewTokens: 12}}
	for _, n := range []int{1, 4} {
		ps := testPrompts(n, 10, small.Vocab, uint64(40+n))
		cached, err := m.Greedy(ctx, ps, cfg)
		if err != nil {
			t.Fatal(err)
		}
		naive, err := m.GreedyNaive(ctx, ps, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ps {
			if !slices.Equal(cached[i], naive[i]) {
				t.Errorf("batch %d prompt %d: cached %v, naive %v", n, i, cached[i], naive[i])
			}
			// batched equals alone
			alone, err := m.Greedy(ctx, ps[i:i+1], cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(alone[0], cached[i]) {
				t.Errorf("batch %d prompt %d: batched %v, alone %v", n, i, cached[i], alone[0])
			}
		}
	}
}

func TestCachedEqualsNaiveBeam(t *testing.T) {
	_, m := openModel(t, small)
	ctx := context.Background()
	cfg := sample.BeamConfig{Beams: 4, EOS: EOS, MinNewTokens: 3, MaxNewTokens: 10, LengthPenalty: 1, EarlyStopping: true}
	for _, n := range []int{1, 3} {
		ps := testPrompts(n, 8, small.Vocab, uint64(70+n))
		cached, err := m.Beam(ctx, ps, cfg)
		if err != nil {
			t.Fatal(err)
		}
		naive, err := m.BeamNaive(ctx, ps, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ps {
			c, nv := cached[i][0], naive[i][0]
			if !slices.Equal(c.Tokens, nv.Tokens) || math.Abs(c.Score-nv.Score) > 1e-4 {
				t.Errorf("batch %d prompt %d: cached %v (%v), naive %v (%v)", n, i, c.Tokens, c.Score, nv.Tokens, nv.Score)
			}
		}
	}
}

func TestTinyRuns(t *testing.T) {
	s, m := openModel(t, Configs[SizeTiny])
	if got := len(s.Inputs()); got != 3+2*int(Configs[SizeTiny].Layers) {
		t.Errorf("%d inputs", got)
	}
	out, err := m.Greedy(context.Background(), [][]int32{{BOS, 1724, 338, 29871}}, generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: EOS, MinNewTokens: 1, MaxNewTokens: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out[0]) == 0 || out[0][0] == EOS {
		t.Errorf("generated %v", out[0])
	}
}
