// Package gptj is the MLPerf GPT-J 6B benchmark on CNN-DailyMail: the
// synthetic-weights model builder (arch.go) with the decoder I/O of a
// Hugging Face optimum export, run by llm/generate with beam search.
package gptj

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/llm/decoder"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/onnx"
)

// The synthetic-weights model: GPT-J as in transformers' modeling_gptj
// (mlcommons/inference language/gpt-j), written with the onnx package under the optimum decoder
// contract (see llm/decoder):
//
//	x = wte[input_ids]
//	per layer: n = LayerNorm(x) (ln_1, with bias, eps 1e-5)
//	           x = x + out_proj(attn(rot(q_proj(n)), rot(k_proj(n)), v_proj(n)))
//	                 + fc_out(gelu_new(fc_in(n)))          attention and MLP in parallel
//	logits = lm_head(LayerNorm(x))                        (ln_f; lm_head with bias)
//
// q/k/v/out projections have no bias, fc_in, fc_out and lm_head have one.
// Rotary embeddings cover the first rotary_dim dimensions of each head in
// the interleaved convention (rotate_every_two: out[2i] = −x[2i+1],
// out[2i+1] = x[2i], sin/cos repeated ×2 per pair, theta 10000); the other
// dimensions pass through. gelu_new is the tanh approximation.

// config is the architecture of one GPT-J size.
type config struct {
	Layers       int64
	Hidden       int64 // n_embd
	Heads        int64
	RotaryDim    int64
	Inner        int64 // MLP width (4 × n_embd)
	Vocab        int64
	MaxPositions int64
	LNEps        float32
}

// HeadDim is Hidden / Heads.
func (c config) HeadDim() int64 { return c.Hidden / c.Heads }

// EOS is GPT-J's end-of-text token (also BOS and pad), <|endoftext|>.
const EOS = 50256

// Model sizes.
const (
	// sizeFull is GPT-J 6B: 28 layers, 4096 wide, 16 heads of 256.
	sizeFull = "full"
	// SizeTiny keeps the vocabulary and the rotary layout with 2 layers of
	// width 64, for tests.
	SizeTiny = "tiny"
)

// Configs are the sizes Arch builds.
var Configs = map[string]config{
	sizeFull: {Layers: 28, Hidden: 4096, Heads: 16, RotaryDim: 64, Inner: 16384, Vocab: 50400, MaxPositions: 2048, LNEps: 1e-5},
	SizeTiny: {Layers: 2, Hidden: 64, Heads: 4, RotaryDim: 8, Inner: 256, Vocab: 50400, MaxPositions: 2048, LNEps: 1e-5},
}

// archSeed is the default weight seed.
const archSeed uint64 = 20210609

// configOf returns the config of a size name.
func configOf(size string) (config, error) {
	c, ok := Configs[size]
	if !ok {
		names := make([]string, 0, len(Configs))
		for n := range Configs {
			names = append(names, n)
		}
		slices.Sort(names)
		return config{}, fmt.Errorf("gptj: unknown model size %q (want one of %s)", size, strings.Join(names, ", "))
	}
	return c, nil
}

func (c config) check() error {
	if c.Layers <= 0 || c.Hidden <= 0 || c.Heads <= 0 || c.Inner <= 0 || c.Vocab <= 2 || c.RotaryDim <= 0 {
		return fmt.Errorf("gptj: bad config %+v", c)
	}
	if c.Hidden%c.Heads != 0 || c.RotaryDim%2 != 0 || c.RotaryDim > c.HeadDim() {
		return fmt.Errorf("gptj: hidden %d, heads %d, rotary dim %d: need whole heads and an even rotary dim within a head", c.Hidden, c.Heads, c.RotaryDim)
	}
	return nil
}

// Spec is the decode-loop spec of a model of this config.
func (c config) Spec() generate.Spec {
	return generate.Spec{Layers: int(c.Layers), KVHeads: int(c.Heads), HeadDim: int(c.HeadDim()), Vocab: int(c.Vocab),
		MaxPositions: int(c.MaxPositions), PadID: min(EOS, int32(c.Vocab-1))}
}

// arch builds the GPT-J graph of config c with weights drawn from seed.
func arch(c config, seed uint64) (*onnx.Graph, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	g := onnx.NewGraph(onnx.Config{
		Name: "gptj",
		Seed: seed,
		Doc: fmt.Sprintf("GPT-J (%d layers, width %d, %d heads, rotary %d), synthetic weights, seed %d: performance only, accuracy not meaningful",
			c.Layers, c.Hidden, c.Heads, c.RotaryDim, seed),
	})
	D, R := c.HeadDim(), c.RotaryDim
	b, err := decoder.New(g, decoder.Shape{Layers: c.Layers, Heads: c.Heads, KVHeads: c.Heads, HeadDim: D, Vocab: c.Vocab})
	if err != nil {
		return nil, fmt.Errorf("gptj: %w", err)
	}
	x := g.Gather(b.Param("transformer.wte.weight", []int64{c.Vocab, c.Hidden}, onnx.Uniform(-1, 1)), b.InputIDs, 0)

	// sin/cos repeat-interleaved: [B,S,R/2] → [B,S,R/2,2] → [B,S,1,R]
	ang := g.Unsqueeze(b.Angles(R, 10000), -1)
	twice := func(t string) string {
		return g.Unsqueeze(g.ReshapeTo(g.Concat(-1, t, t), 0, 0, R), 2)
	}
	sin := twice(g.Op("Sin", []string{ang}))
	cos := twice(g.Op("Cos", []string{ang}))
	rotary := func(t string) string {
		var rot, pass string
		if R < D {
			parts := g.Split(t, -1, R, D-R)
			rot, pass = parts[0], parts[1]
		} else {
			rot = t
		}
		pairs := g.Split(g.ReshapeTo(rot, 0, 0, 0, R/2, 2), -1, 1, 1) // x[2i], x[2i+1]
		turned := g.ReshapeTo(g.Concat(-1, g.Neg(pairs[1]), pairs[0]), 0, 0, 0, R)
		out := g.Add(g.Mul(rot, cos), g.Mul(turned, sin))
		if pass != "" {
			out = g.Concat(-1, out, pass)
		}
		return out
	}
	for l := range c.Layers {
		p := fmt.Sprintf("transformer.h.%d.", l)
		n := layerNorm(b, p+"ln_1", x, c.Hidden, c.LNEps)
		q := rotary(b.Heads(b.Linear(p+"attn.q_proj", n, c.Hidden, c.Hidden, false), c.Heads))
		k := rotary(b.Heads(b.Linear(p+"attn.k_proj", n, c.Hidden, c.Hidden, false), c.Heads))
		v := b.Heads(b.Linear(p+"attn.v_proj", n, c.Hidden, c.Hidden, false), c.Heads)
		attn := b.Linear(p+"attn.out_proj", b.Attention(int(l), q, k, v), c.Hidden, c.Hidden, false)
		ff := b.Linear(p+"mlp.fc_out", geluNew(g, b.Linear(p+"mlp.fc_in", n, c.Hidden, c.Inner, true)), c.Inner, c.Hidden, true)
		x = g.Add(g.Add(attn, ff), x)
	}
	x = layerNorm(b, "transformer.ln_f", x, c.Hidden, c.LNEps)
	logits := b.Linear("lm_head", x, c.Hidden, c.Vocab, true)
	if err := b.Finish(logits); err != nil {
		return nil, fmt.Errorf("gptj: %w", err)
	}
	return g, nil
}

// layerNorm appends LayerNormalization with weights drawn near 1 and a
// small bias.
func layerNorm(b *decoder.Builder, name, x string, width int64, eps float32) string {
	w := b.Param(name+".weight", []int64{width}, onnx.Uniform(0.8, 1.2))
	bias := b.Param(name+".bias", []int64{width}, onnx.Uniform(-0.05, 0.05))
	return b.G.LayerNorm(x, w, bias, -1, eps)
}

// geluNew appends transformers' gelu_new, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func geluNew(g *onnx.Graph, x string) string {
	x3 := g.Mul(g.Mul(x, x), x)
	inner := g.Mul(g.Add(x, g.Mul(x3, g.Scalar(onnx.Float, 0.044715))), g.Scalar(onnx.Float, math.Sqrt(2/math.Pi)))
	return g.Mul(g.Mul(x, g.Scalar(onnx.Float, 0.5)), g.Add(g.Tanh(inner), g.Scalar(onnx.Float, 1)))
}

// buildFile writes the model of the named size to path, streaming the
// weights to path+".data" when the model exceeds the 2 GiB protobuf limit
// (the full model: about 24 GB of float32 weights).
func buildFile(path, size string, seed uint64) error {
	c, err := configOf(size)
	if err != nil {
		return err
	}
	return BuildConfigFile(path, c, seed)
}

// BuildConfigFile is BuildFile for an explicit config.
func BuildConfigFile(path string, c config, seed uint64) error {
	g, err := arch(c, seed)
	if err != nil {
		return err
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("gptj: %w", err)
	}
	return nil
}

// Params is the number of weights of a config, as Arch writes them.
func (c config) Params() int64 {
	perLayer := 2*c.Hidden + 4*c.Hidden*c.Hidden + 2*c.Hidden*c.Inner + c.Inner + c.Hidden
	return c.Vocab*c.Hidden + c.Layers*perLayer + 2*c.Hidden + c.Hidden*c.Vocab + c.Vocab
}
