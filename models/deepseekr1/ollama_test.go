package deepseekr1

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai/ollamatest"
)

// r1Template is DeepSeek-R1's chat template for one user message as an
// ollama Modelfile TEMPLATE (llama.cpp adds the BOS and reads the markers
// as their tokens).
const r1Template = "TEMPLATE \"\"\"<｜User｜>{{ .Prompt }}<｜Assistant｜><think>\n\"\"\""

// startOllama serves a tiny model over DeepSeek-R1's vocabulary, merges
// and pre-tokenizer ("deepseek-v3" in llama.cpp) from a real ollama with
// R1's chat template, skipping the test where ollama is not installed or
// with -short.
func startOllama(t *testing.T, tok *tokenizer.DeepSeek, parallel int) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	return ollamatest.StartBPE(t, ollamatest.BPEConfig{Vocab: tok, Pre: "deepseek-v3", EOS: tokenizer.DeepSeekEOSID}, parallel, r1Template, "PARAMETER repeat_penalty 1")
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
