//go:build cgo

package llama3

import (
	"context"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/generate"
)

// TestTinyGeneratesWithStops runs the tiny model (full vocabulary, GQA,
// rope rescaling) through the decode loop with the benchmark's generation
// rules: 1 to 128 tokens, no stop id first, nothing after a stop id.
func TestTinyGeneratesWithStops(t *testing.T) {
	c := configs[sizeTiny]
	g, err := arch(c, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	s := orttest.OpenGraph(t, g)
	if got, want := len(s.Inputs()), 3+2*int(c.Layers); got != want {
		t.Errorf("%d inputs, want %d", got, want)
	}
	m, err := generate.New(s, decodeSpec(c))
	if err != nil {
		t.Fatal(err)
	}
	gen := generation()
	gen.MaxNewTokens = 6
	out, err := m.Greedy(context.Background(), [][]int32{{128000, 9906, 1917}, {128000, 791, 6864, 315, 9822, 374}}, generate.GreedyConfig{GreedyConfig: gen})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if len(o) == 0 || len(o) > 6 || gen.IsEOS(o[0]) {
			t.Errorf("prompt %d: generated %v", i, o)
		}
		for _, tok := range o[:len(o)-1] {
			if gen.IsEOS(tok) {
				t.Errorf("prompt %d: %v goes on after a stop id", i, o)
			}
		}
	}
}
