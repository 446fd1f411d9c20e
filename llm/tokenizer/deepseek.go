package tokenizer

import (
	"fmt"
	"strings"
)

// DeepSeek-R1 ids (deepseek-ai/DeepSeek-R1 tokenizer.json: DeepSeek-V3's
// 128,000 BPE tokens, 818 added ones).
const (
	DeepSeekBOSID       = 0      // <｜begin▁of▁sentence｜>
	DeepSeekEOSID       = 1      // <｜end▁of▁sentence｜>: generation ends here
	DeepSeekUserID      = 128803 // <｜User｜>
	DeepSeekAssistantID = 128804 // <｜Assistant｜>
	DeepSeekThinkID     = 128798 // <think> (R1; a place holder in V3)
	DeepSeekEndThinkID  = 128799 // </think> (R1; a place holder in V3)
	// DeepSeekVocabSize is the tokenizer's number of ids; the model's
	// embedding has 129,280 rows.
	DeepSeekVocabSize = 128815
)

// DeepSeek's added-token texts.
const (
	DeepSeekBOS       = "<｜begin▁of▁sentence｜>"
	DeepSeekEOS       = "<｜end▁of▁sentence｜>"
	DeepSeekUser      = "<｜User｜>"
	DeepSeekAssistant = "<｜Assistant｜>"
	DeepSeekThink     = "<think>"
	DeepSeekEndThink  = "</think>"
)

// DeepSeek is the byte-level BPE tokenizer of DeepSeek-V3 and DeepSeek-R1
// as Hugging Face tokenizers runs its tokenizer.json: added tokens' texts
// become their ids, the rest is split three times (numbers of up to three
// digits, runs of CJK ideographs and kana, then DeepSeekPattern), each
// piece merged by rank. LoadDeepSeekR1 reads it as DeepSeek-R1's, whose
// file differs from V3's only in two added tokens. Encode with bos set
// adds <｜begin▁of▁sentence｜> first, as LlamaTokenizerFast does
// (add_bos_token). It is immutable after loading and safe for concurrent
// use.
type DeepSeek struct{ byteBPE }

// deepSeekR1Spec is DeepSeek-R1's tokenizer.json: DeepSeek-V3's three
// splits, BOS, no clean-up (tokenizer_config.json), and <think> and
// </think> over V3's place holders 798 and 799.
var deepSeekR1Spec = bpeSpec{name: "DeepSeek-V3", patterns: []string{DeepSeekDigitsPattern, DeepSeekCJKPattern, DeepSeekPattern},
	matchers: []matcher{deepSeekDigits, deepSeekCJK, deepSeekMain}, bos: DeepSeekBOS, fix: r1ThinkTokens}

// r1ThinkTokens makes a DeepSeek-V3 tokenizer.json DeepSeek-R1's: R1's
// file (deepseek-ai/DeepSeek-R1) names ids 128798 and 128799 <think> and
// </think>, added tokens that are not special (so decoding keeps them),
// where V3's has the place holders <｜place▁holder▁no▁798｜> and
// <｜place▁holder▁no▁799｜>. A file with anything else there is refused.
func r1ThinkTokens(h *hfTokenizer) error {
	for i := range h.AddedTokens {
		a := &h.AddedTokens[i]
		var want string
		switch a.ID {
		case DeepSeekThinkID:
			want = DeepSeekThink
		case DeepSeekEndThinkID:
			want = DeepSeekEndThink
		default:
			continue
		}
		if a.Content == want {
			continue
		}
		if a.Content != fmt.Sprintf("<｜place▁holder▁no▁%d｜>", a.ID-128000) {
			return fmt.Errorf("%w: tokenizer.json: added token %d is %q, neither DeepSeek-R1's %s nor DeepSeek-V3's place holder", ErrBadData, a.ID, a.Content, want)
		}
		a.Content, a.Special = want, false
	}
	return nil
}

// LoadDeepSeekR1 reads DeepSeek-R1's tokenizer (path is tokenizer.json or
// its folder: the deepseek folder that make setup fills with DeepSeek-V3's
// files, or a DeepSeek-R1 model folder) and checks its size and special
// ids.
func LoadDeepSeekR1(path string) (*DeepSeek, error) {
	b, err := loadHF(path, deepSeekR1Spec, "run make setup, or point to a folder with the tokenizer.json of DeepSeek-R1 or DeepSeek-V3")
	if err != nil {
		return nil, err
	}
	t := &DeepSeek{*b}
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return t, nil
}

func (t *DeepSeek) check() error {
	if n := t.VocabSize(); n != DeepSeekVocabSize {
		return fmt.Errorf("%w: tokenizer.json has %d ids, DeepSeek-R1's %d", ErrBadData, n, DeepSeekVocabSize)
	}
	for _, s := range []struct {
		text string
		id   int32
	}{{DeepSeekBOS, DeepSeekBOSID}, {DeepSeekEOS, DeepSeekEOSID}, {DeepSeekUser, DeepSeekUserID},
		{DeepSeekAssistant, DeepSeekAssistantID}, {DeepSeekThink, DeepSeekThinkID}, {DeepSeekEndThink, DeepSeekEndThinkID}} {
		if id, ok := t.SpecialID(s.text); !ok || id != s.id {
			return fmt.Errorf("%w: tokenizer.json: %s is not id %d", ErrBadData, strings.TrimSpace(s.text), s.id)
		}
	}
	return nil
}

// compile-time check that the tokenizer fits CheckModelVocab.
var _ Vocab = (*DeepSeek)(nil)
