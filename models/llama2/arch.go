// Package llama2 is the MLPerf Llama 2 70B benchmark on OpenOrca: the
// synthetic-weights model builder (arch.go) with the decoder I/O of a
// Hugging Face optimum export, run by llm/generate.
package llama2

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/gguf"
	"github.com/mlperf-go/inference/llm/llama"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/onnx"
)

// The synthetic-weights model is Llama 2 as in transformers' modeling_llama
// (mlcommons/inference language/llama2-70b), built by llm/llama under the
// optimum decoder contract (see llm/decoder): RoPE theta 10000 without
// rescaling, grouped-query attention for 70B, the SwiGLU MLP.

// config is the architecture of one Llama 2 size (llm/llama's Config,
// with the Llama 2 spec and checks).
type config llama.Config

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

// Spec is the decode-loop spec of a model of this config.
func (c config) Spec() generate.Spec { return llama.Config(c).Spec(EOS) }

// arch builds the Llama 2 graph of config c with weights drawn from seed.
func arch(c config, seed uint64) (*onnx.Graph, error) {
	if c.RopeScaling != nil {
		return nil, fmt.Errorf("llama2: rope scaling %+v: Llama 2 has none", *c.RopeScaling)
	}
	g, err := llama.Build(llama.Config(c), seed, llama.Options{
		Name: "llama2",
		Doc: fmt.Sprintf("Llama 2 (%d layers, hidden %d, %d/%d heads), synthetic weights, seed %d: performance only, accuracy not meaningful",
			c.Layers, c.Hidden, c.Heads, c.KVHeads, seed),
	})
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	return g, nil
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
func (c config) Params() int64 { return llama.Config(c).DenseParams() }

// ggufOf returns the model of config c with weights drawn from seed (the
// same weights as arch's ONNX graph) as a float32 llama.cpp GGUF with the
// Llama 2 vocabulary of tok, for llama.cpp-based engines (ollama).
func ggufOf(c config, seed uint64, tok *tokenizer.Llama) (*gguf.File, error) {
	if tok.VocabSize() != int(c.Vocab) {
		return nil, fmt.Errorf("llama2: the tokenizer has %d ids, the model %d rows", tok.VocabSize(), c.Vocab)
	}
	g, err := arch(c, seed)
	if err != nil {
		return nil, err
	}
	f, err := llama.GGUF(g, llama.Config(c), llama.GGUFConfig{
		Name:  fmt.Sprintf("mlperf-go Llama 2 %d layers × %d (synthetic weights, seed %d)", c.Layers, c.Hidden, seed),
		Vocab: func(f *gguf.File) error { gguf.SentencePieceVocab(f, tok); return nil },
	})
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	return f, nil
}

// buildGGUFFile writes the GGUF of the named size to path.
func buildGGUFFile(path, size string, seed uint64, tok *tokenizer.Llama) error {
	c, err := configOf(size)
	if err != nil {
		return err
	}
	f, err := ggufOf(c, seed, tok)
	if err != nil {
		return err
	}
	return gguf.WriteFile(path, f)
}
