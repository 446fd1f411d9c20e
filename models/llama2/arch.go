// Package llama2 is the MLPerf Llama 2 70B benchmark on OpenOrca: the
// synthetic-weights model builder (arch.go) with the decoder I/O of a
// Hugging Face optimum export, run by llm/generate.
package llama2

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/llm/decoder"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/onnx"
)

// The synthetic-weights model: Llama 2 as in transformers' modeling_llama
// (mlcommons/inference language/llama2-70b), written with the onnx package under the optimum decoder
// contract (see llm/decoder):
//
//	x = embed_tokens[input_ids]
//	per layer: x += o_proj(attn(rope(q_proj(n)), rope(k_proj(n)), v_proj(n)))  with n = RMSNorm(x)
//	           x += down_proj(silu(gate_proj(n)) ⊙ up_proj(n))                 with n = RMSNorm(x)
//	logits = lm_head(RMSNorm(x))
//
// RMSNorm is x·(mean(x²)+1e-5)^-½·w in float32; rotary embeddings use the
// rotate-half convention over the whole head (cos/sin of [freqs, freqs],
// theta 10000); attention is grouped-query (each kv head serves
// heads/kv_heads consecutive query heads); no layer has a bias.

// config is the architecture of one Llama 2 size.
type config struct {
	Layers       int64
	Hidden       int64
	Heads        int64
	KVHeads      int64
	Intermediate int64
	Vocab        int64
	MaxPositions int64
	RopeTheta    float64
	RMSEps       float32
	// Float16IO makes the cache (past/present) and the logits float16, as
	// in a float16 export; the graph still computes in float32.
	Float16IO bool
}

// HeadDim is Hidden / Heads.
func (c config) HeadDim() int64 { return c.Hidden / c.Heads }

// Token ids of the Llama 2 tokenizer.
const (
	bos = 1
	EOS = 2
)

// Model sizes.
const (
	size70B = "70b"
	size7B  = "7b"
	// SizeTiny keeps the vocabulary, the head dimension ratio and GQA
	// with 2 layers of width 64, for tests.
	SizeTiny = "tiny"
)

// Configs are the sizes Arch builds: 70b and 7b as Meta's Llama-2-*-chat-hf
// config.json files, and tiny.
var Configs = map[string]config{
	size70B:  {Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, Intermediate: 28672, Vocab: 32000, MaxPositions: 4096, RopeTheta: 10000, RMSEps: 1e-5},
	size7B:   {Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, Intermediate: 11008, Vocab: 32000, MaxPositions: 4096, RopeTheta: 10000, RMSEps: 1e-5},
	SizeTiny: {Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, Intermediate: 172, Vocab: 32000, MaxPositions: 4096, RopeTheta: 10000, RMSEps: 1e-5},
}

// archSeed is the default weight seed.
const archSeed uint64 = 20230718

// configOf returns the config of a size name.
func configOf(size string) (config, error) {
	c, ok := Configs[size]
	if !ok {
		names := make([]string, 0, len(Configs))
		for n := range Configs {
			names = append(names, n)
		}
		slices.Sort(names)
		return config{}, fmt.Errorf("llama2: unknown model size %q (want one of %s)", size, strings.Join(names, ", "))
	}
	return c, nil
}

func (c config) check() error {
	if c.Layers <= 0 || c.Hidden <= 0 || c.Heads <= 0 || c.KVHeads <= 0 || c.Intermediate <= 0 || c.Vocab <= 2 {
		return fmt.Errorf("llama2: bad config %+v", c)
	}
	if c.Hidden%c.Heads != 0 || c.HeadDim()%2 != 0 || c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("llama2: hidden %d, heads %d, kv heads %d: need an even head dimension and heads a multiple of kv heads", c.Hidden, c.Heads, c.KVHeads)
	}
	return nil
}

// Spec is the decode-loop spec of a model of this config.
func (c config) Spec() generate.Spec {
	return generate.Spec{Layers: int(c.Layers), KVHeads: int(c.KVHeads), HeadDim: int(c.HeadDim()), Vocab: int(c.Vocab),
		MaxPositions: int(c.MaxPositions), PadID: EOS}
}

// arch builds the Llama 2 graph of config c with weights drawn from seed.
func arch(c config, seed uint64) (*onnx.Graph, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	g := onnx.NewGraph(onnx.Config{
		Name: "llama2",
		Seed: seed,
		Doc: fmt.Sprintf("Llama 2 (%d layers, hidden %d, %d/%d heads), synthetic weights, seed %d: performance only, accuracy not meaningful",
			c.Layers, c.Hidden, c.Heads, c.KVHeads, seed),
	})
	D := c.HeadDim()
	io := onnx.Float
	if c.Float16IO {
		io = onnx.Float16
	}
	b, err := decoder.New(g, decoder.Shape{Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: D, Vocab: c.Vocab, IO: io})
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	x := g.Gather(b.Param("model.embed_tokens.weight", []int64{c.Vocab, c.Hidden}, onnx.Uniform(-1, 1)), b.InputIDs, 0)

	// cos/sin of [freqs, freqs] as [B,S,1,D], shared by every layer
	ang := b.Angles(D, c.RopeTheta)
	emb := g.Concat(-1, ang, ang)
	cos := g.Unsqueeze(g.Op("Cos", []string{emb}), 2)
	sin := g.Unsqueeze(g.Op("Sin", []string{emb}), 2)
	rope := func(t string) string {
		halves := g.Split(t, -1, D/2, D/2)
		rot := g.Concat(-1, g.Neg(halves[1]), halves[0])
		return g.Add(g.Mul(t, cos), g.Mul(rot, sin))
	}
	for l := range c.Layers {
		p := fmt.Sprintf("model.layers.%d.", l)
		n := rmsNorm(b, p+"input_layernorm", x, c.Hidden, c.RMSEps)
		q := rope(b.Heads(b.Linear(p+"self_attn.q_proj", n, c.Hidden, c.Heads*D, false), c.Heads))
		k := rope(b.Heads(b.Linear(p+"self_attn.k_proj", n, c.Hidden, c.KVHeads*D, false), c.KVHeads))
		v := b.Heads(b.Linear(p+"self_attn.v_proj", n, c.Hidden, c.KVHeads*D, false), c.KVHeads)
		a := b.Attention(int(l), q, k, v)
		x = g.Add(x, b.Linear(p+"self_attn.o_proj", a, c.Heads*D, c.Hidden, false))
		n = rmsNorm(b, p+"post_attention_layernorm", x, c.Hidden, c.RMSEps)
		gate := b.Linear(p+"mlp.gate_proj", n, c.Hidden, c.Intermediate, false)
		up := b.Linear(p+"mlp.up_proj", n, c.Hidden, c.Intermediate, false)
		act := g.Mul(g.Mul(gate, g.Sigmoid(gate)), up)
		x = g.Add(x, b.Linear(p+"mlp.down_proj", act, c.Intermediate, c.Hidden, false))
	}
	x = rmsNorm(b, "model.norm", x, c.Hidden, c.RMSEps)
	logits := b.Linear("lm_head", x, c.Hidden, c.Vocab, false)
	if err := b.Finish(logits); err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	return g, nil
}

// rmsNorm appends x·(mean(x²)+eps)^-½·w with w drawn near 1.
func rmsNorm(b *decoder.Builder, name, x string, width int64, eps float32) string {
	g := b.G
	ms := g.ReduceMean(g.Mul(x, x), []int64{-1}, true)
	r := g.Div(g.Scalar(onnx.Float, 1), g.Sqrt(g.Add(ms, g.Scalar(onnx.Float, float64(eps)))))
	return g.Mul(g.Mul(x, r), b.Param(name+".weight", []int64{width}, onnx.Uniform(0.8, 1.2)))
}

// buildFile writes the model of the named size to path, streaming the
// weights to path+".data" when the model exceeds the 2 GiB protobuf limit.
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
		return fmt.Errorf("llama2: %w", err)
	}
	return nil
}

// Params is the number of weights of a config, as Arch writes them.
func (c config) Params() int64 {
	D := c.HeadDim()
	perLayer := c.Hidden*c.Heads*D*2 + c.Hidden*c.KVHeads*D*2 + 3*c.Hidden*c.Intermediate + 2*c.Hidden
	return 2*c.Vocab*c.Hidden + c.Layers*perLayer + c.Hidden
}
