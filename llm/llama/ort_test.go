//go:build cgo

package llama

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/decoder/decodertest"
	"github.com/mlperf-go/inference/llm/generate"
)

// refSeed is reference.py's weight seed.
const refSeed uint64 = 20240723

// TestRopeScaledMatchesReference compares a small grouped-query decoder
// whose rope scaling puts each of its four frequencies in a band (kept,
// smoothed, divided) with reference.py's independent forward pass on the
// same seeded weights: the prompt's logits within 1e-4 and 8 greedy
// tokens; then the KV-cached decode against the naive one.
func TestRopeScaledMatchesReference(t *testing.T) {
	g := decodertest.LoadGolden(t, filepath.Join("testdata", "reference.json"))
	var rc struct {
		Layers, Hidden, Heads, KVHeads, Intermediate, Vocab, MaxPositions int64
		RopeTheta                                                         float64
		RMSEps                                                            float32
		RopeScaling                                                       RopeScaling
	}
	if err := json.Unmarshal(g.Config, &rc); err != nil {
		t.Fatal(err)
	}
	if g.Seed != refSeed {
		t.Fatalf("reference seed %d, refSeed %d", g.Seed, refSeed)
	}
	c := Config{Layers: rc.Layers, Hidden: rc.Hidden, Heads: rc.Heads, KVHeads: rc.KVHeads, Intermediate: rc.Intermediate,
		Vocab: rc.Vocab, MaxPositions: rc.MaxPositions, RopeTheta: rc.RopeTheta, RMSEps: rc.RMSEps, RopeScaling: &rc.RopeScaling}
	graph, err := Build(c, refSeed, Options{Name: "llama-test"})
	if err != nil {
		t.Fatal(err)
	}
	s := orttest.OpenGraph(t, graph)
	m, err := generate.New(s, c.Spec(2))
	if err != nil {
		t.Fatal(err)
	}
	decodertest.CheckGolden(t, s, m, g, 1e-4)
	decodertest.CheckGraph(t, s, c.Spec(2))
	decodertest.CheckCachedEqualsNaive(t, m, 2)

	// Without the scaling the logits leave the golden: the test sees it.
	plain := c
	plain.RopeScaling = nil
	pg, err := Build(plain, refSeed, Options{Name: "llama-test"})
	if err != nil {
		t.Fatal(err)
	}
	ps := orttest.OpenGraph(t, pg)
	ids := make([]int64, len(g.Prompt))
	for i, v := range g.Prompt {
		ids[i] = int64(v)
	}
	st, err := decodertest.Run(ps, plain.Spec(2), [][]int64{ids}, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := decodertest.MaxDiff(st.Logits, g.Logits); d < 1e-3 {
		t.Errorf("unscaled rope differs from the scaled golden by only %g", d)
	}
}
