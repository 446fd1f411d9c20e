//go:build cgo

package llama3

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai/ollamatest"
)

// TestOllamaServesTinyGGUFAsONNX is the cross-engine check of the GGUF
// writer: ollama (llama.cpp) serves the tiny Llama 3.1 GGUF (the 128k
// vocabulary with its merges, llama-bpe pre-tokenizer, rope_freqs for the
// llama3 rescaling, reordered query/key rows), tokenizes the text prompt
// itself, and its greedy completion (repeat penalty off) equals the one
// ONNX Runtime computes on the same weights from this package's
// tokenizer's ids.
func TestOllamaServesTinyGGUFAsONNX(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	if ollamatest.Binary() == "" {
		t.Skip("ollama is not installed (make setup); skipping the real-engine test")
	}
	tok := needTok(t)
	orttest.Need(t)
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
	// a prompt of 600 to 1000 tokens puts the rescaled frequencies to
	// work (at position p the lowest ones turn by p·2.4e-4 rad less)
	recs, err := cnndm.Synth(cnndm.SynthConfig{Seed: 11, Records: 1, MinSentences: 30, MaxSentences: 30})
	if err != nil {
		t.Fatal(err)
	}
	long := cnndm.Llama3Prompt(recs[0].Input)
	if n := len(tok.Encode(long, true)); n < 600 || n > 1000 {
		t.Fatalf("long prompt of %d tokens", n)
	}
	const n = 12
	cfg := generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: tokenizer.Llama3EOTID, MoreEOS: []int32{endOfText}, MaxNewTokens: n}}
	for _, prompt := range []string{"The capital of France is", long} {
		ids := tok.Encode(prompt, true)
		out, err := m.Greedy(context.Background(), [][]int32{ids}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := tok.Decode(out[0], tokenizer.DecodeOptions{SkipSpecial: true})
		got := ollamatest.Complete(t, addr, prompt, n)
		if got != want {
			t.Errorf("prompt %q (%d ids):\nollama %q\n  onnx %q (ids %v)", prompt, len(ids), got, want, out[0])
		}
		t.Logf("%d prompt ids → %q", len(ids), got)
	}
}
