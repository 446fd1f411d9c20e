package tokenizer

import (
	"fmt"
)

// o200k_harmony ids (openai/gpt-oss-120b tokenizer.json, tiktoken's
// o200k_harmony: 199,998 BPE tokens, then the Harmony format's special
// tokens).
const (
	HarmonyStartOfText = 199998 // <|startoftext|>
	HarmonyEndOfText   = 199999 // <|endoftext|>
	HarmonyReturn      = 200002 // <|return|>: the final answer is done
	HarmonyConstrain   = 200003 // <|constrain|>
	HarmonyChannel     = 200005 // <|channel|>
	HarmonyStart       = 200006 // <|start|>: a message's header begins
	HarmonyEnd         = 200007 // <|end|>: a message ends
	HarmonyMessage     = 200008 // <|message|>: the header ends, the content begins
	HarmonyCall        = 200012 // <|call|>: a tool call is done
	HarmonyEndOfPrompt = 200018 // <|endofprompt|>
	// O200kVocabSize is the tokenizer's number of ids; gpt-oss's
	// embedding has 201,088 rows.
	O200kVocabSize = 200019
)

// O200k is the o200k_harmony byte-level BPE tokenizer of gpt-oss as
// Hugging Face tokenizers runs its tokenizer.json (equal to tiktoken's
// o200k_harmony): special tokens' texts become their ids, the rest is
// split by O200kPattern, each piece taken whole when it is a vocabulary
// token (ignore_merges) and merged by rank otherwise. No BOS is added.
// It is immutable after loading and safe for concurrent use.
type O200k struct{ byteBPE }

// o200kSpec is gpt-oss's tokenizer.json: one split by O200kPattern, no
// BOS added, no clean-up.
var o200kSpec = bpeSpec{name: "o200k_harmony", patterns: []string{O200kPattern}, matchers: []matcher{o200kPiece}}

// LoadO200kHarmony reads gpt-oss's tokenizer (path is tokenizer.json or
// its folder: the gptoss folder that make setup fills, or a gpt-oss model
// folder) and checks its size and the Harmony format's special ids.
func LoadO200kHarmony(path string) (*O200k, error) {
	b, err := loadHF(path, o200kSpec, "run make setup, or point to a folder with the tokenizer.json of gpt-oss")
	if err != nil {
		return nil, err
	}
	t := &O200k{*b}
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return t, nil
}

func (t *O200k) check() error {
	if n := t.VocabSize(); n != O200kVocabSize {
		return fmt.Errorf("%w: tokenizer.json has %d ids, o200k_harmony's %d", ErrBadData, n, O200kVocabSize)
	}
	for _, s := range []struct {
		text string
		id   int32
	}{{"<|endoftext|>", HarmonyEndOfText}, {"<|return|>", HarmonyReturn}, {"<|constrain|>", HarmonyConstrain},
		{"<|channel|>", HarmonyChannel}, {"<|start|>", HarmonyStart}, {"<|end|>", HarmonyEnd},
		{"<|message|>", HarmonyMessage}, {"<|call|>", HarmonyCall}} {
		if id, ok := t.SpecialID(s.text); !ok || id != s.id || !t.IsSpecial(id) {
			return fmt.Errorf("%w: tokenizer.json: %s is not the special id %d", ErrBadData, s.text, s.id)
		}
	}
	return nil
}

// compile-time check that the tokenizer fits CheckModelVocab.
var _ Vocab = (*O200k)(nil)
