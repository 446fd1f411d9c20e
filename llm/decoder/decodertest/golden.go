package decodertest

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
)

// Golden is a reference forward pass written by a model's
// testdata/reference.py: the logits of Prompt at every position and the
// greedy continuation (EOS masked for the first token).
type Golden struct {
	Config       json.RawMessage `json:"config"`
	Seed         uint64          `json:"seed"`
	Prompt       []int32         `json:"prompt"`
	EOS          int32           `json:"eos"`
	MaxNewTokens int             `json:"max_new_tokens"`
	Logits       []float32       `json:"logits"`
	Greedy       []int32         `json:"greedy"`
}

// LoadGolden reads a Golden file.
func LoadGolden(t *testing.T, path string) Golden {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g Golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

// CheckGolden compares the prefill logits of the model with the reference
// (absolute tolerance tol) and its greedy decoding with the reference's.
func CheckGolden(t *testing.T, s backend.Session, m *generate.Model, g Golden, tol float64) {
	t.Helper()
	spec := m.Spec()
	ids := make([]int64, len(g.Prompt))
	for i, v := range g.Prompt {
		ids[i] = int64(v)
	}
	st, err := Run(s, spec, [][]int64{ids}, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Logits) != len(g.Logits) {
		t.Fatalf("%d logits, reference has %d", len(st.Logits), len(g.Logits))
	}
	if d := MaxDiff(st.Logits, g.Logits); d > tol {
		t.Errorf("logits differ from the reference by %g (tolerance %g)", d, tol)
	}
	out, err := m.Greedy(context.Background(), [][]int32{g.Prompt}, generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: g.EOS, MinNewTokens: 1, MaxNewTokens: g.MaxNewTokens}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out[0], g.Greedy) {
		t.Errorf("greedy %v, reference %v", out[0], g.Greedy)
	}
}
