//go:build cgo

package mixtral

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/llama"
	"github.com/mlperf-go/inference/onnx"
)

// TestTinyGeneratesWithStops runs the tiny model (full vocabulary, GQA, 8
// experts) through the decode loop with the benchmark's generation rule:
// 2 to 6 tokens, no </s> among the first two, nothing after a </s>.
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
	out, err := m.Greedy(context.Background(), [][]int32{{1, 1, 28705, 733, 16289, 28793}, {1, 22557, 1526}}, generate.GreedyConfig{GreedyConfig: gen})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if len(o) < 2 || len(o) > 6 || gen.IsEOS(o[0]) || gen.IsEOS(o[1]) {
			t.Errorf("prompt %d: generated %v", i, o)
		}
		for _, tok := range o[:len(o)-1] {
			if gen.IsEOS(tok) {
				t.Errorf("prompt %d: %v goes on after </s>", i, o)
			}
		}
	}
}

// writeModel writes the tiny shape with c's changes applied to a file.
func writeModel(t *testing.T, change func(*llama.Config)) string {
	t.Helper()
	c := configs[sizeTiny]
	c.Layers = 1
	change(&c)
	g, err := llama.Build(c, 1, llama.Options{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "model.onnx")
	if err := g.WriteFile(p, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckExperts: a model file of 8 experts passes; one of 4 experts
// and a dense (Llama) one are refused naming what they are; a file that
// is not a model is an error.
func TestCheckExperts(t *testing.T) {
	var warned []string
	warn := func(s string) { warned = append(warned, s) }
	if err := checkExperts(writeModel(t, func(*llama.Config) {}), "eight", warn); err != nil || len(warned) > 0 {
		t.Errorf("8 experts: %v, warnings %v", err, warned)
	}
	err := checkExperts(writeModel(t, func(c *llama.Config) { c.Experts = 4 }), "four", warn)
	if err == nil || !strings.Contains(err.Error(), "model four has 4 experts per layer, Mixtral-8x7B has 8") {
		t.Errorf("4 experts: %v", err)
	}
	err = checkExperts(writeModel(t, func(c *llama.Config) { c.Experts, c.ExpertsPerToken = 0, 0 }), "dense", warn)
	if err == nil || !strings.Contains(err.Error(), "dense MLP") {
		t.Errorf("dense: %v", err)
	}
	if err := checkExperts(filepath.Join(t.TempDir(), "none.onnx"), "none", warn); err == nil {
		t.Error("a missing file passed")
	}
}
