// Package llama3 is the MLPerf Llama 3.1 8B benchmark (datacenter, edge
// and interactive) on CNN-DailyMail: the synthetic-weights model of
// llm/llama at Llama-3.1-8B-Instruct's shape, greedy decoding of 128 new
// tokens by llm/generate, and the reference's ROUGE evaluation.
package llama3

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

// Model sizes.
const (
	// size8B is Meta-Llama-3.1-8B-Instruct's config.json: 32 layers,
	// hidden 4096, 32 query and 8 key/value heads, MLP 14336, vocabulary
	// 128256, RoPE theta 500000 with the llama3 rescaling, 131072
	// positions; 8,030,261,248 weights (32 GB of float32).
	size8B = "8b"
	// sizeTiny keeps the vocabulary, GQA and the rope rescaling with 2
	// layers of width 64, for tests.
	sizeTiny = "tiny"
)

// archSeed is the default weight seed.
const archSeed uint64 = 20240723

// configs are the sizes Arch builds.
var configs = map[string]llama.Config{
	size8B: {Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, Intermediate: 14336, Vocab: tokenizer.Llama3VocabSize,
		MaxPositions: 131072, RopeTheta: 500000, RMSEps: 1e-5, RopeScaling: llama31Scaling()},
	sizeTiny: {Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, Intermediate: 224, Vocab: tokenizer.Llama3VocabSize,
		MaxPositions: 131072, RopeTheta: 500000, RMSEps: 1e-5, RopeScaling: llama31Scaling()},
}

func llama31Scaling() *llama.RopeScaling { s := llama.Llama31Scaling; return &s }

// configOf returns the config of a size name.
func configOf(size string) (llama.Config, error) {
	c, ok := configs[size]
	if !ok {
		names := make([]string, 0, len(configs))
		for n := range configs {
			names = append(names, n)
		}
		slices.Sort(names)
		return llama.Config{}, fmt.Errorf("llama3: unknown model size %q (want one of %s)", size, strings.Join(names, ", "))
	}
	return c, nil
}

// decodeSpec is the decode-loop spec of a model of config c (padding with
// <|eot_id|>).
func decodeSpec(c llama.Config) generate.Spec { return c.Spec(tokenizer.Llama3EOTID) }

// arch builds the Llama 3.1 graph of config c with weights drawn from
// seed.
func arch(c llama.Config, seed uint64) (*onnx.Graph, error) {
	g, err := llama.Build(c, seed, llama.Options{
		Name: "llama3.1",
		Doc: fmt.Sprintf("Llama 3.1 (%d layers, hidden %d, %d/%d heads, vocabulary %d), synthetic weights, seed %d: performance only, accuracy not meaningful",
			c.Layers, c.Hidden, c.Heads, c.KVHeads, c.Vocab, seed),
	})
	if err != nil {
		return nil, fmt.Errorf("llama3: %w", err)
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
	g, err := arch(c, seed)
	if err != nil {
		return err
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("llama3: %w", err)
	}
	return nil
}

// ggufOf returns the model of config c with weights drawn from seed (the
// same weights as Arch's ONNX graph) as a float32 llama.cpp ggufOf with the
// Llama 3.1 vocabulary of tok, for llama.cpp-based engines (ollama).
func ggufOf(c llama.Config, seed uint64, tok *tokenizer.Llama3) (*gguf.File, error) {
	if tok.VocabSize() != int(c.Vocab) {
		return nil, fmt.Errorf("llama3: the tokenizer has %d ids, the model %d rows", tok.VocabSize(), c.Vocab)
	}
	g, err := arch(c, seed)
	if err != nil {
		return nil, err
	}
	f, err := llama.GGUF(g, c, llama.GGUFConfig{
		Name:  fmt.Sprintf("mlperf-go Llama 3.1 %d layers × %d (synthetic weights, seed %d)", c.Layers, c.Hidden, seed),
		Vocab: func(f *gguf.File) error { return gguf.BPEVocab(f, tok, tokenizer.Llama3EOTID) },
	})
	if err != nil {
		return nil, fmt.Errorf("llama3: %w", err)
	}
	return f, nil
}

// buildGGUFFile writes the GGUF of the named size to path.
func buildGGUFFile(path, size string, seed uint64, tok *tokenizer.Llama3) error {
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
