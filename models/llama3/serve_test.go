package llama3

import (
	"slices"
	"testing"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/remote/openai"
)

// ChatIDs is the Llama 3 chat template: the ids below are those of
// Meta's format (<|begin_of_text|>, <|start_header_id|> role
// <|end_header_id|> "\n\n" content <|eot_id|>, the assistant's header),
// with the public Llama 3 vocabulary's ids of "user" (882), "system"
// (9125), "assistant" (78191), "\n\n" (271) and "Hi" (13347); the content
// is trimmed.
func TestChatIDsLlama3Template(t *testing.T) {
	tok, err := loadTokenizer(spec.DepsPath("llama3"))
	if err != nil {
		t.Skip(err)
	}
	tt := textTokenizer{tok}
	for _, c := range []struct {
		msgs []openai.Message
		want []int32
	}{
		{[]openai.Message{{Role: "user", Content: " Hi \n"}}, []int32{128000, 128006, 882, 128007, 271, 13347, 128009, 128006, 78191, 128007, 271}},
		{[]openai.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}},
			[]int32{128000, 128006, 9125, 128007, 271, 3513, 10015, 13, 128009, 128006, 882, 128007, 271, 13347, 128009, 128006, 78191, 128007, 271}},
	} {
		if got := tt.ChatIDs(c.msgs); !slices.Equal(got, c.want) {
			t.Errorf("%v: %v, want %v", c.msgs, got, c.want)
		}
	}
}
