package llama

import (
	"fmt"
	"math"

	"github.com/mlperf-go/inference/llm/gguf"
	"github.com/mlperf-go/inference/onnx"
)

// GGUFConfig names the model and writes its tokenizer metadata.
type GGUFConfig struct {
	// Name is general.name.
	Name string
	// Vocab adds the tokenizer.ggml.* keys (gguf.SentencePieceVocab for
	// Llama 2, gguf.BPEVocab for Llama 3).
	Vocab func(*gguf.File) error
}

// GGUF converts a graph Build made with the default MLP (dense SwiGLU, or
// with experts MoE) into a float32
// GGUF of llama.cpp's "llama" architecture with the same weights, as
// convert_hf_to_gguf.py converts a transformers checkpoint: linear weights
// as [out, in] rows, the query and key rows of each head reordered from
// transformers' rotate-half pairs (i, i+D/2) to llama.cpp's adjacent pairs
// (2i, 2i+1), and, with the llama3 rope rescaling, rope_freqs.weight
// holding each frequency's divisor (1, factor, or 1/((1−smooth)/factor +
// smooth) between). With experts (Mixtral) it writes llama.cpp's layout
// for a mixture of experts: llama.expert_count and expert_used_count, the
// router as blk.N.ffn_gate_inp.weight (rows of experts) and each layer's
// experts stacked into blk.N.ffn_{gate,up,down}_exps.weight (ne [in, out,
// experts]), as convert_hf_to_gguf.py stacks w1, w3 and w2. The graph
// must come from Build with config c.
func GGUF(g *onnx.Graph, c Config, gc GGUFConfig) (*gguf.File, error) {
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	ws := map[string]*onnx.Tensor{}
	for _, t := range g.Initializers() {
		ws[t.Name] = t
	}
	get := func(name string, dims ...int64) ([]float64, error) {
		t, ok := ws[name]
		if !ok {
			return nil, fmt.Errorf("gguf: the graph has no weight %s (not a Llama graph of this config?)", name)
		}
		if len(t.Dims) != len(dims) {
			return nil, fmt.Errorf("gguf: weight %s has shape %v, want %v", name, t.Dims, dims)
		}
		for i := range dims {
			if t.Dims[i] != dims[i] {
				return nil, fmt.Errorf("gguf: weight %s has shape %v, want %v", name, t.Dims, dims)
			}
		}
		v, err := t.Values()
		if err != nil {
			return nil, fmt.Errorf("gguf: weight %s: %w", name, err)
		}
		return v, nil
	}
	f := &gguf.File{}
	D := c.HeadDim()
	f.String("general.architecture", "llama")
	f.String("general.name", gc.Name)
	f.Uint32("general.alignment", gguf.Alignment)
	f.Uint32("general.file_type", 0)
	f.Uint32("llama.context_length", uint32(c.MaxPositions))
	f.Uint32("llama.embedding_length", uint32(c.Hidden))
	f.Uint32("llama.block_count", uint32(c.Layers))
	f.Uint32("llama.feed_forward_length", uint32(c.Intermediate))
	f.Uint32("llama.attention.head_count", uint32(c.Heads))
	f.Uint32("llama.attention.head_count_kv", uint32(c.KVHeads))
	f.Uint32("llama.rope.dimension_count", uint32(D))
	f.Float32("llama.rope.freq_base", float32(c.RopeTheta))
	f.Float32("llama.attention.layer_norm_rms_epsilon", c.RMSEps)
	f.Uint32("llama.vocab_size", uint32(c.Vocab))
	if c.Experts > 0 {
		f.Uint32("llama.expert_count", uint32(c.Experts))
		f.Uint32("llama.expert_used_count", uint32(c.ExpertsPerToken))
	}
	if gc.Vocab != nil {
		if err := gc.Vocab(f); err != nil {
			return nil, err
		}
	}

	// vector copies a 1-D weight.
	vector := func(dst, src string, n int64) error {
		v, err := get(src, n)
		if err != nil {
			return err
		}
		f.Tensor(dst, []uint64{uint64(n)}, toFloat32(v))
		return nil
	}
	// linear writes an ONNX [in, out] weight as GGUF ne [in, out] (rows of
	// out), with heads > 0 reordering each head's rows for llama.cpp's
	// rope.
	linear := func(dst, src string, in, out, heads int64) error {
		v, err := get(src, in, out)
		if err != nil {
			return err
		}
		d := make([]float32, in*out)
		for o := range out {
			from := o
			if heads > 0 {
				h, r := o/D, o%D // GGUF row r of head h is transformers' row
				from = h*D + (r%2)*(D/2) + r/2
			}
			for i := range in {
				d[o*in+i] = float32(v[i*out+from])
			}
		}
		f.Tensor(dst, []uint64{uint64(in), uint64(out)}, d)
		return nil
	}
	// experts stacks the [in, out] weight src(e) of every expert as GGUF
	// ne [in, out, experts]: expert e's rows of out follow expert e-1's.
	experts := func(dst string, src func(e int64) string, in, out int64) error {
		d := make([]float32, 0, c.Experts*in*out)
		for e := range c.Experts {
			v, err := get(src(e), in, out)
			if err != nil {
				return err
			}
			for o := range out {
				for i := range in {
					d = append(d, float32(v[i*out+o]))
				}
			}
		}
		f.Tensor(dst, []uint64{uint64(in), uint64(out), uint64(c.Experts)}, d)
		return nil
	}
	emb, err := get("model.embed_tokens.weight", c.Vocab, c.Hidden)
	if err != nil {
		return nil, err
	}
	f.Tensor("token_embd.weight", []uint64{uint64(c.Hidden), uint64(c.Vocab)}, toFloat32(emb))
	if c.RopeScaling != nil {
		f.Tensor("rope_freqs.weight", []uint64{uint64(D / 2)}, RopeFreqFactors(D, c.RopeTheta, c.RopeScaling))
	}
	for l := range c.Layers {
		p := fmt.Sprintf("model.layers.%d.", l)
		q := fmt.Sprintf("blk.%d.", l)
		steps := []error{
			vector(q+"attn_norm.weight", p+"input_layernorm.weight", c.Hidden),
			linear(q+"attn_q.weight", p+"self_attn.q_proj.weight", c.Hidden, c.Heads*D, c.Heads),
			linear(q+"attn_k.weight", p+"self_attn.k_proj.weight", c.Hidden, c.KVHeads*D, c.KVHeads),
			linear(q+"attn_v.weight", p+"self_attn.v_proj.weight", c.Hidden, c.KVHeads*D, 0),
			linear(q+"attn_output.weight", p+"self_attn.o_proj.weight", c.Heads*D, c.Hidden, 0),
			vector(q+"ffn_norm.weight", p+"post_attention_layernorm.weight", c.Hidden),
		}
		if c.Experts > 0 {
			ex := func(w string) func(int64) string {
				return func(e int64) string { return fmt.Sprintf("%sblock_sparse_moe.experts.%d.%s.weight", p, e, w) }
			}
			steps = append(steps,
				linear(q+"ffn_gate_inp.weight", p+"block_sparse_moe.gate.weight", c.Hidden, c.Experts, 0),
				experts(q+"ffn_gate_exps.weight", ex("w1"), c.Hidden, c.Intermediate),
				experts(q+"ffn_up_exps.weight", ex("w3"), c.Hidden, c.Intermediate),
				experts(q+"ffn_down_exps.weight", ex("w2"), c.Intermediate, c.Hidden))
		} else {
			steps = append(steps,
				linear(q+"ffn_gate.weight", p+"mlp.gate_proj.weight", c.Hidden, c.Intermediate, 0),
				linear(q+"ffn_up.weight", p+"mlp.up_proj.weight", c.Hidden, c.Intermediate, 0),
				linear(q+"ffn_down.weight", p+"mlp.down_proj.weight", c.Intermediate, c.Hidden, 0))
		}
		for _, e := range steps {
			if e != nil {
				return nil, e
			}
		}
	}
	if err := vector("output_norm.weight", "model.norm.weight", c.Hidden); err != nil {
		return nil, err
	}
	if err := linear("output.weight", "lm_head.weight", c.Hidden, c.Vocab, 0); err != nil {
		return nil, err
	}
	return f, nil
}

// RopeFreqFactors returns llama.cpp's rope_freqs for the llama3
// rescaling, as convert_hf_to_gguf.py computes them (in float64, stored as
// float32): per frequency of InvFreq(dim, theta, nil), 1 when its
// wavelength is below original/high_freq_factor, factor above
// original/low_freq_factor, else 1/((1−smooth)/factor + smooth) with
// smooth = (original/wavelength − low)/(high − low). llama.cpp divides
// each rotary angle by its factor.
func RopeFreqFactors(dim int64, theta float64, s *RopeScaling) []float32 {
	inv := InvFreq(dim, theta, nil)
	out := make([]float32, len(inv))
	old := float64(s.OriginalMaxPositions)
	lowWave, highWave := old/s.LowFreqFactor, old/s.HighFreqFactor
	for i, f := range inv {
		wave := 2 * math.Pi / float64(f)
		switch {
		case wave < highWave:
			out[i] = 1
		case wave > lowWave:
			out[i] = float32(s.Factor)
		default:
			smooth := (old/wave - s.LowFreqFactor) / (s.HighFreqFactor - s.LowFreqFactor)
			out[i] = float32(1 / ((1-smooth)/s.Factor + smooth))
		}
	}
	return out
}

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
