package llama2

import (
	"slices"
	"testing"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai"
)

// A chat of an OpenOrca row's system prompt and question runs the row's
// tok_input (less the 29871 processorca.py appends), with or without a
// system prompt; a later turn follows Meta's format after one BOS.
func TestChatIDsAreTheRowsPrompt(t *testing.T) {
	tok, err := lazyTokenizer(spec.DepsPath("llama2"))()
	if err != nil {
		t.Skip(err)
	}
	tt := textTokenizer{tok}
	for _, c := range []struct{ system, question string }{
		{"You are a helpful assistant.", "What is the capital of France?"},
		{"", "Translate to German: good morning"},
	} {
		msgs := []openai.Message{{Role: "user", Content: c.question}}
		if c.system != "" {
			msgs = append([]openai.Message{{Role: "system", Content: c.system}}, msgs...)
		}
		want := openorca.EncodePrompt(tok, c.system, c.question)
		if got := tt.ChatIDs(msgs); !slices.Equal(got, want[:len(want)-1]) {
			t.Errorf("%q: %v, want %v", c.question, got, want[:len(want)-1])
		}
	}
	first := tt.ChatIDs([]openai.Message{{Role: "user", Content: "Hi"}})
	got := tt.ChatIDs([]openai.Message{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello"}, {Role: "user", Content: "Bye"}})
	second := promptIDs(tok, "<s>[INST] Bye [/INST]")[1:]
	want := slices.Concat(first, tok.Encode(" Hello ", false), []int32{tokenizer.LlamaEOSID}, second)
	if !slices.Equal(got, want) || second[0] != tokenizer.LlamaBOSID || second[1] == tokenizer.LlamaBOSID {
		t.Errorf("two turns: %v, want %v", got, want)
	}
}
