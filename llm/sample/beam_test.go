package sample

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// bigramModel is a scripted fake model: the log-probability row depends only
// on the last token of a beam (start for an empty beam). Values are chosen
// so that every sum is exact in float32, which makes the hand computation
// in each case below exact.
type bigramModel struct {
	start []float32
	next  map[int32][]float32
}

func (m bigramModel) row(seq []int32) []float32 {
	if len(seq) == 0 {
		return m.start
	}
	return m.next[seq[len(seq)-1]]
}

// run drives b the way a decode loop does: rows from the live beams, a
// single shared row at the first step. It returns the tokens and parents of
// every step.
func run(t *testing.T, b *BeamSearch, m bigramModel) (steps [][2][]int) {
	t.Helper()
	for !b.Done() {
		var rows [][]float32
		if b.Generated() == 0 {
			rows = [][]float32{m.row(nil)}
		} else {
			for i := range b.cfg.Beams {
				rows = append(rows, m.row(b.Beam(i)))
			}
		}
		toks, parents, _, err := b.Step(rows)
		if err != nil {
			t.Fatal(err)
		}
		ti := make([]int, len(toks))
		for i, v := range toks {
			ti[i] = int(v)
		}
		steps = append(steps, [2][]int{ti, slices.Clone(parents)})
	}
	return steps
}

// lpModel: paths [] (EOS first) and [0 1 EOS] compete under the length
// penalty.
var lpModel = bigramModel{
	start: []float32{-0.5, -8, -3, -1},
	next: map[int32][]float32{
		0: {-4, -0.25, -4, -4},
		1: {-4, -4, -4, -1},
		2: {-4, -4, -4, -4},
	},
}

func TestBeamSearchHandComputed(t *testing.T) {
	const eos = 3
	cases := []struct {
		name    string
		cfg     BeamConfig
		model   bigramModel
		steps   [][2][]int // tokens, parents per step
		want    [][]int32  // returned sequences, best first
		scores  []float64
		numHyps int
	}{
		{
			// Step 1: top-4 = t1 -0.5, t0 -1, t2 -2, EOS -4 (rank 3, not
			// reached). Step 2: EOS of beam 0 (-0.75, rank 0) closes [1]
			// with score -0.75/(3+1); EOS of beam 1 (-2) is rank 2 >= 2
			// beams and is skipped. Step 3: EOS of beam 0 (-2.5, rank 1)
			// closes [0 0] with -2.5/(3+2); two hypotheses: early stop.
			name: "EOS inside and outside the top beams, early stopping",
			cfg:  BeamConfig{Beams: 2, EOS: eos, MaxNewTokens: 5, PromptLen: 3, LengthPenalty: 1, EarlyStopping: true, NumReturn: 2},
			model: bigramModel{
				start: []float32{-1, -0.5, -2, -4},
				next: map[int32][]float32{
					0: {-0.5, -2, -2, -1},
					1: {-3, -3, -3, -0.25},
				},
			},
			steps: [][2][]int{
				{{1, 0}, {0, 0}},
				{{0, 1}, {1, 1}},
				{{0, 1}, {0, 0}},
			},
			want:    [][]int32{{1, eos}, {0, 0, eos}},
			scores:  []float64{-0.75 / 4, -2.5 / 5},
			numHyps: 2,
		},
		{
			// Same run, generated-only length: [1] closes at step 2 with
			// length 2 (EOS counted), [0 0] at step 3 with length 3.
			name: "generated-only length",
			cfg:  BeamConfig{Beams: 2, EOS: eos, MaxNewTokens: 5, PromptLen: 3, LengthPenalty: 1, LengthMode: LengthGenerated, EarlyStopping: true, NumReturn: 2},
			model: bigramModel{
				start: []float32{-1, -0.5, -2, -4},
				next: map[int32][]float32{
					0: {-0.5, -2, -2, -1},
					1: {-3, -3, -3, -0.25},
				},
			},
			steps: [][2][]int{
				{{1, 0}, {0, 0}},
				{{0, 1}, {1, 1}},
				{{0, 1}, {0, 0}},
			},
			want:    [][]int32{{1, eos}, {0, 0, eos}},
			scores:  []float64{-0.75 / 2, -2.5 / 3},
			numHyps: 2,
		},
		{
			// Step 1: EOS at rank 1 closes the empty hypothesis A with sum
			// -1; beams [0] -0.5, [2] -3. Step 2: beams [0 1] -0.75, [0 0]
			// -4.5 (EOS of beam 0 is rank 3). Step 3: EOS of [0 1] closes
			// B = [0 1] with sum -1.75 at rank 0; two hypotheses: stop.
			// Prompt-inclusive: A = -1/10, B = -1.75/12 → A wins.
			name:  "length penalty with prompt picks the short hypothesis",
			cfg:   BeamConfig{Beams: 2, EOS: eos, MaxNewTokens: 8, PromptLen: 10, LengthPenalty: 1, EarlyStopping: true},
			model: lpModel,
			steps: [][2][]int{
				{{0, 2}, {0, 0}},
				{{1, 0}, {0, 0}},
				{{0, 1}, {0, 0}},
			},
			want:    [][]int32{{eos}},
			scores:  []float64{-1.0 / 10},
			numHyps: 2,
		},
		{
			// Generated-only with penalty 2: A = -1/1², B = -1.75/3² → B.
			name:  "length penalty generated-only picks the long hypothesis",
			cfg:   BeamConfig{Beams: 2, EOS: eos, MaxNewTokens: 8, PromptLen: 10, LengthPenalty: 2, LengthMode: LengthGenerated, EarlyStopping: true},
			model: lpModel,
			steps: [][2][]int{
				{{0, 2}, {0, 0}},
				{{1, 0}, {0, 0}},
				{{0, 1}, {0, 0}},
			},
			want:    [][]int32{{0, 1, eos}},
			scores:  []float64{-1.75 / 9},
			numHyps: 2,
		},
		{
			// min_new_tokens 2: EOS is the best token at steps 1 and 2 but
			// masked. Step 3: EOS of [0 0] (-1.625, rank 0) closes it; EOS
			// of [0 1] (-2.625) is rank 2 and skipped. Step 4: EOS of
			// [0 0 0] (-2.125, rank 0) closes it: two hypotheses, stop.
			name: "min_new_tokens masks EOS",
			cfg:  BeamConfig{Beams: 2, EOS: eos, MinNewTokens: 2, MaxNewTokens: 6, PromptLen: 1, LengthPenalty: 1, EarlyStopping: true, NumReturn: 2},
			model: bigramModel{
				start: []float32{-1, -2, -3, -0.125},
				next: map[int32][]float32{
					0: {-0.5, -1.5, -8, -0.125},
					1: {-8, -8, -8, -0.125},
				},
			},
			steps: [][2][]int{
				{{0, 1}, {0, 0}},
				{{0, 1}, {0, 0}},
				{{0, 1}, {0, 0}},
				{{0, 1}, {0, 0}},
			},
			want:    [][]int32{{0, 0, 0, eos}, {0, 0, eos}},
			scores:  []float64{-2.125 / 4, -1.625 / 3},
			numHyps: 2,
		},
		{
			// No EOS ever wins: the search runs to max_new_tokens 3 and the
			// live beams are the hypotheses. Full length: no EOS appended.
			name: "max length finalises the live beams",
			cfg:  BeamConfig{Beams: 2, EOS: eos, MaxNewTokens: 3, PromptLen: 2, LengthPenalty: 1, EarlyStopping: true, NumReturn: 2},
			model: bigramModel{
				start: []float32{-1, -2, -4, -16},
				next: map[int32][]float32{
					0: {-1, -2, -4, -16},
					1: {-1, -2, -4, -16},
				},
			},
			steps: [][2][]int{
				{{0, 1}, {0, 0}},
				{{0, 1}, {0, 0}},
				{{0, 1}, {0, 0}},
			},
			want:    [][]int32{{0, 0, 0}, {0, 0, 1}},
			scores:  []float64{-3.0 / 5, -4.0 / 5},
			numHyps: 2,
		},
		{
			// The EOS hypothesis [] (-1/2) beats the live beams added at the
			// max length ([0 0] and [0 1], -5/4 each; the second is not
			// better than the worst and is rejected); it is shorter than the
			// maximum, so it gets its EOS back.
			name: "finished hypothesis beats live beams at max length",
			cfg:  BeamConfig{Beams: 2, EOS: eos, MaxNewTokens: 2, PromptLen: 2, LengthPenalty: 1, EarlyStopping: true},
			model: bigramModel{
				start: []float32{-1, -4, -4, -1},
				next: map[int32][]float32{
					0: {-4, -4, -4, -8},
					1: {-4, -4, -4, -8},
					2: {-4, -4, -4, -8},
				},
			},
			// step 1: t0 -1 (idx 0) and EOS -1 (idx 3): t0 first, EOS
			// rank 1 closes [] with -1/2; beam 1 = t1 -4.
			// step 2: beam 0 t0 -5, t1 -5 → live [0 0] -5/4, [0 1] -5/4.
			steps: [][2][]int{
				{{0, 1}, {0, 0}},
				{{0, 1}, {0, 0}},
			},
			want:    [][]int32{{eos}},
			scores:  []float64{-0.5},
			numHyps: 2,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBeamSearch(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			steps := run(t, b, tc.model)
			if !slices.EqualFunc(steps, tc.steps, func(a, b [2][]int) bool {
				return slices.Equal(a[0], b[0]) && slices.Equal(a[1], b[1])
			}) {
				t.Errorf("steps = %v, want %v", steps, tc.steps)
			}
			got, err := b.Finalize()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d hypotheses, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if !slices.Equal(got[i].Tokens, tc.want[i]) {
					t.Errorf("hyp %d tokens = %v, want %v", i, got[i].Tokens, tc.want[i])
				}
				if math.Abs(got[i].Score-tc.scores[i]) > 1e-12 {
					t.Errorf("hyp %d score = %v, want %v", i, got[i].Score, tc.scores[i])
				}
			}
			if len(b.hyps) != tc.numHyps {
				t.Errorf("%d stored hypotheses, want %d", len(b.hyps), tc.numHyps)
			}
		})
	}
}

func TestBeamSearchSharedFirstRowEqualsReplicated(t *testing.T) {
	m := bigramModel{
		start: []float32{-1.5, -0.5, -2, -4, -0.75},
		next: map[int32][]float32{
			0: {-0.5, -2, -2, -1, -3}, 1: {-3, -3, -3, -0.25, -1},
			2: {-1, -1, -1, -1, -1}, 4: {-2, -0.5, -3, -1, -0.25},
		},
	}
	cfg := BeamConfig{Beams: 3, EOS: 3, MaxNewTokens: 6, PromptLen: 4, LengthPenalty: 1, EarlyStopping: true}
	a, _ := NewBeamSearch(cfg)
	b, _ := NewBeamSearch(cfg)
	for !a.Done() {
		var ra, rb [][]float32
		for i := range 3 {
			ra = append(ra, m.row(a.Beam(i)))
			rb = append(rb, m.row(b.Beam(i)))
		}
		if a.Generated() == 0 {
			rb = rb[:1]
		}
		ta, pa, da, err := a.Step(ra)
		if err != nil {
			t.Fatal(err)
		}
		tb, pb, db, err := b.Step(rb)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ta, tb) || !slices.Equal(pa, pb) || da != db {
			t.Fatalf("step %d: replicated %v %v, shared %v %v", a.Generated(), ta, pa, tb, pb)
		}
	}
	ha, _ := a.Finalize()
	hb, _ := b.Finalize()
	if !slices.Equal(ha[0].Tokens, hb[0].Tokens) || ha[0].Score != hb[0].Score {
		t.Fatalf("replicated %v, shared %v", ha, hb)
	}
}

func TestBeamSearchHeuristicStopping(t *testing.T) {
	// early_stopping=False: with hypotheses full, stop when the worst
	// finished score >= best candidate sum / cur_len^lp.
	m := bigramModel{
		start: []float32{-8, -8, -8, -0.5},
		next: map[int32][]float32{
			0: {-8, -8, -8, -0.5}, 1: {-8, -8, -8, -0.5}, 2: {-8, -8, -8, -0.5},
		},
	}
	// Step 1: EOS -0.5 rank 0 closes [] (-0.5/2 = -0.25), t0 -8, t1 -8
	// become beams. Step 2: EOS of beam 0 (-8.5, rank 0) closes [0] →
	// 2 hypotheses, worst -8.5/3; best candidate -8.5 / (2+1)^1: worst >=
	// best → done.
	cfg := BeamConfig{Beams: 2, EOS: 3, MaxNewTokens: 10, PromptLen: 2, LengthPenalty: 1}
	b, _ := NewBeamSearch(cfg)
	run(t, b, m)
	if b.Generated() != 2 {
		t.Fatalf("stopped after %d steps, want 2", b.Generated())
	}
	h, _ := b.Finalize()
	if !slices.Equal(h[0].Tokens, []int32{3}) {
		t.Fatalf("best = %v", h[0].Tokens)
	}
}

func TestBeamSearchEviction(t *testing.T) {
	// Three EOS closings into a 2-hypothesis heap: the worst is evicted.
	b, _ := NewBeamSearch(BeamConfig{Beams: 2, EOS: 9, MaxNewTokens: 5, PromptLen: 1, LengthPenalty: 1, LengthMode: LengthGenerated})
	b.add([]int32{1}, -4, 2)   // -2
	b.add([]int32{2}, -3, 3)   // -1
	b.add([]int32{3}, -1, 2)   // -0.5 evicts -2
	b.add([]int32{4}, -10, 2)  // -5 < worst -1: rejected
	b.add([]int32{5}, -1.5, 3) // -0.5 ties → evicts -1
	if len(b.hyps) != 2 || b.hyps[0].Tokens[0] != 3 || b.hyps[1].Tokens[0] != 5 || b.worst != -0.5 {
		t.Fatalf("hyps %+v worst %v", b.hyps, b.worst)
	}
	// equal scores: the later inserted is returned first (Python's stable
	// sort + pop from the end)
	b.done = true
	b.scorer = true
	h, _ := b.Finalize()
	if h[0].Tokens[0] != 5 {
		t.Fatalf("tie winner = %v, want the later one", h[0].Tokens)
	}
}

func TestBeamSearchBadInput(t *testing.T) {
	bad := []BeamConfig{
		{Beams: 0, MaxNewTokens: 1, PromptLen: 1},
		{Beams: 1, MaxNewTokens: 0, PromptLen: 1},
		{Beams: 1, MaxNewTokens: 1, PromptLen: 0},
		{Beams: 2, MaxNewTokens: 1, PromptLen: 1, NumReturn: 3},
		{Beams: 2, MaxNewTokens: 1, PromptLen: 1, LengthPenalty: math.NaN()},
	}
	for _, c := range bad {
		if _, err := NewBeamSearch(c); !errors.Is(err, ErrBadInput) {
			t.Errorf("%+v: err = %v", c, err)
		}
	}
	b, _ := NewBeamSearch(BeamConfig{Beams: 2, EOS: 1, MaxNewTokens: 3, PromptLen: 1, EarlyStopping: true})
	for _, rows := range [][][]float32{
		{{0, 0}, {0}},                      // ragged
		{{0}, {0}},                         // too narrow
		{{0, 0}, {0, 0}, {0, 0}},           // too many rows
		{{float32(math.NaN()), 0}, {0, 0}}, // NaN
	} {
		if _, _, _, err := b.Step(rows); !errors.Is(err, ErrBadInput) {
			t.Errorf("%v: err = %v", rows, err)
		}
	}
	if _, err := b.Finalize(); !errors.Is(err, ErrBadInput) {
		t.Errorf("Finalize before done: err = %v", err)
	}
}

func TestStepLogitsAppliesLogSoftmax(t *testing.T) {
	logits := [][]float32{{1, 2, 3, 0.5}}
	a, _ := NewBeamSearch(BeamConfig{Beams: 2, EOS: 3, MaxNewTokens: 1, PromptLen: 1, LengthPenalty: 1, EarlyStopping: true})
	ta, pa, done, err := a.StepLogits(logits)
	if err != nil || !done {
		t.Fatal(err, done)
	}
	if !slices.Equal(ta, []int32{2, 1}) || !slices.Equal(pa, []int{0, 0}) {
		t.Fatalf("tokens %v parents %v", ta, pa)
	}
	h, _ := a.Finalize()
	want := float64(LogSoftmax(nil, logits[0])[2]) / 2
	if h[0].Score != want || logits[0][2] != 3 {
		t.Fatalf("score %v want %v (logits changed: %v)", h[0].Score, want, logits)
	}
}
