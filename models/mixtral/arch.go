package mixtral

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/gguf"
	"github.com/mlperf-go/inference/llm/llama"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/onnx"
)

// Model sizes.
const (
	// size8x7B is Mixtral-8x7B-Instruct-v0.1's config.json: 32 layers,
	// hidden 4096, 32 query and 8 key/value heads, 8 experts of width
	// 14336 with 2 per token, vocabulary 32000, RoPE theta 1e6, 32768
	// positions, no sliding window; 46,702,792,704 weights (187 GB of
	// float32).
	size8x7B = "8x7b"
	// sizeTiny keeps the vocabulary, GQA (4 query heads per kv head) and
	// the 8 experts with top-2 routing, with 2 layers of width 64, for
	// tests.
	sizeTiny = "tiny"
)

// archSeed is the default weight seed.
const archSeed uint64 = 20231211

// configs are the sizes arch builds.
var configs = map[string]llama.Config{
	size8x7B: {Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, Intermediate: 14336, Vocab: tokenizer.MistralVocabSize,
		MaxPositions: 32768, RopeTheta: 1e6, RMSEps: 1e-5, Experts: numExperts, ExpertsPerToken: expertsPerToken},
	sizeTiny: {Layers: 2, Hidden: 64, Heads: 8, KVHeads: 2, Intermediate: 224, Vocab: tokenizer.MistralVocabSize,
		MaxPositions: 32768, RopeTheta: 1e6, RMSEps: 1e-5, Experts: numExperts, ExpertsPerToken: expertsPerToken},
}

// configOf returns the config of a size name.
func configOf(size string) (llama.Config, error) {
	c, ok := configs[size]
	if !ok {
		names := make([]string, 0, len(configs))
		for n := range configs {
			names = append(names, n)
		}
		slices.Sort(names)
		return llama.Config{}, fmt.Errorf("mixtral: unknown model size %q (want one of %s)", size, strings.Join(names, ", "))
	}
	return c, nil
}

// decodeSpec is the decode-loop spec of a model of config c (padding with
// </s>, as SUT.py sets pad_token = eos_token).
func decodeSpec(c llama.Config) generate.Spec { return c.Spec(tokenizer.MistralEOSID) }

// arch builds the Mixtral graph of config c with weights drawn from seed.
func arch(c llama.Config, seed uint64) (*onnx.Graph, error) {
	g, err := llama.Build(c, seed, llama.Options{
		Name: "mixtral",
		Doc: fmt.Sprintf("Mixtral (%d layers, hidden %d, %d/%d heads, %d experts of width %d, top %d, vocabulary %d), synthetic weights, seed %d: performance only, accuracy not meaningful",
			c.Layers, c.Hidden, c.Heads, c.KVHeads, c.Experts, c.Intermediate, c.ExpertsPerToken, c.Vocab, seed),
	})
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
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
		return fmt.Errorf("mixtral: %w", err)
	}
	return nil
}

// expertsOf reads how many experts per layer the model file at path has,
// from its weights' names: the router's width
// (*.block_sparse_moe.gate.weight, [hidden, experts] as this suite and
// torch.onnx write it) or the number of experts.N indices. known is false
// when the names tell nothing (an export that renamed its weights); dense
// is true when the model has a dense MLP (mlp.gate_proj: a Llama model).
func expertsOf(path string) (n int, known, dense bool, err error) {
	ws, err := onnx.ReadInitializers(path)
	if err != nil {
		return 0, false, false, fmt.Errorf("mixtral: %w", err)
	}
	idx := map[int]bool{}
	for _, w := range ws {
		switch {
		case strings.HasSuffix(w.Name, "block_sparse_moe.gate.weight") && len(w.Dims) == 2:
			return int(min(w.Dims[0], w.Dims[1])), true, false, nil
		case strings.HasSuffix(w.Name, "mlp.gate_proj.weight"):
			dense = true
		}
		if _, rest, ok := strings.Cut(w.Name, "block_sparse_moe.experts."); ok {
			if k, _, ok := strings.Cut(rest, "."); ok {
				if e, err := strconv.Atoi(k); err == nil {
					idx[e] = true
				}
			}
		}
	}
	if len(idx) > 0 {
		return len(idx), true, false, nil
	}
	return 0, false, dense, nil
}

// checkExperts refuses a model file that is not a mixture of 8 experts
// (another count, or a dense model) and notes on warn a model whose
// weight names do not tell.
func checkExperts(path, desc string, warn func(string)) error {
	n, known, dense, err := expertsOf(path)
	switch {
	case err != nil:
		return err
	case dense:
		return fmt.Errorf("mixtral: model %s has a dense MLP (mlp.gate_proj), not Mixtral's mixture of experts: it is another model (Llama?); give --model a Mixtral-8x7B export or synthetic", desc)
	case known && n != numExperts:
		return fmt.Errorf("mixtral: model %s has %d experts per layer, Mixtral-8x7B has %d (top %d routing): it is another mixture-of-experts model; give --model a Mixtral-8x7B export or synthetic", desc, n, numExperts, expertsPerToken)
	case !known:
		warn(fmt.Sprintf("mixtral: cannot tell the number of experts of model %s from its weight names (no block_sparse_moe weights); running it as Mixtral-8x7B", desc))
	}
	return nil
}

// ggufOf returns the model of config c with weights drawn from seed (the
// same weights as arch's ONNX graph) as a float32 llama.cpp GGUF with the
// Mixtral vocabulary of tok, for llama.cpp-based engines (ollama).
func ggufOf(c llama.Config, seed uint64, tok *tokenizer.Llama) (*gguf.File, error) {
	if tok.VocabSize() != int(c.Vocab) {
		return nil, fmt.Errorf("mixtral: the tokenizer has %d ids, the model %d rows", tok.VocabSize(), c.Vocab)
	}
	g, err := arch(c, seed)
	if err != nil {
		return nil, err
	}
	f, err := llama.GGUF(g, c, llama.GGUFConfig{
		Name:  fmt.Sprintf("mlperf-go Mixtral %d layers × %d, %d experts (synthetic weights, seed %d)", c.Layers, c.Hidden, c.Experts, seed),
		Vocab: func(f *gguf.File) error { gguf.SentencePieceVocab(f, tok); return nil },
	})
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
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
