//go:build cgo

package mixtral

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai/ollamatest"
)

// TestOllamaServesTinyGGUFAsONNX is the cross-engine check of the mixture
// of experts: ollama (llama.cpp, its own MoE kernels: softmax gating, top
// 2, weights renormalised) serves the tiny Mixtral GGUF, tokenizes the
// text prompt itself with the Mixtral vocabulary, and its greedy
// completion (repeat penalty off) is the text of the ids the one ONNX Runtime computes on
// the same weights from this package's tokenizer's ids.
func TestOllamaServesTinyGGUFAsONNX(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	if ollamatest.Binary() == "" {
		t.Skip("ollama is not installed (make setup); skipping the real-engine test")
	}
	orttest.Need(t)
	tp, err := deps.Find("mixtral/mistral-tokenizer.js")
	if err != nil {
		t.Skipf("Mixtral tokenizer not installed: %v", err)
	}
	tok, err := loadTokenizer(tp)
	if err != nil {
		t.Fatal(err)
	}
	c := configs[sizeTiny]
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := buildGGUFFile(path, sizeTiny, archSeed, tok); err != nil {
		t.Fatal(err)
	}
	addr := ollamatest.StartFile(t, path, 1, "PARAMETER repeat_penalty 1")
	g, err := arch(c, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := generate.New(orttest.OpenGraph(t, g), decodeSpec(c))
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	cfg := generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: tokenizer.MistralEOSID, MaxNewTokens: n}}
	for _, prompt := range []string{"The capital of France is", "[INST] Solve step by step: Tom has 3 apples and buys 4 more. [/INST]"} {
		ids := tok.Encode(prompt, true)
		out, err := m.Greedy(context.Background(), [][]int32{ids}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// the text of a continuation: a first piece "▁imports" keeps its
		// space, as a server streams it
		var text []byte
		for _, id := range out[0] {
			text = tok.AppendPieceBytes(text, id)
		}
		want := string(text)
		got := ollamatest.Complete(t, addr, prompt, n)
		if got != want {
			t.Errorf("prompt %q (%d ids):\nollama %q\n  onnx %q (ids %v)", prompt, len(ids), got, want, out[0])
		}
		t.Logf("%d prompt ids → %q", len(ids), got)
	}
}
