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

// Config is the architecture of one Llama 2 size (llm/llama's Config,
// with the Llama 2 spec and checks).
type Config llama.Config

// HeadDim is Hidden / Heads.
func (c Config) HeadDim() int64 { return c.Hidden / c.Heads }

// Token ids of the Llama 2 tokenizer.
const (
	BOS = 1
	EOS = 2
)

// Model sizes.
const (
	Size70B = "70b"
	Size7B  = "7b"
	// SizeTiny keeps the vocabulary, the head dimension ratio and GQA
	// with 2 layers of width 64, for tests.
	SizeTiny = "tiny"
)

// Configs are the sizes Arch builds: 70b and 7b as Meta's Llama-2-*-chat-hf
// config.json files, and tiny.
var Configs = map[string]Config{
	Size70B:  {Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, Intermediate: 28672, Vocab: 32000, MaxPositions: 4096, RopeTheta: 10000, RMSEps: 1e-5},
	Size7B:   {Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, Intermediate: 11008, Vocab: 32000, MaxPositions: 4096, RopeTheta: 10000, RMSEps: 1e-5},
	SizeTiny: {Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, Intermediate: 172, Vocab: 32000, MaxPositions: 4096, RopeTheta: 10000, RMSEps: 1e-5},
}

// ArchSeed is the default weight seed.
const ArchSeed uint64 = 20230718

// ConfigOf returns the config of a size name.
func ConfigOf(size string) (Config, error) {
	c, ok := Configs[size]
	if !ok {
		names := make([]string, 0, len(Configs))
		for n := range Configs {
			names = append(names, n)
		}
		slices.Sort(names)
		return Config{}, fmt.Errorf("llama2: unknown model size %q (want one of %s)", size, strings.Join(names, ", "))
	}
	return c, nil
}

// Spec is the decode-loop spec of a model of this config.
func (c Config) Spec() generate.Spec { return llama.Config(c).Spec(EOS) }

// Arch builds the Llama 2 graph of config c with weights drawn from seed.
func Arch(c Config, seed uint64) (*onnx.Graph, error) {
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

// BuildFile writes the model of the named size to path, streaming the
// weights to path+".data" when the model exceeds the 2 GiB protobuf limit.
func BuildFile(path, size string, seed uint64) error {
	c, err := ConfigOf(size)
	if err != nil {
		return err
	}
	return BuildConfigFile(path, c, seed)
}

// BuildConfigFile is BuildFile for an explicit config.
func BuildConfigFile(path string, c Config, seed uint64) error {
	g, err := Arch(c, seed)
	if err != nil {
		return err
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("llama2: %w", err)
	}
	return nil
}

// Params is the number of weights of a config, as Arch writes them.
func (c Config) Params() int64 { return llama.Config(c).DenseParams() }

// GGUF returns the model of config c with weights drawn from seed (the
// same weights as Arch's ONNX graph) as a float32 llama.cpp GGUF with the
// Llama 2 vocabulary of tok, for llama.cpp-based engines (ollama).
func GGUF(c Config, seed uint64, tok *tokenizer.Llama) (*gguf.File, error) {
	if tok.VocabSize() != int(c.Vocab) {
		return nil, fmt.Errorf("llama2: the tokenizer has %d ids, the model %d rows", tok.VocabSize(), c.Vocab)
	}
	g, err := Arch(c, seed)
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

// BuildGGUFFile writes the GGUF of the named size to path.
func BuildGGUFFile(path, size string, seed uint64, tok *tokenizer.Llama) error {
	c, err := ConfigOf(size)
	if err != nil {
		return err
	}
	f, err := GGUF(c, seed, tok)
	if err != nil {
		return err
	}
	return gguf.WriteFile(path, f)
}
