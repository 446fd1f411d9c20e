//go:build cgo

package llama

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/decoder"
	"github.com/mlperf-go/inference/llm/decoder/decodertest"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/onnx"
)

// moeSeed is moe_reference.py's weight seed.
const moeSeed uint64 = 20231211

// moeGolden is testdata/moe_golden.json (moe_reference.py).
type moeGolden struct {
	Hidden       int64     `json:"hidden"`
	Intermediate int64     `json:"intermediate"`
	Experts      int64     `json:"experts"`
	TopK         int64     `json:"top_k"`
	Seed         uint64    `json:"seed"`
	Prefix       string    `json:"prefix"`
	X            []float32 `json:"x"`
	Chosen       [][]int64 `json:"chosen"`
	Weights      [][]float64
	Out          []float64 `json:"out"`
}

// runMoEBlock runs one MoE block of config c (weights from the golden's
// seed) on x [T, Hidden] and returns its output and routing.
func runMoEBlock(t *testing.T, c Config, g moeGolden) (out []float32, chosen []int64, weights []float32) {
	t.Helper()
	graph := onnx.NewGraph(onnx.Config{Name: "moe", Seed: g.Seed})
	T := int64(len(g.X)) / c.Hidden
	x := graph.Input("x", onnx.Float, onnx.Fix(1), onnx.Fix(T), onnx.Fix(c.Hidden))
	o, idx, w := moe(&decoder.Builder{G: graph}, c, g.Prefix, x)
	graph.Output(graph.Rename(o, "out"), onnx.Float, onnx.Fix(1), onnx.Fix(T), onnx.Fix(c.Hidden))
	graph.Output(graph.Rename(idx, "experts"), onnx.Int64, onnx.Fix(T), onnx.Fix(c.ExpertsPerToken))
	graph.Output(graph.Rename(w, "weights"), onnx.Float, onnx.Fix(T), onnx.Fix(c.ExpertsPerToken))
	s := orttest.OpenGraph(t, graph)
	res, err := s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, T, c.Hidden}, Data: g.X}})
	if err != nil {
		t.Fatal(err)
	}
	return res[0].Data.([]float32), res[1].Data.([]int64), res[2].Data.([]float32)
}

// TestMoEMatchesNumpy compares one MoE block on 12 tokens with
// moe_reference.py's MixtralSparseMoeBlock in numpy on the same seeded
// weights: the same two experts per token in the same order, their
// renormalised weights (summing to 1) within 1e-6, the output within
// 1e-5; every expert is chosen by some token, so each one's gather and
// scatter path is checked. A block routing each token to three experts
// leaves the golden.
func TestMoEMatchesNumpy(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "moe_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g moeGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Seed != moeSeed || g.Experts != 8 || g.TopK != 2 {
		t.Fatalf("golden seed %d, %d experts, top %d", g.Seed, g.Experts, g.TopK)
	}
	c := Config{Hidden: g.Hidden, Intermediate: g.Intermediate, Experts: g.Experts, ExpertsPerToken: g.TopK}
	out, chosen, weights := runMoEBlock(t, c, g)
	used := map[int64]bool{}
	for tok, want := range g.Chosen {
		sum := 0.0
		for k, e := range want {
			used[e] = true
			if got := chosen[tok*2+k]; got != e {
				t.Errorf("token %d slot %d: expert %d, numpy chose %d", tok, k, got, e)
			}
			if d := math.Abs(float64(weights[tok*2+k]) - g.Weights[tok][k]); d > 1e-6 {
				t.Errorf("token %d slot %d: weight %g, numpy %g", tok, k, weights[tok*2+k], g.Weights[tok][k])
			}
			sum += float64(weights[tok*2+k])
		}
		if math.Abs(sum-1) > 1e-6 {
			t.Errorf("token %d: weights sum to %g", tok, sum)
		}
	}
	if len(used) != int(g.Experts) {
		t.Errorf("the golden's tokens reach %d of %d experts", len(used), g.Experts)
	}
	worst := 0.0
	for i, v := range g.Out {
		worst = max(worst, math.Abs(float64(out[i])-v))
	}
	if worst > 1e-5 {
		t.Errorf("output differs from numpy by %g", worst)
	}

	three := c
	three.ExpertsPerToken = 3
	out3, _, _ := runMoEBlock(t, three, g)
	worst = 0
	for i, v := range g.Out {
		worst = max(worst, math.Abs(float64(out3[i])-v))
	}
	if worst < 1e-3 {
		t.Errorf("top-3 routing is within %g of the top-2 golden", worst)
	}
}

// TestMixtralMatchesReference compares a small Mixtral-style decoder (8
// experts, top 2, GQA, RoPE theta 1e6) with moe_reference.py's float64
// forward pass on the same seeded weights: the prompt's logits within
// 1e-4 and 8 greedy tokens; then the KV-cached decode against the naive
// one, and the graph's I/O against the optimum layout.
func TestMixtralMatchesReference(t *testing.T) {
	g := decodertest.LoadGolden(t, filepath.Join("testdata", "mixtral_reference.json"))
	var c Config
	if err := json.Unmarshal(g.Config, &c); err != nil {
		t.Fatal(err)
	}
	if g.Seed != moeSeed || c.Experts != 8 || c.ExpertsPerToken != 2 {
		t.Fatalf("reference seed %d, config %+v", g.Seed, c)
	}
	graph, err := Build(c, g.Seed, Options{Name: "mixtral-test"})
	if err != nil {
		t.Fatal(err)
	}
	var weights int64
	for _, w := range graph.Initializers() {
		if strings.HasSuffix(w.Name, ".weight") {
			weights += w.Elements()
		}
	}
	if want := c.Params(); weights != want {
		t.Errorf("graph has %d weights, Params says %d", weights, want)
	}
	s := orttest.OpenGraph(t, graph)
	m, err := generate.New(s, c.Spec(2))
	if err != nil {
		t.Fatal(err)
	}
	decodertest.CheckGolden(t, s, m, g, 1e-4)
	decodertest.CheckGraph(t, s, c.Spec(2))
	decodertest.CheckCachedEqualsNaive(t, m, 2)
}
