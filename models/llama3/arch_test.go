package llama3

import (
	"slices"
	"testing"

	"github.com/mlperf-go/inference/llm/tokenizer"
)

func TestConfigs(t *testing.T) {
	// Meta-Llama-3.1-8B-Instruct: 8,030,261,248 parameters
	if p := configs[size8B].DenseParams(); p != 8030261248 {
		t.Errorf("8b: %d parameters", p)
	}
	for name, c := range configs {
		if err := c.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if c.Vocab != tokenizer.Llama3VocabSize || c.KVHeads >= c.Heads || c.RopeScaling == nil || c.RopeScaling.Factor != 8 || c.RopeTheta != 500000 {
			t.Errorf("%s: %+v is not Llama 3.1's shape", name, c)
		}
	}
	if _, err := configOf("70b"); err == nil {
		t.Error("unknown size accepted")
	}
	if s := decodeSpec(configs[sizeTiny]); s.PadID != tokenizer.Llama3EOTID || s.Vocab != 128256 || s.Layers != 2 {
		t.Errorf("spec %+v", s)
	}
}

func TestGeneration(t *testing.T) {
	g := generation()
	if g.MaxNewTokens != 128 || g.MinNewTokens != 1 || !g.IsEOS(128009) || !g.IsEOS(128001) || !g.IsEOS(128008) || g.IsEOS(128000) {
		t.Errorf("generation %+v", g)
	}
	// the config handed out is a copy: changing it leaves the next alone
	g.MoreEOS[0] = 5
	if slices.Contains(generation().MoreEOS, 5) {
		t.Error("Generation shares its stop list")
	}
}
