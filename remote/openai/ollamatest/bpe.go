package ollamatest

import (
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/llm/gguf"
	"github.com/mlperf-go/inference/llm/llama"
)

// BPEConfig is the tiny model StartBPE serves: a Llama-architecture
// decoder of 2 layers of width 64 with seeded weights (what it generates
// means nothing) over Vocab, a byte-level BPE vocabulary whose
// pre-tokenizer llama.cpp knows as Pre ("llama-bpe", "deepseek-v3",
// "gpt-4o"), generation ending on EOS.
type BPEConfig struct {
	Vocab gguf.BPE
	Pre   string
	EOS   int32
}

// StartBPE serves the tiny model of c from a real ollama as StartFile
// does (params are extra Modelfile lines: a TEMPLATE for a chat
// benchmark, PARAMETER lines), skipping t where ollama is not installed.
func StartBPE(t testing.TB, c BPEConfig, parallel int, params ...string) string {
	t.Helper()
	if Binary() == "" {
		t.Skip("ollama is not installed (make setup installs it into .deps/ollama); skipping the real-engine test")
	}
	cfg := llama.Config{Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, Intermediate: 224, Vocab: int64(c.Vocab.VocabSize()),
		MaxPositions: 8192, RopeTheta: 10000, RMSEps: 1e-6}
	g, err := llama.Build(cfg, 7, llama.Options{Name: "tiny-bpe"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := llama.GGUF(g, cfg, llama.GGUFConfig{
		Name:  "mlperf-go test engine: a 2-layer Llama over a " + c.Pre + " vocabulary (seeded weights)",
		Vocab: func(f *gguf.File) error { return gguf.BPEVocabPre(f, c.Vocab, c.EOS, c.Pre) },
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny-bpe.gguf")
	if err := gguf.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return StartFile(t, path, parallel, params...)
}
