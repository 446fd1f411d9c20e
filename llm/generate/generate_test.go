package generate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/onnx"
)

// prompts returns n pseudo-random prompts of lengths 1..maxLen.
func prompts(n, maxLen, vocab int, seed uint64) [][]int32 {
	rng := onnx.SplitMix64{State: seed}
	out := make([][]int32, n)
	for i := range out {
		l := 1 + int(rng.Next()%uint64(maxLen))
		for range l {
			out[i] = append(out[i], int32(rng.Next()%uint64(vocab)))
		}
	}
	return out
}

func refGreedy(t *testing.T, vocab int, prompt []int32, cfg sample.GreedyConfig) []int32 {
	t.Helper()
	g, err := sample.NewGreedy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	seq := slices.Clone(prompt)
	for !g.Done() {
		tok, _, err := g.Step(refLogits(vocab, seq))
		if err != nil {
			t.Fatal(err)
		}
		seq = append(seq, tok)
	}
	return slices.Clone(g.Tokens())
}

func refBeam(t *testing.T, vocab int, prompt []int32, cfg sample.BeamConfig) []sample.Hypothesis {
	t.Helper()
	cfg.PromptLen = len(prompt)
	b, err := sample.NewBeamSearch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]float32{refLogits(vocab, prompt)}
	for !b.Done() {
		if _, _, _, err := b.StepLogits(rows); err != nil {
			t.Fatal(err)
		}
		rows = rows[:0]
		for j := range cfg.Beams {
			rows = append(rows, refLogits(vocab, append(slices.Clone(prompt), b.Beam(j)...)))
		}
	}
	h, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

type fakeCase struct {
	name  string
	cache backend.DType
	into  bool
	ids   backend.DType
	noPos bool
}

var fakeCases = []fakeCase{
	{"f32-run", backend.Float32, false, backend.Int64, false},
	{"f32-into", backend.Float32, true, backend.Int64, false},
	{"f16-into-int32", backend.Float16, true, backend.Int32, false},
	{"f32-into-nopos", backend.Float32, true, backend.Int64, true},
}

func (c fakeCase) model(t *testing.T, vocab int) (*Model, *fake) {
	t.Helper()
	f := newFake(3, 2, vocab)
	f.cache, f.logits, f.ids, f.noPos = c.cache, c.cache, c.ids, c.noPos
	f.declare()
	var s backend.Session = f
	if c.into {
		s = intoFake{f}
	}
	m, err := New(s, f.spec())
	if err != nil {
		t.Fatal(err)
	}
	return m, f
}

func TestGreedyMatchesReference(t *testing.T) {
	const vocab = 13
	for _, c := range fakeCases {
		for _, n := range []int{1, 5} {
			t.Run(fmt.Sprintf("%s/batch%d", c.name, n), func(t *testing.T) {
				m, _ := c.model(t, vocab)
				ps := prompts(n, 9, vocab, uint64(n)*7+1)
				cfg := GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: 3, MinNewTokens: 2, MaxNewTokens: 12}}
				var want [][]int32
				for _, p := range ps {
					want = append(want, refGreedy(t, vocab, p, cfg.GreedyConfig))
				}
				for _, naive := range []bool{false, true} {
					first := map[int]int32{}
					cfg.FirstToken = func(i int, tok int32) {
						if _, dup := first[i]; dup {
							t.Errorf("FirstToken called twice for prompt %d", i)
						}
						first[i] = tok
					}
					run := m.Greedy
					if naive {
						run = m.GreedyNaive
					}
					got, err := run(context.Background(), ps, cfg)
					if err != nil {
						t.Fatal(err)
					}
					for i := range ps {
						if !slices.Equal(got[i], want[i]) {
							t.Errorf("naive=%v prompt %d (%v): got %v, want %v", naive, i, ps[i], got[i], want[i])
						}
						if first[i] != want[i][0] {
							t.Errorf("naive=%v prompt %d: first token %d, want %d", naive, i, first[i], want[i][0])
						}
					}
				}
			})
		}
	}
}

func TestGreedyEndsOnEOSAndMax(t *testing.T) {
	// Over many prompts some end on EOS and some on MaxNewTokens; rows
	// leave the batch at different steps.
	const vocab = 7
	m, _ := fakeCases[1].model(t, vocab)
	ps := prompts(16, 6, vocab, 99)
	cfg := GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: 2, MinNewTokens: 1, MaxNewTokens: 6}}
	got, err := m.Greedy(context.Background(), ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	eos, full := 0, 0
	for i, g := range got {
		want := refGreedy(t, vocab, ps[i], cfg.GreedyConfig)
		if !slices.Equal(g, want) {
			t.Errorf("prompt %d: got %v, want %v", i, g, want)
		}
		if g[len(g)-1] == 2 {
			eos++
		}
		if len(g) == 6 {
			full++
		}
		if g[0] == 2 {
			t.Errorf("prompt %d: EOS as first token despite MinNewTokens 1", i)
		}
	}
	if eos == 0 || full == 0 {
		t.Errorf("want rows ending both ways: %d on EOS, %d at the maximum", eos, full)
	}
}

// TestGreedyMoreEOS: the decode loop ends rows on any of several EOS ids
// and masks them all under MinNewTokens, as sample.Greedy does.
func TestGreedyMoreEOS(t *testing.T) {
	const vocab = 7
	m, _ := fakeCases[1].model(t, vocab)
	ps := prompts(16, 6, vocab, 99)
	cfg := GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: 2, MoreEOS: []int32{5, 6}, MinNewTokens: 1, MaxNewTokens: 6}}
	got, err := m.Greedy(context.Background(), ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	more := 0
	for i, g := range got {
		if want := refGreedy(t, vocab, ps[i], cfg.GreedyConfig); !slices.Equal(g, want) {
			t.Errorf("prompt %d: got %v, want %v", i, g, want)
		}
		if last := g[len(g)-1]; (last == 5 || last == 6) && len(g) < 6 {
			more++
		}
		if g[0] == 2 || g[0] == 5 || g[0] == 6 {
			t.Errorf("prompt %d: an EOS id as first token despite MinNewTokens 1", i)
		}
		for _, tok := range g[:len(g)-1] {
			if tok == 2 || tok == 5 || tok == 6 {
				t.Errorf("prompt %d: %v goes on after an EOS id", i, g)
			}
		}
	}
	if more == 0 {
		t.Error("no row ended on a MoreEOS id")
	}
}

func TestBeamMatchesReference(t *testing.T) {
	const vocab = 17
	for _, c := range fakeCases {
		for _, n := range []int{1, 4} {
			for _, early := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/batch%d/early=%v", c.name, n, early), func(t *testing.T) {
					m, _ := c.model(t, vocab)
					ps := prompts(n, 7, vocab, uint64(n)*13+5)
					cfg := sample.BeamConfig{Beams: 3, EOS: 4, MinNewTokens: 2, MaxNewTokens: 9, LengthPenalty: 1, EarlyStopping: early, NumReturn: 2}
					for _, naive := range []bool{false, true} {
						run := m.Beam
						if naive {
							run = m.BeamNaive
						}
						got, err := run(context.Background(), ps, cfg)
						if err != nil {
							t.Fatal(err)
						}
						for i, p := range ps {
							want := refBeam(t, vocab, p, cfg)
							if len(got[i]) != len(want) {
								t.Fatalf("naive=%v prompt %d: %d hypotheses, want %d", naive, i, len(got[i]), len(want))
							}
							for k := range want {
								if !slices.Equal(got[i][k].Tokens, want[k].Tokens) || got[i][k].Score != want[k].Score {
									t.Errorf("naive=%v prompt %d hyp %d: got %v (%v), want %v (%v)", naive, i, k, got[i][k].Tokens, got[i][k].Score, want[k].Tokens, want[k].Score)
								}
							}
						}
					}
				})
			}
		}
	}
}

func TestCachedRunsOneTokenPerStep(t *testing.T) {
	// The cached path computes each position once: prefill of the padded
	// batch, then one query per live row and step.
	const vocab = 11
	m, f := fakeCases[1].model(t, vocab)
	p := []int32{1, 5, 7, 9}
	cfg := GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: 10}}
	if _, err := m.Greedy(context.Background(), [][]int32{p}, cfg); err != nil {
		t.Fatal(err)
	}
	if got, want := f.tokens.Load(), int64(len(p)+9); got != want {
		t.Errorf("cached: %d query positions computed, want %d", got, want)
	}
	if got := f.runs.Load(); got != 10 {
		t.Errorf("cached: %d runs, want 10", got)
	}
	f.tokens.Store(0)
	if _, err := m.GreedyNaive(context.Background(), [][]int32{p}, cfg); err != nil {
		t.Fatal(err)
	}
	// naive recomputes the sequence: 4+5+…+13
	if got, want := f.tokens.Load(), int64(85); got != want {
		t.Errorf("naive: %d query positions computed, want %d", got, want)
	}
}

func drop(infos []backend.Info, name string) []backend.Info {
	return slices.DeleteFunc(slices.Clone(infos), func(i backend.Info) bool { return i.Name == name })
}

func TestContract(t *testing.T) {
	base := func() *fake { return newFake(2, 2, 10) }
	cases := []struct {
		name string
		edit func(f *fake) Spec
		want string
	}{
		{"missing present", func(f *fake) Spec { f.outputs = drop(f.outputs, "present.1.value"); return f.spec() }, `output "present.1.value" missing`},
		{"missing input_ids", func(f *fake) Spec { f.inputs = drop(f.inputs, InputIDs); return f.spec() }, `input "input_ids" missing`},
		{"missing logits", func(f *fake) Spec { f.outputs = drop(f.outputs, Logits); return f.spec() }, `output "logits" missing`},
		{"vocab mismatch", func(f *fake) Spec { s := f.spec(); s.Vocab = 11; return s }, `want [batch, seq, 11]`},
		{"more layers in spec", func(f *fake) Spec { s := f.spec(); s.Layers = 3; return s }, `input "past_key_values.2.key" missing`},
		{"kv heads mismatch", func(f *fake) Spec { s := f.spec(); s.KVHeads = 4; return s }, `want [batch, 4, ?, 2]`},
		{"unexpected input", func(f *fake) Spec {
			f.inputs = append(f.inputs, backend.Info{Name: "use_cache_branch", DType: backend.Bool, Shape: []int64{1}})
			return f.spec()
		}, `unexpected input "use_cache_branch"`},
		{"float ids", func(f *fake) Spec { f.inputs[0].DType = backend.Float32; return f.spec() }, `"input_ids" is float32`},
		{"present without past", func(f *fake) Spec {
			for l := range 2 {
				f.inputs = drop(f.inputs, fmt.Sprintf("past_key_values.%d.key", l))
				f.inputs = drop(f.inputs, fmt.Sprintf("past_key_values.%d.value", l))
			}
			return f.spec()
		}, `takes no past_key_values`},
		{"float16 without RunInto", func(f *fake) Spec { f.cache = backend.Float16; f.declare(); return f.spec() }, `needs a session with RunInto`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := base()
			spec := c.edit(f)
			_, err := New(f, spec)
			if !errors.Is(err, ErrContract) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrContract mentioning %q", err, c.want)
			}
		})
	}
}

func TestNoCacheModelRunsNaive(t *testing.T) {
	f := newFake(0, 1, 9)
	f.layers = 0
	f.declare()
	m, err := New(f, Spec{Layers: 1, KVHeads: 1, HeadDim: 2, Vocab: 9})
	if err != nil {
		t.Fatal(err)
	}
	if m.HasCache() {
		t.Fatal("HasCache true for a model without past inputs")
	}
	cfg := GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: 4}}
	ps := [][]int32{{1, 2, 3}, {4}}
	if _, err := m.Greedy(context.Background(), ps, cfg); !errors.Is(err, ErrNoCache) {
		t.Errorf("Greedy on a cache-less model: %v, want ErrNoCache", err)
	}
	got, err := m.GreedyNaive(context.Background(), ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if want := refGreedy(t, 9, p, cfg.GreedyConfig); !slices.Equal(got[i], want) {
			t.Errorf("prompt %d: got %v, want %v", i, got[i], want)
		}
	}
}

func TestBadInput(t *testing.T) {
	f := newFake(1, 1, 10)
	spec := f.spec()
	spec.MaxPositions = 8
	m, err := New(intoFake{f}, spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: 4}}
	cases := []struct {
		name    string
		prompts [][]int32
		cfg     GreedyConfig
		want    string
	}{
		{"no prompts", nil, cfg, "no prompts"},
		{"empty prompt", [][]int32{{1}, {}}, cfg, "prompt 1 is empty"},
		{"token outside vocab", [][]int32{{1, 10}}, cfg, "outside the model's vocabulary"},
		{"negative token", [][]int32{{-1}}, cfg, "outside the model's vocabulary"},
		{"too long", [][]int32{{1, 2, 3, 4, 5}}, cfg, "exceeds the model's context of 8"},
		{"zero max", [][]int32{{1}}, GreedyConfig{GreedyConfig: sample.GreedyConfig{MaxNewTokens: 0}}, "MaxNewTokens 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := m.Greedy(context.Background(), c.prompts, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
	if _, err := m.Beam(context.Background(), [][]int32{{1}}, sample.BeamConfig{Beams: 0, MaxNewTokens: 2}); err == nil {
		t.Error("Beams 0 accepted")
	}
	for _, s := range []Spec{{}, {Layers: 1, KVHeads: 1, HeadDim: 1, Vocab: 1}, {Layers: 1, KVHeads: 1, HeadDim: 1, Vocab: 4, PadID: 4}} {
		if _, err := New(f, s); !errors.Is(err, ErrBadInput) {
			t.Errorf("spec %+v: %v, want ErrBadInput", s, err)
		}
	}
	if _, err := New(nil, f.spec()); err == nil {
		t.Error("nil session accepted")
	}
}

func TestBytesPerToken(t *testing.T) {
	// Llama 2 70B: 80 layers × 8 kv heads × 128 × 2 (K and V) × 2 bytes.
	s := Spec{Layers: 80, KVHeads: 8, HeadDim: 128, Vocab: 32000}
	if got := s.BytesPerToken(backend.Float16); got != 327680 {
		t.Errorf("llama2-70b float16: %d bytes per token, want 327680", got)
	}
	// GPT-J: 28 × 16 × 256 × 2 × 4 bytes.
	s = Spec{Layers: 28, KVHeads: 16, HeadDim: 256, Vocab: 50400}
	if got := s.BytesPerToken(backend.Float32); got != 917504 {
		t.Errorf("gpt-j float32: %d bytes per token, want 917504", got)
	}
}

func TestCancel(t *testing.T) {
	m, _ := fakeCases[1].model(t, 9)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// the fake ignores ctx; the loop must still stop at a step boundary
	_, err := m.Greedy(ctx, [][]int32{{1, 2}}, GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: 50}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}
