package sample

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestGreedy(t *testing.T) {
	// Token 2 is EOS. Rows are scripted per step.
	cases := []struct {
		name string
		cfg  GreedyConfig
		rows [][]float32
		want []int32
	}{
		{
			name: "EOS masked for the first token (min_new_tokens 1), then kept",
			cfg:  GreedyConfig{EOS: 2, MinNewTokens: 1, MaxNewTokens: 5},
			rows: [][]float32{{0, 1, 9, 3}, {0, 1, 9, 3}},
			want: []int32{3, 2},
		},
		{
			name: "min_new_tokens 3 masks EOS for three steps",
			cfg:  GreedyConfig{EOS: 2, MinNewTokens: 3, MaxNewTokens: 9},
			rows: [][]float32{{0, 1, 9, -1}, {5, 1, 9, -1}, {0, 1, 9, 4}, {0, 1, 9, 1}},
			want: []int32{1, 0, 3, 2},
		},
		{
			name: "a MoreEOS id ends the sequence like EOS",
			cfg:  GreedyConfig{EOS: 2, MoreEOS: []int32{0}, MaxNewTokens: 5},
			rows: [][]float32{{1, 9, 0, 3}, {9, 1, 0, 3}},
			want: []int32{1, 0},
		},
		{
			name: "MoreEOS ids are masked with EOS under min_new_tokens",
			cfg:  GreedyConfig{EOS: 2, MoreEOS: []int32{0, 3}, MinNewTokens: 1, MaxNewTokens: 5},
			rows: [][]float32{{9, 1, 8, 7}, {9, 1, 8, 7}},
			want: []int32{1, 0},
		},
		{
			name: "max_new_tokens ends the sequence",
			cfg:  GreedyConfig{EOS: 2, MaxNewTokens: 3},
			rows: [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}},
			want: []int32{0, 1, 3},
		},
		{
			name: "ties go to the lowest index",
			cfg:  GreedyConfig{EOS: -1, MaxNewTokens: 2},
			rows: [][]float32{{1, 3, 3, 3}, {7, 7, 7, 7}},
			want: []int32{1, 0},
		},
		{
			name: "masked EOS at index 0 with every other logit -Inf",
			cfg:  GreedyConfig{EOS: 0, MinNewTokens: 1, MaxNewTokens: 1},
			rows: [][]float32{{5, float32(math.Inf(-1)), float32(math.Inf(-1))}},
			want: []int32{0},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewGreedy(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range tc.rows {
				keep := slices.Clone(r)
				_, done, err := g.Step(r)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(keep, r) {
					t.Fatalf("Step modified its row")
				}
				if done != (i == len(tc.rows)-1) {
					t.Fatalf("step %d: done = %v", i, done)
				}
			}
			if !slices.Equal(g.Tokens(), tc.want) {
				t.Fatalf("tokens %v, want %v", g.Tokens(), tc.want)
			}
			if _, _, err := g.Step(tc.rows[0]); !errors.Is(err, ErrBadInput) {
				t.Fatalf("Step after done: %v", err)
			}
		})
	}
}

func TestGreedyBadInput(t *testing.T) {
	if _, err := NewGreedy(GreedyConfig{MaxNewTokens: 0}); !errors.Is(err, ErrBadInput) {
		t.Fatal(err)
	}
	if _, err := NewGreedy(GreedyConfig{MaxNewTokens: 1, MinNewTokens: -1}); !errors.Is(err, ErrBadInput) {
		t.Fatal(err)
	}
	g, _ := NewGreedy(GreedyConfig{EOS: 0, MinNewTokens: 1, MaxNewTokens: 2})
	if _, _, err := g.Step(nil); !errors.Is(err, ErrBadInput) {
		t.Fatal(err)
	}
	if _, _, err := g.Step([]float32{1}); !errors.Is(err, ErrBadInput) {
		t.Fatal(err)
	}
}

func TestLogSoftmax(t *testing.T) {
	ninf := float32(math.Inf(-1))
	rows := [][]float32{
		{0, 0},
		{1, 2, 3, 4},
		{-1000, 0, 1000},
		{ninf, 0, 1},
		{3.5},
		{88, 88, -88, 1e-8},
	}
	for _, r := range rows {
		got := LogSoftmax(nil, r)
		// float64 reference
		m := math.Inf(-1)
		for _, v := range r {
			m = math.Max(m, float64(v))
		}
		var s float64
		for _, v := range r {
			s += math.Exp(float64(v) - m)
		}
		for i, v := range r {
			want := float64(v) - m - math.Log(s)
			if math.IsInf(want, -1) {
				if !math.IsInf(float64(got[i]), -1) {
					t.Errorf("%v[%d] = %v, want -Inf", r, i, got[i])
				}
				continue
			}
			ulp := math.Abs(float64(math.Nextafter32(float32(want), 0)) - want)
			if math.Abs(float64(got[i])-want) > 2*ulp+1e-30 {
				t.Errorf("%v[%d] = %v, want %v", r, i, got[i], want)
			}
		}
	}
	if got := LogSoftmax(nil, []float32{0, 0}); got[0] != float32(-math.Ln2) {
		t.Errorf("log_softmax(0,0) = %v", got)
	}
	// in place
	r := []float32{1, 2, 3}
	want := LogSoftmax(nil, r)
	LogSoftmax(r, r)
	if !slices.Equal(r, want) {
		t.Errorf("in place %v, want %v", r, want)
	}
	if Argmax(nil) != -1 || Argmax([]float32{1, float32(math.NaN()), 5, float32(math.NaN())}) != 1 {
		t.Error("Argmax NaN/empty rule")
	}
}

func BenchmarkBeamStepGPTJ(b *testing.B) {
	const V = 50400
	rows := make([][]float32, 4)
	seed := uint32(1)
	for i := range rows {
		rows[i] = make([]float32, V)
		for j := range rows[i] {
			seed = seed*1664525 + 1013904223
			rows[i][j] = float32(seed>>8) / float32(1<<24) * 10
		}
	}
	for b.Loop() {
		s, _ := NewBeamSearch(BeamConfig{Beams: 4, EOS: 50256, MinNewTokens: 30, MaxNewTokens: 128, PromptLen: 100, LengthPenalty: 1, EarlyStopping: true})
		for !s.Done() {
			if _, _, _, err := s.StepLogits(rows); err != nil {
				b.Fatal(err)
			}
		}
	}
}
