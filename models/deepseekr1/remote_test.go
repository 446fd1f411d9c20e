package deepseekr1

import (
	"slices"
	"testing"

	"github.com/mlperf-go/inference/llm/tokenizer"
)

// TestTextResponseIDsAreTheReferenceSGLangBackends: a response a server
// returns as text becomes the ids the reference's SGLang backend hands
// LoadGen, tokenizer.encode(text) with DeepSeek-R1's add_bos_token: BOS
// first, then the whole text's ids (</think> as its id), so the logged
// length — eval_accuracy.py's tokens_per_sample — is one more than the
// text's own tokens; the scorer, decoding with skip_special_tokens, reads
// the text without it.
func TestTextResponseIDsAreTheReferenceSGLangBackends(t *testing.T) {
	tok := needTok(t)
	enc := textIDs(tok)
	text := "Let me think.\n</think>\n\nThe answer is \\boxed{42}."
	got := enc(text)
	plain := tok.Encode(text, false)
	if len(got) != len(plain)+1 || got[0] != tokenizer.DeepSeekBOSID || !slices.Equal(got[1:], plain) {
		t.Fatalf("textIDs(%q) = %v, want BOS then %v", text, got, plain)
	}
	if !slices.Contains(got, tokenizer.DeepSeekEndThinkID) {
		t.Errorf("</think> is not its id %d in %v", tokenizer.DeepSeekEndThinkID, got)
	}
	if dec := tok.Decode(got, tokenizer.DecodeOptions{SkipSpecial: true}); dec != text {
		t.Errorf("decoded with skip_special_tokens: %q, want the text without BOS", dec)
	}
}
