package mixtral

import (
	"slices"
	"testing"

	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/remote/openai"
)

// ChatIDs is the Mixtral Instruct chat template. The one-message ids are
// those Mistral's documentation and Hugging Face's chat-template guide
// print for this message with Mistral-7B-Instruct's tokenizer (the same
// 32,000-piece vocabulary); a system message joins the next user
// message, and an assistant turn ends with </s> (id 2).
func TestChatIDsMixtralTemplate(t *testing.T) {
	tp, err := deps.Find("mixtral/mistral-tokenizer.js")
	if err != nil {
		t.Skipf("Mixtral tokenizer not installed: %v", err)
	}
	tok, err := loadTokenizer(tp)
	if err != nil {
		t.Fatal(err)
	}
	tt := textTokenizer{tok}
	user := openai.Message{Role: "user", Content: "What is your favourite condiment?"}
	want := []int32{1, 733, 16289, 28793, 1824, 349, 574, 16020, 2076, 2487, 28804, 733, 28748, 16289, 28793}
	if got := tt.ChatIDs([]openai.Message{user}); !slices.Equal(got, want) {
		t.Errorf("one user message: got %v, want %v", got, want)
	}
	sys := tt.ChatIDs([]openai.Message{{Role: "system", Content: "Be brief."}, user})
	if joined := tok.EncodeSpecial("[INST] Be brief.\n\nWhat is your favourite condiment? [/INST]", true); !slices.Equal(sys, joined) {
		t.Errorf("system message: got %v, want it joined to the user message %v", sys, joined)
	}
	turns := tt.ChatIDs([]openai.Message{user, {Role: "assistant", Content: "Mustard."}, user})
	if n := slices.Index(turns[1:], 2); n < 0 || !slices.Equal(turns[n+2:], want[1:]) {
		t.Errorf("assistant turn: got %v, want </s> after it and the next [INST] turn", turns)
	}
}
