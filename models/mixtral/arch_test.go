package mixtral

import (
	"strings"
	"testing"

	"github.com/mlperf-go/inference/llm/tokenizer"
)

// TestConfigs: the 8x7B size has Mixtral-8x7B-Instruct-v0.1's
// 46,702,792,704 weights; every size keeps the vocabulary, GQA, RoPE
// theta 1e6 and 8 experts with top-2 routing.
func TestConfigs(t *testing.T) {
	if p := configs[size8x7B].Params(); p != 46_702_792_704 {
		t.Errorf("8x7b: %d parameters, want 46,702,792,704", p)
	}
	// 8 experts per layer: the dense count would be 13B-odd
	if d := configs[size8x7B].DenseParams(); d >= 46_000_000_000/3 {
		t.Errorf("8x7b dense-equivalent %d: the experts are not counted apart", d)
	}
	for name, c := range configs {
		if err := c.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if c.Vocab != tokenizer.MistralVocabSize || c.Heads != 4*c.KVHeads || c.RopeTheta != 1e6 || c.RopeScaling != nil ||
			c.Experts != 8 || c.ExpertsPerToken != 2 || c.Intermediate*2 != c.Hidden*7 {
			t.Errorf("%s: %+v is not Mixtral's shape", name, c)
		}
	}
	if _, err := configOf("8x22b"); err == nil {
		t.Error("unknown size accepted")
	}
	if s := decodeSpec(configs[sizeTiny]); s.PadID != 2 || s.Vocab != 32000 || s.Layers != 2 || s.KVHeads != 2 {
		t.Errorf("spec %+v", s)
	}
}

// TestGeneration: SUT.py's gen_kwargs, greedy with min_new_tokens 2 and
// max_new_tokens 1024, ending on </s> alone.
func TestGeneration(t *testing.T) {
	g := generation()
	if g.MaxNewTokens != 1024 || g.MinNewTokens != 2 || g.EOS != 2 || len(g.MoreEOS) != 0 || !g.IsEOS(2) || g.IsEOS(0) {
		t.Errorf("generation %+v", g)
	}
}

// TestMaxNewTokens: --max-new-tokens below min_new_tokens 2, or not a
// number, is a usage error; empty is the reference's 1024.
func TestMaxNewTokens(t *testing.T) {
	for v, want := range map[string]int{"": 1024, "2": 2, "64": 64} {
		if n, err := newTokens.Parse(map[string]string{"max-new-tokens": v}); err != nil || n != want {
			t.Errorf("%q: %d, %v", v, n, err)
		}
	}
	for _, v := range []string{"1", "0", "-3", "x"} {
		if _, err := newTokens.Parse(map[string]string{"max-new-tokens": v}); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}

// TestFullGraphWeights builds the 8x7B graph (weights are drawn only when
// written, so this is cheap) and counts what it would write: 46.7B
// weights, 8 experts in each of the 32 layers, and the optimum I/O of 32
// layers of 8 kv heads × 128.
func TestFullGraphWeights(t *testing.T) {
	g, err := arch(configs[size8x7B], archSeed)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	experts := 0
	for _, w := range g.Initializers() {
		if strings.HasSuffix(w.Name, ".weight") {
			n += w.Elements()
		}
		if strings.HasSuffix(w.Name, ".w1.weight") {
			experts++
			if w.Dims[0] != 4096 || w.Dims[1] != 14336 {
				t.Errorf("%s is %v", w.Name, w.Dims)
			}
		}
	}
	if n != 46_702_792_704 || experts != 32*8 {
		t.Errorf("%d weights in %d experts, want 46,702,792,704 in 256", n, experts)
	}
	if in, out := g.Inputs(), g.Outputs(); len(in) != 3+64 || len(out) != 1+64 {
		t.Errorf("%d inputs, %d outputs", len(in), len(out))
	}
}
