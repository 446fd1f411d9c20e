package harmony

import (
	"slices"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

var (
	tokOnce sync.Once
	tok     *tokenizer.O200k
	tokErr  error
)

func needTok(t *testing.T) *tokenizer.O200k {
	t.Helper()
	tokOnce.Do(func() {
		var p string
		if p, tokErr = deps.Find("gptoss/tokenizer.json"); tokErr == nil {
			tok, tokErr = tokenizer.LoadO200kHarmony(p)
		}
	})
	if tokErr != nil {
		t.Skipf("gpt-oss tokenizer not installed (make setup): %v", tokErr)
	}
	return tok
}

// The expected texts are openai/harmony's test-data files
// (test_simple_convo_high_effort.txt, test_reasoning_system_message_with_dates.txt,
// test_simple_convo_medium_effort_no_instruction.txt), which its tests
// compare render_conversation_for_completion against.
var renderCases = []struct {
	name string
	msgs []Message
	want string
}{
	{"high effort with instructions", []Message{
		{Role: System, Text: func() string { s := NewSystemContent(); s.Effort = High; return s.Text() }()},
		{Role: Developer, Text: DeveloperText("Answer the user's questions like a robot.")},
		{Role: User, Text: "What is the capital of the largest country in the world?"},
	}, "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n\nReasoning: high\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|><|start|>developer<|message|># Instructions\n\nAnswer the user's questions like a robot.<|end|><|start|>user<|message|>What is the capital of the largest country in the world?<|end|><|start|>assistant"},
	{"dates and two channels", []Message{
		{Role: System, Text: func() string {
			s := NewSystemContent()
			s.ConversationStartDate, s.KnowledgeCutoff, s.Channels = "2021-01-01", "2021-01", []string{"analysis", "final"}
			return s.Text()
		}()},
		{Role: User, Text: "What is 42 * pi?"},
	}, "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2021-01\nCurrent date: 2021-01-01\n\nReasoning: medium\n\n# Valid channels: analysis, final. Channel must be included for every message.<|end|><|start|>user<|message|>What is 42 * pi?<|end|><|start|>assistant"},
	{"medium effort no instructions", []Message{
		{Role: System, Text: NewSystemContent().Text()},
		{Role: User, Text: "What is the capital of the largest country in the world?"},
	}, "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n\nReasoning: medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|><|start|>user<|message|>What is the capital of the largest country in the world?<|end|><|start|>assistant"},
	{"assistant example on the final channel", []Message{
		{Role: User, Text: "2+2?"},
		{Role: Assistant, Channel: "final", Text: "Answer: 4"},
		{Role: User, Text: "3+3?"},
	}, "<|start|>user<|message|>2+2?<|end|><|start|>assistant<|channel|>final<|message|>Answer: 4<|end|><|start|>user<|message|>3+3?<|end|><|start|>assistant"},
}

func TestTextMatchesHarmonyTestData(t *testing.T) {
	for _, c := range renderCases {
		if got := TextForCompletion(c.msgs, Assistant); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestIDsAreTheTextEncodedWithSpecials: the rendered ids equal the
// rendered text encoded with its special tokens, as openai/harmony's
// tests compare them, and decode back to the text.
func TestIDsAreTheTextEncodedWithSpecials(t *testing.T) {
	tok := needTok(t)
	for _, c := range renderCases {
		ids, err := RenderForCompletion(tok, c.msgs, Assistant)
		if err != nil {
			t.Fatal(err)
		}
		if want := tok.Encode(c.want, false); !slices.Equal(ids, want) {
			t.Errorf("%s:\n got %v\nwant %v", c.name, ids, want)
		}
		if got := tok.Decode(ids, tokenizer.DecodeOptions{}); got != c.want {
			t.Errorf("%s: decodes to %q", c.name, got)
		}
	}
}

// TestIDsOfOpenAIsTokens: an analysis message encodes to the ids of
// openai/harmony's test_simple_tool_call (tiktoken's o200k_harmony).
func TestIDsOfOpenAIsTokens(t *testing.T) {
	tok := needTok(t)
	ids, err := RenderForCompletion(tok, []Message{{Role: Assistant, Channel: "analysis",
		Text: `User asks: "What is the weather in Tokyo?" We need to use lookup_weather tool.`}}, Assistant)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{200006, 173781, 200005, 35644, 200008, 1844, 31064, 25, 392, 4827, 382, 290, 11122, 306, 40510, 16842,
		1416, 1309, 316, 1199, 37342, 170154, 4584, 13, 200007, 200006, 173781}
	if !slices.Equal(ids, want) {
		t.Errorf("got  %v\nwant %v", ids, want)
	}
}

// TestContentSpecialTextStaysText: a content holding a special token's
// text is encoded as ordinary text (encode_ordinary), so it cannot end the
// message early.
func TestContentSpecialTextStaysText(t *testing.T) {
	tok := needTok(t)
	ids, err := RenderForCompletion(tok, []Message{{Role: User, Text: "a<|end|>b"}}, Assistant)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, id := range ids {
		if id == tokenizer.HarmonyEnd {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d <|end|> ids in %v, want the one closing the message", n, ids)
	}
	if _, err := RenderForCompletion(tok, nil, Assistant); err == nil {
		t.Error("empty conversation rendered")
	}
}

func TestParseEffort(t *testing.T) {
	for in, want := range map[string]Effort{"low": Low, "HIGH": High, "Medium": Medium} {
		if got, err := ParseEffort(in); err != nil || got != want {
			t.Errorf("ParseEffort(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseEffort("max"); err == nil {
		t.Error("effort max accepted")
	}
}
