//go:build cgo

package llama2

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai/ollamatest"
)

// TestOllamaServesTinyGGUFAsONNX: ollama serves the tiny Llama 2 as the
// GGUF this package writes (SentencePiece vocabulary, query/key rows
// reordered for llama.cpp's rope), tokenizes the prompt itself, and its
// greedy completion (repeat penalty off) equals ONNX Runtime's on the same
// weights.
func TestOllamaServesTinyGGUFAsONNX(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	if ollamatest.Binary() == "" {
		t.Skip("ollama is not installed (make setup); skipping the real-engine test")
	}
	tok, err := tokenizer.LoadLlama(spec.DepsPath("llama2"))
	if err != nil {
		t.Skipf("Llama 2 tokenizer not installed (make setup): %v", err)
	}
	orttest.Need(t)
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := buildGGUFFile(path, SizeTiny, archSeed, tok); err != nil {
		t.Fatal(err)
	}
	addr := ollamatest.StartFile(t, path, 1, "PARAMETER repeat_penalty 1")
	c := Configs[SizeTiny]
	g, err := arch(c, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := generate.New(orttest.OpenGraph(t, g), c.Spec())
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	for _, prompt := range []string{"The capital of France is", "Write a haiku about the sea, then explain it in one sentence."} {
		out, err := m.Greedy(context.Background(), [][]int32{tok.Encode(prompt, true)}, generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: EOS, MaxNewTokens: n}})
		if err != nil {
			t.Fatal(err)
		}
		want := tok.Decode(out[0], tokenizer.DecodeOptions{SkipSpecial: true})
		if got := ollamatest.Complete(t, addr, prompt, n); got != want {
			t.Errorf("prompt %q:\nollama %q\n  onnx %q (ids %v)", prompt, got, want, out[0])
		}
	}
}
