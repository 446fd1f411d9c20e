package gguf

import (
	"fmt"
	"math"
	"strings"
)

// LlamaConfig is a Llama-architecture model's shape.
type LlamaConfig struct {
	Dim, Layers, Heads, KVHeads, FF, Context int
	NormEps                                  float32
}

// TinyLlama is a 2-layer, width-64 Llama: with the full 32,000-token
// vocabulary it is about 17 MB and loads in a fraction of a second.
var TinyLlama = LlamaConfig{Dim: 64, Layers: 2, Heads: 4, KVHeads: 4, FF: 172, Context: 2048, NormEps: 1e-5}

// Vocab is a SentencePiece-style vocabulary in id order.
type Vocab interface {
	VocabSize() int
	Piece(id int32) string
}

// Llama assembles a Llama GGUF of shape c with seeded uniform weights and
// the vocabulary v (ids 0, 1, 2 are <unk>, <s>, </s>, as Llama 2's).
// Token scores are -id for normal tokens and 0 for control and byte
// tokens: the vocabulary of llama-tokenizer-js carries no SentencePiece
// scores, and with these llama.cpp tokenizes as Llama 2 does.
func Llama(c LlamaConfig, v Vocab, seed uint64) (*File, error) {
	if c.Dim <= 0 || c.Layers <= 0 || c.Heads <= 0 || c.Dim%c.Heads != 0 || c.KVHeads <= 0 || c.Heads%c.KVHeads != 0 || c.FF <= 0 {
		return nil, fmt.Errorf("gguf: bad Llama shape %+v", c)
	}
	n := v.VocabSize()
	if n < 3 {
		return nil, fmt.Errorf("gguf: vocabulary of %d tokens", n)
	}
	f := &File{}
	f.String("general.architecture", "llama")
	f.String("general.name", "mlperf-go tiny llama (seeded weights)")
	f.Uint32("general.alignment", Alignment)
	f.Uint32("general.file_type", 0)
	f.Uint32("llama.context_length", uint32(c.Context))
	f.Uint32("llama.embedding_length", uint32(c.Dim))
	f.Uint32("llama.block_count", uint32(c.Layers))
	f.Uint32("llama.feed_forward_length", uint32(c.FF))
	f.Uint32("llama.attention.head_count", uint32(c.Heads))
	f.Uint32("llama.attention.head_count_kv", uint32(c.KVHeads))
	f.Uint32("llama.rope.dimension_count", uint32(c.Dim/c.Heads))
	f.Float32("llama.attention.layer_norm_rms_epsilon", c.NormEps)
	f.Uint32("llama.vocab_size", uint32(n))
	SentencePieceVocab(f, v)

	rng := seed
	next := func() float32 { // splitmix64 → uniform in [-1, 1)
		rng += 0x9e3779b97f4a7c15
		z := rng
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		return float32(z>>40)/float32(1<<23) - 1
	}
	mat := func(name string, in, out int) {
		s := float32(1 / math.Sqrt(float64(in)))
		d := make([]float32, in*out)
		for i := range d {
			d[i] = s * next()
		}
		f.Tensor(name, []uint64{uint64(in), uint64(out)}, d)
	}
	ones := func(name string) {
		d := make([]float32, c.Dim)
		for i := range d {
			d[i] = 1
		}
		f.Tensor(name, []uint64{uint64(c.Dim)}, d)
	}
	kv := c.Dim / c.Heads * c.KVHeads
	mat("token_embd.weight", c.Dim, n)
	for l := range c.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		ones(p + "attn_norm.weight")
		mat(p+"attn_q.weight", c.Dim, c.Dim)
		mat(p+"attn_k.weight", c.Dim, kv)
		mat(p+"attn_v.weight", c.Dim, kv)
		mat(p+"attn_output.weight", c.Dim, c.Dim)
		ones(p + "ffn_norm.weight")
		mat(p+"ffn_gate.weight", c.Dim, c.FF)
		mat(p+"ffn_up.weight", c.Dim, c.FF)
		mat(p+"ffn_down.weight", c.FF, c.Dim)
	}
	ones("output_norm.weight")
	mat("output.weight", c.Dim, n)
	return f, nil
}

// SentencePieceVocab adds the tokenizer metadata of a Llama 2 style
// SentencePiece vocabulary v (ids 0, 1, 2 are <unk>, <s>, </s>): token
// scores are -id for normal tokens and 0 for control and byte tokens (the
// vocabulary of llama-tokenizer-js carries no SentencePiece scores, and
// with these llama.cpp tokenizes as Llama 2 does).
func SentencePieceVocab(f *File, v Vocab) {
	n := v.VocabSize()
	tokens := make([]string, n)
	scores := make([]float32, n)
	types := make([]int32, n)
	for id := range n {
		p := v.Piece(int32(id))
		tokens[id] = p
		switch {
		case id == 0:
			types[id] = tokenUnknown
		case id == 1 || id == 2:
			types[id] = tokenControl
		case len(p) == 6 && strings.HasPrefix(p, "<0x") && strings.HasSuffix(p, ">"):
			types[id] = tokenByte
		default:
			types[id] = tokenNormal
			scores[id] = -float32(id)
		}
	}
	f.String("tokenizer.ggml.model", "llama")
	f.Strings("tokenizer.ggml.tokens", tokens)
	f.Float32s("tokenizer.ggml.scores", scores)
	f.Int32s("tokenizer.ggml.token_type", types)
	f.Uint32("tokenizer.ggml.bos_token_id", 1)
	f.Uint32("tokenizer.ggml.eos_token_id", 2)
	f.Uint32("tokenizer.ggml.unknown_token_id", 0)
	f.Bool("tokenizer.ggml.add_bos_token", true)
	f.Bool("tokenizer.ggml.add_eos_token", false)
}

// Token types of tokenizer.ggml.token_type (llama.cpp's llama_token_type).
const (
	tokenNormal  = 1
	tokenUnknown = 2
	tokenControl = 3
	tokenByte    = 6
)

// BPE is a byte-level BPE vocabulary (Llama 3): its tokens in id order as
// GPT-2 byte characters (a special token as its text), and its merges in
// rank order.
type BPE interface {
	VocabSize() int
	Token(id int32) string
	IsSpecial(id int32) bool
	Merges() [][2]string
	BOS() int32
}

// BPEVocab adds the tokenizer metadata of a Llama 3 byte-level BPE
// vocabulary as llama.cpp's convert_hf_to_gguf.py writes it: model
// "gpt2", pre-tokenizer "llama-bpe" (Llama 3's split regex), the tokens,
// their types (special tokens control, the rest normal), the merges as
// "left right" strings, BOS added, and eos the id generation ends on.
func BPEVocab(f *File, v BPE, eos int32) error {
	n := v.VocabSize()
	if eos < 0 || int(eos) >= n || v.BOS() < 0 {
		return fmt.Errorf("gguf: eos %d, bos %d for a vocabulary of %d", eos, v.BOS(), n)
	}
	tokens := make([]string, n)
	types := make([]int32, n)
	for id := range n {
		tokens[id] = v.Token(int32(id))
		types[id] = tokenNormal
		if v.IsSpecial(int32(id)) {
			types[id] = tokenControl
		}
	}
	ms := v.Merges()
	merges := make([]string, len(ms))
	for i, m := range ms {
		merges[i] = m[0] + " " + m[1]
	}
	f.String("tokenizer.ggml.model", "gpt2")
	f.String("tokenizer.ggml.pre", "llama-bpe")
	f.Strings("tokenizer.ggml.tokens", tokens)
	f.Int32s("tokenizer.ggml.token_type", types)
	f.Strings("tokenizer.ggml.merges", merges)
	f.Uint32("tokenizer.ggml.bos_token_id", uint32(v.BOS()))
	f.Uint32("tokenizer.ggml.eos_token_id", uint32(eos))
	f.Bool("tokenizer.ggml.add_bos_token", true)
	f.Bool("tokenizer.ggml.add_eos_token", false)
	return nil
}
