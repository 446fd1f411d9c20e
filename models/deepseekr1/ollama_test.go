package deepseekr1

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/llm/gguf"
	"github.com/mlperf-go/inference/llm/llama"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai/ollamatest"
)

// tinyConfig is the test engine's model: a Llama-architecture decoder of
// 2 layers of width 64 over DeepSeek-R1's 128,815 ids (seeded weights;
// what it says means nothing).
var tinyConfig = llama.Config{Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, Intermediate: 224, Vocab: tokenizer.DeepSeekVocabSize,
	MaxPositions: 8192, RopeTheta: 10000, RMSEps: 1e-6}

// writeTinyGGUF writes the test engine's model with DeepSeek-R1's
// vocabulary, merges and pre-tokenizer ("deepseek-v3" in llama.cpp) to
// path.
func writeTinyGGUF(t *testing.T, tok *tokenizer.DeepSeek, path string) {
	t.Helper()
	g, err := llama.Build(tinyConfig, 7, llama.Options{Name: "tiny-deepseek-vocab"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := llama.GGUF(g, tinyConfig, llama.GGUFConfig{
		Name:  "mlperf-go test engine: 2-layer Llama over DeepSeek-R1's vocabulary (seeded weights)",
		Vocab: func(f *gguf.File) error { return gguf.BPEVocabPre(f, tok, tokenizer.DeepSeekEOSID, "deepseek-v3") },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := gguf.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
}

// r1Template is DeepSeek-R1's chat template for one user message as an
// ollama Modelfile TEMPLATE (llama.cpp adds the BOS and reads the markers
// as their tokens).
const r1Template = "TEMPLATE \"\"\"<｜User｜>{{ .Prompt }}<｜Assistant｜><think>\n\"\"\""

// startOllama serves the tiny DeepSeek-vocabulary model from a real
// ollama with R1's chat template, skipping the test where ollama is not
// installed or with -short.
func startOllama(t *testing.T, tok *tokenizer.DeepSeek, parallel int) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	if ollamatest.Binary() == "" {
		t.Skip("ollama is not installed (make setup); skipping the real-engine test")
	}
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	writeTinyGGUF(t, tok, path)
	return ollamatest.StartFile(t, path, parallel, r1Template, "PARAMETER repeat_penalty 1")
}

// TestOllamaTemplatesR1PromptsAsTheDataSet is the cross-engine check of
// the tokenizer and the chat template: ollama (llama.cpp's deepseek-v3
// pre-tokenizer over the GGUF's vocabulary and merges) applies R1's
// template to each synthetic row's text_input as a chat message, and
// counts as many prompt tokens as the row's tok_input holds.
func TestOllamaTemplatesR1PromptsAsTheDataSet(t *testing.T) {
	tok := needTok(t)
	addr := startOllama(t, tok, 1)
	for i, r := range synthesize(10, 5, tok) {
		body, _ := json.Marshal(map[string]any{"model": ollamatest.Model, "messages": []map[string]string{{"role": "user", "content": r.TextInput}}, "max_tokens": 2, "temperature": 0})
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("row %d: status %d, %v", i, resp.StatusCode, err)
		}
		if out.Usage.PromptTokens != len(r.TokInput) {
			t.Errorf("row %d (%s): ollama counts %d prompt tokens, the data set holds %d", i, r.Dataset, out.Usage.PromptTokens, len(r.TokInput))
		}
	}
}
