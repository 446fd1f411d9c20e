// Package llama builds the Llama-family decoder (Llama 2, Llama 3.1, and
// through the MLP hook Mixtral's sparse mixture of experts) as an ONNX
// graph with seeded weights, in the I/O of a Hugging Face optimum "with
// past" export (see llm/decoder), as transformers' modeling_llama computes
// it:
//
//	x = embed_tokens[input_ids]
//	per layer: x += o_proj(attn(rope(q_proj(n)), rope(k_proj(n)), v_proj(n)))  with n = RMSNorm(x)
//	           x += mlp(n)                                                      with n = RMSNorm(x)
//	logits = lm_head(RMSNorm(x))
//
// RMSNorm is x·(mean(x²)+eps)^-½·w in float32; rotary embeddings use the
// rotate-half convention over the whole head (cos/sin of [freqs, freqs])
// with the inverse frequencies of InvFreq (plain, or Llama 3.1's "llama3"
// rescaling); attention is grouped-query (each kv head serves
// heads/kv_heads consecutive query heads); no layer has a bias. The default
// MLP is the SiLU-gated one of Llama (SwiGLU).
//
// Weights are drawn per name from the graph seed (onnx.StreamSeed), so a
// config and a seed give the same bytes on every machine.
package llama

import (
	"fmt"
	"math"

	"github.com/mlperf-go/inference/llm/decoder"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/onnx"
)

// RopeScaling is the "llama3" rope_scaling of a transformers config
// (Llama 3.1: factor 8, low_freq_factor 1, high_freq_factor 4,
// original_max_position_embeddings 8192).
type RopeScaling struct {
	Factor               float64
	LowFreqFactor        float64
	HighFreqFactor       float64
	OriginalMaxPositions int64
}

// Llama31Scaling is the rope_scaling of Meta's Llama-3.1-*-Instruct
// config.json files.
var Llama31Scaling = RopeScaling{Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}

// Config is the architecture of one Llama-family model.
type Config struct {
	Layers       int64
	Hidden       int64
	Heads        int64
	KVHeads      int64
	Intermediate int64
	Vocab        int64
	MaxPositions int64
	RopeTheta    float64
	RMSEps       float32
	// RopeScaling, when set, rescales the rotary frequencies as
	// transformers' _compute_llama3_parameters does (Llama 3.1).
	RopeScaling *RopeScaling
	// Float16IO makes the cache (past/present) and the logits float16, as
	// in a float16 export; the graph still computes in float32.
	Float16IO bool
	// Experts, when positive, replaces every layer's MLP by a sparse
	// mixture of that many SwiGLU experts of width Intermediate, each
	// token routed to ExpertsPerToken of them (transformers'
	// num_local_experts and num_experts_per_tok; Mixtral: 8 and 2). See
	// MoE.
	Experts, ExpertsPerToken int64
}

// HeadDim is Hidden / Heads.
func (c Config) HeadDim() int64 { return c.Hidden / c.Heads }

// Check reports a config the builder cannot make.
func (c Config) Check() error {
	if c.Layers <= 0 || c.Hidden <= 0 || c.Heads <= 0 || c.KVHeads <= 0 || c.Intermediate <= 0 || c.Vocab <= 2 {
		return fmt.Errorf("bad config %+v", c)
	}
	if c.Hidden%c.Heads != 0 || c.HeadDim()%2 != 0 || c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("hidden %d, heads %d, kv heads %d: need an even head dimension and heads a multiple of kv heads", c.Hidden, c.Heads, c.KVHeads)
	}
	if c.RopeTheta <= 1 {
		return fmt.Errorf("rope theta %g: want more than 1", c.RopeTheta)
	}
	if c.Experts < 0 || (c.Experts > 0 && (c.ExpertsPerToken < 1 || c.ExpertsPerToken > c.Experts)) || (c.Experts == 0 && c.ExpertsPerToken != 0) {
		return fmt.Errorf("%d experts, %d per token: want 1 ≤ per token ≤ experts (or neither, for a dense MLP)", c.Experts, c.ExpertsPerToken)
	}
	if s := c.RopeScaling; s != nil {
		if s.Factor < 1 || s.LowFreqFactor <= 0 || s.HighFreqFactor <= s.LowFreqFactor || s.OriginalMaxPositions <= 0 {
			return fmt.Errorf("rope scaling %+v: want factor ≥ 1, 0 < low_freq_factor < high_freq_factor and original_max_position_embeddings > 0", *s)
		}
	}
	return nil
}

// Spec is the decode-loop spec of a model of this config, padding with
// padID.
func (c Config) Spec(padID int32) generate.Spec {
	return generate.Spec{Layers: int(c.Layers), KVHeads: int(c.KVHeads), HeadDim: int(c.HeadDim()), Vocab: int(c.Vocab),
		MaxPositions: int(c.MaxPositions), PadID: padID}
}

// DenseParams is the number of weights of a config with the default
// (dense SwiGLU) MLP, as Build writes them: untied embedding and lm_head,
// no biases.
func (c Config) DenseParams() int64 {
	D := c.HeadDim()
	perLayer := c.Hidden*c.Heads*D*2 + c.Hidden*c.KVHeads*D*2 + 3*c.Hidden*c.Intermediate + 2*c.Hidden
	return 2*c.Vocab*c.Hidden + c.Layers*perLayer + c.Hidden
}

// Params is the number of weights Build writes for c: DenseParams, or
// with experts each layer's MLP replaced by the router ([Hidden, Experts])
// and Experts SwiGLU experts.
func (c Config) Params() int64 {
	if c.Experts == 0 {
		return c.DenseParams()
	}
	dense := c.DenseParams()
	mlp := 3 * c.Hidden * c.Intermediate
	return dense + c.Layers*(c.Experts*mlp+c.Hidden*c.Experts-mlp)
}

// InvFreq returns the rotary inverse frequencies of a head of dim
// elements: 1/theta^(2i/dim) for i < dim/2 in float32 (as transformers'
// default rope computes them), then, with s set, the "llama3" rescaling of
// transformers' _compute_llama3_parameters: with wavelength 2π/f,
// frequencies whose wavelength exceeds original/low_freq_factor are
// divided by factor, those below original/high_freq_factor are kept, and
// those between are interpolated with smooth = (original/wavelength −
// low)/(high − low): (1−smooth)·f/factor + smooth·f. The rescaling runs in
// float32 with float64 constants rounded on use, as torch does on a
// float32 tensor.
func InvFreq(dim int64, theta float64, s *RopeScaling) []float32 {
	inv := make([]float32, dim/2)
	for i := range inv {
		e := float32(2*i) / float32(dim)
		inv[i] = 1 / float32(math.Pow(theta, float64(e)))
	}
	if s == nil {
		return inv
	}
	old := float64(s.OriginalMaxPositions)
	lowWave := old / s.LowFreqFactor
	highWave := old / s.HighFreqFactor
	factor := float32(s.Factor)
	for i, f := range inv {
		wave := float32(2*math.Pi) / f
		scaled := f
		if float64(wave) > lowWave {
			scaled = f / factor
		}
		if !(float64(wave) < highWave) && !(float64(wave) > lowWave) {
			smooth := (float32(old)/wave - float32(s.LowFreqFactor)) / float32(s.HighFreqFactor-s.LowFreqFactor)
			scaled = (1-smooth)*scaled/factor + smooth*scaled
		}
		inv[i] = scaled
	}
	return inv
}

// MLP appends the feed-forward block of layer l, whose weights are named
// under prefix ("model.layers.N."), to x (the post-attention RMSNorm
// output, [B,S,Hidden]) and returns its output [B,S,Hidden].
type MLP func(b *decoder.Builder, c Config, prefix, x string) string

// SwiGLU is Llama's MLP: down_proj(silu(gate_proj(x)) ⊙ up_proj(x)) with
// the weights prefix+"mlp.{gate,up,down}_proj.weight".
func SwiGLU(b *decoder.Builder, c Config, prefix, x string) string {
	return GatedFFN(b, prefix+"mlp.gate_proj", prefix+"mlp.up_proj", prefix+"mlp.down_proj", x, c.Hidden, c.Intermediate)
}

// GatedFFN appends down(silu(gate(x)) ⊙ up(x)) with the named weights
// ([hidden, inter], [hidden, inter], [inter, hidden]); a mixture of
// experts builds each expert with it.
func GatedFFN(b *decoder.Builder, gateName, upName, downName, x string, hidden, inter int64) string {
	g := b.G
	gate := b.Linear(gateName, x, hidden, inter, false)
	up := b.Linear(upName, x, hidden, inter, false)
	act := g.Mul(g.Mul(gate, g.Sigmoid(gate)), up)
	return b.Linear(downName, act, inter, hidden, false)
}

// Options names the graph and chooses its MLP.
type Options struct {
	// Name is the graph name; Doc its doc string.
	Name, Doc string
	// MLP builds each layer's feed-forward block; nil means SwiGLU, or
	// MoE when the config has experts.
	MLP MLP
}

// Build builds the decoder graph of config c with weights drawn from
// seed. Errors are unprefixed: callers say which model they build.
func Build(c Config, seed uint64, o Options) (*onnx.Graph, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	mlp := o.MLP
	switch {
	case mlp != nil:
	case c.Experts > 0:
		mlp = MoE
	default:
		mlp = SwiGLU
	}
	g := onnx.NewGraph(onnx.Config{Name: o.Name, Seed: seed, Doc: o.Doc})
	D := c.HeadDim()
	io := onnx.Float
	if c.Float16IO {
		io = onnx.Float16
	}
	b, err := decoder.New(g, decoder.Shape{Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: D, Vocab: c.Vocab, IO: io})
	if err != nil {
		return nil, err
	}
	x := g.Gather(b.Param("model.embed_tokens.weight", []int64{c.Vocab, c.Hidden}, onnx.Uniform(-1, 1)), b.InputIDs, 0)

	// cos/sin of [freqs, freqs] as [B,S,1,D], shared by every layer
	var ang string
	if c.RopeScaling == nil {
		ang = b.Angles(D, c.RopeTheta)
	} else {
		ang = b.AnglesOf(InvFreq(D, c.RopeTheta, c.RopeScaling))
	}
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
		n := RMSNorm(b, p+"input_layernorm", x, c.Hidden, c.RMSEps)
		q := rope(b.Heads(b.Linear(p+"self_attn.q_proj", n, c.Hidden, c.Heads*D, false), c.Heads))
		k := rope(b.Heads(b.Linear(p+"self_attn.k_proj", n, c.Hidden, c.KVHeads*D, false), c.KVHeads))
		v := b.Heads(b.Linear(p+"self_attn.v_proj", n, c.Hidden, c.KVHeads*D, false), c.KVHeads)
		a := b.Attention(int(l), q, k, v)
		x = g.Add(x, b.Linear(p+"self_attn.o_proj", a, c.Heads*D, c.Hidden, false))
		n = RMSNorm(b, p+"post_attention_layernorm", x, c.Hidden, c.RMSEps)
		x = g.Add(x, mlp(b, c, p, n))
	}
	x = RMSNorm(b, "model.norm", x, c.Hidden, c.RMSEps)
	logits := b.Linear("lm_head", x, c.Hidden, c.Vocab, false)
	if err := b.Finish(logits); err != nil {
		return nil, err
	}
	return g, nil
}

// RMSNorm appends x·(mean(x²)+eps)^-½·w with w (name+".weight", [width])
// drawn near 1.
func RMSNorm(b *decoder.Builder, name, x string, width int64, eps float32) string {
	g := b.G
	ms := g.ReduceMean(g.Mul(x, x), []int64{-1}, true)
	r := g.Div(g.Scalar(onnx.Float, 1), g.Sqrt(g.Add(ms, g.Scalar(onnx.Float, float64(eps)))))
	return g.Mul(g.Mul(x, r), b.Param(name+".weight", []int64{width}, onnx.Uniform(0.8, 1.2)))
}
