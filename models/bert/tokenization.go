package bert

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer/model/wordpiece"
	"golang.org/x/text/unicode/norm"

	"github.com/mlperf-go/inference/datasets/squad/pytext"
)

// Special tokens of the uncased BERT vocabulary.
const (
	tokenPad  = "[PAD]"
	tokenUnk  = "[UNK]"
	tokenCLS  = "[CLS]"
	tokenSep  = "[SEP]"
	tokenMask = "[MASK]"
)

// vocabMD5 is the MD5 of the MLPerf vocab.txt (Zenodo record 3733868), equal
// to bert-base-uncased-vocab.txt shipped in github.com/sugarme/tokenizer
// v0.3.0 under pretrained/model/.
const vocabMD5 = "64800d5d8528ce344256daf115d4965e"

// VocabSize is the number of entries of the uncased vocabulary, and the
// vocab_size of the BERT-large model.
const VocabSize = 30522

// defaultMaxInputCharsPerWord is the word length (in code points) above which
// WordPiece emits [UNK] for the whole word: transformers' (2.4.0, pinned by
// the reference Dockerfile) and NVIDIA DeepLearningExamples' value.
const defaultMaxInputCharsPerWord = 100

// specialTokens are the tokens transformers' BertTokenizer never splits or
// lower-cases (its all_special_tokens).
var specialTokens = [...]string{tokenUnk, tokenSep, tokenPad, tokenCLS, tokenMask}

// errVocab is returned (wrapped) for a vocabulary file that cannot serve as
// the BERT vocabulary.
var errVocab = errors.New("bert: bad vocabulary")

// vocab maps WordPiece tokens to ids (the line number in vocab.txt, from 0).
// It is immutable after LoadVocab and safe for concurrent use.
type vocab struct {
	ids    map[string]int32
	tokens []string
}

// loadVocab reads a vocab.txt (one token per line) with the WordPiece model
// loader of github.com/sugarme/tokenizer. As in transformers' load_vocab,
// a token listed twice keeps its last line number. The file must contain the
// special tokens [PAD], [UNK], [CLS], [SEP] and [MASK].
func loadVocab(path string) (*vocab, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("bert: vocab: %w (run make setup, which copies it to .deps/bert/vocab.txt)", err)
	}
	wp, err := wordpiece.NewWordPieceFromFile(path, tokenUnk)
	if err != nil {
		return nil, fmt.Errorf("bert: vocab %s: %w", path, err)
	}
	v, err := newVocab(wp.GetVocab())
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return v, nil
}

// newVocab builds a Vocab from a token → id map (ids from 0). Ids that no
// token maps to read back as "".
func newVocab(m map[string]int) (*vocab, error) {
	if len(m) == 0 {
		return nil, fmt.Errorf("%w: empty", errVocab)
	}
	maxID := -1
	for _, id := range m {
		if id < 0 || id >= 1<<31-1 {
			return nil, fmt.Errorf("%w: id %d out of range", errVocab, id)
		}
		maxID = max(maxID, id)
	}
	v := &vocab{ids: make(map[string]int32, len(m)), tokens: make([]string, maxID+1)}
	for tok, id := range m {
		v.ids[tok] = int32(id)
		v.tokens[id] = tok
	}
	for _, s := range specialTokens {
		if _, ok := v.ids[s]; !ok {
			return nil, fmt.Errorf("%w: no %s token", errVocab, s)
		}
	}
	return v, nil
}

// Size is the number of ids (the highest id + 1), which must equal the
// model's vocab_size.
func (v *vocab) Size() int { return len(v.tokens) }

// ID returns the id of tok.
func (v *vocab) ID(tok string) (int32, bool) {
	id, ok := v.ids[tok]
	return id, ok
}

// Token returns the token of id, or "" when id is out of range.
func (v *vocab) Token(id int32) string {
	if id < 0 || int(id) >= len(v.tokens) {
		return ""
	}
	return v.tokens[id]
}

// wordPieceTokenizer is transformers.BertTokenizer(vocab_file) with its defaults, as
// the reference's squad_QSL.py builds it: special tokens split out of the
// text, then BERT's basic tokenization (clean text, spaces around CJK
// characters, Python whitespace split, Python lower-casing, NFD accent
// stripping, punctuation split), then greedy longest-match WordPiece with
// "##" continuations and [UNK] for words that cannot be covered or are
// longer than MaxInputCharsPerWord code points.
//
// A Tokenizer is immutable and safe for concurrent use.
type wordPieceTokenizer struct {
	vocab                *vocab
	maxInputCharsPerWord int
	unk, cls, sep        int32
}

// newTokenizer returns the reference tokenizer over v.
func newTokenizer(v *vocab) *wordPieceTokenizer {
	return &wordPieceTokenizer{
		vocab:                v,
		maxInputCharsPerWord: defaultMaxInputCharsPerWord,
		unk:                  v.ids[tokenUnk],
		cls:                  v.ids[tokenCLS],
		sep:                  v.ids[tokenSep],
	}
}

// Vocab returns the tokenizer's vocabulary.
func (t *wordPieceTokenizer) Vocab() *vocab { return t.vocab }

// Tokenize splits text into WordPiece tokens (tokenizer.tokenize(text)).
func (t *wordPieceTokenizer) Tokenize(text string) []string {
	toks, _ := t.Encode(text)
	return toks
}

// Encode returns the WordPiece tokens of text and their ids
// (convert_tokens_to_ids(tokenize(text))). The token strings are shared
// with the vocabulary and must not be modified.
func (t *wordPieceTokenizer) Encode(text string) ([]string, []int32) {
	var e encoder
	e.t = t
	e.encode(text)
	return e.toks, e.ids
}

// encoder holds the scratch buffers of one tokenization.
type encoder struct {
	t     *wordPieceTokenizer
	toks  []string
	ids   []int32
	words []string
	key   []byte
	offs  []int
}

func (e *encoder) reset() {
	e.toks = e.toks[:0]
	e.ids = e.ids[:0]
}

// encode appends the tokens of text to e.toks and e.ids.
func (e *encoder) encode(text string) {
	// transformers' PreTrainedTokenizer.tokenize: split around the special
	// tokens (exact case), keep them whole, tokenize the rest.
	for len(text) > 0 {
		i, tok := nextSpecial(text)
		if i < 0 {
			e.encodePlain(text)
			return
		}
		e.encodePlain(text[:i])
		e.toks = append(e.toks, tok)
		e.ids = append(e.ids, e.t.vocab.ids[tok])
		text = text[i+len(tok):]
	}
}

// nextSpecial finds the first occurrence of a special token in s.
func nextSpecial(s string) (int, string) {
	off := 0
	for {
		i := strings.IndexByte(s[off:], '[')
		if i < 0 {
			return -1, ""
		}
		off += i
		for _, tok := range specialTokens {
			if strings.HasPrefix(s[off:], tok) {
				return off, tok
			}
		}
		off++
	}
}

func (e *encoder) encodePlain(text string) {
	e.words = basicTokenize(text, e.words[:0])
	for _, w := range e.words {
		e.wordPiece(w)
	}
}

// wordPiece appends the WordPiece tokens of one basic token.
func (e *encoder) wordPiece(w string) {
	v := e.t.vocab
	// Fast path: the whole word is in the vocabulary.
	if id, ok := v.ids[w]; ok && utf8.RuneCountInString(w) <= e.t.maxInputCharsPerWord {
		e.toks = append(e.toks, v.tokens[id])
		e.ids = append(e.ids, id)
		return
	}
	e.offs = e.offs[:0]
	for i := range w {
		e.offs = append(e.offs, i)
	}
	n := len(e.offs)
	if n > e.t.maxInputCharsPerWord {
		e.toks = append(e.toks, tokenUnk)
		e.ids = append(e.ids, e.t.unk)
		return
	}
	e.offs = append(e.offs, len(w))
	mark := len(e.toks)
	for start := 0; start < n; {
		found := false
		for end := n; end > start; end-- {
			sub := w[e.offs[start]:e.offs[end]]
			var id int32
			var ok bool
			if start > 0 {
				e.key = append(append(e.key[:0], "##"...), sub...)
				id, ok = v.ids[string(e.key)]
			} else {
				id, ok = v.ids[sub]
			}
			if ok {
				e.toks = append(e.toks, v.tokens[id])
				e.ids = append(e.ids, id)
				start = end
				found = true
				break
			}
		}
		if !found {
			e.toks = append(e.toks[:mark], tokenUnk)
			e.ids = append(e.ids[:mark], e.t.unk)
			return
		}
	}
}

// basicTokenize appends to dst the tokens of BERT's BasicTokenizer with
// do_lower_case=True and the special tokens in never_split (as NVIDIA
// DeepLearningExamples' PyTorch tokenization.py, the one the reference's
// accuracy-squad.py imports, and transformers' BertTokenizer run it):
//
//   - remove U+0000, U+FFFD and control characters (category C*, except
//     tab, CR and LF), turn whitespace (space, tab, CR, LF, Zs) into spaces;
//   - put spaces around CJK ideographs;
//   - split on Python whitespace;
//   - lower-case each token with Python's str.lower and strip accents (NFD,
//     then drop Mn characters), unless the token is a special token;
//   - split each token before and after every punctuation character (ASCII
//     symbols and Unicode P*).
func basicTokenize(text string, dst []string) []string {
	text = cleanText(text)
	for _, tok := range pytext.Fields(text) {
		if isSpecial(tok) {
			dst = append(dst, tok)
			continue
		}
		tok = stripAccents(pytext.Lower(tok))
		dst = splitOnPunc(tok, dst)
	}
	return dst
}

func isSpecial(s string) bool {
	for _, t := range specialTokens {
		if s == t {
			return true
		}
	}
	return false
}

// cleanText is _clean_text followed by _tokenize_chinese_chars.
func cleanText(text string) string {
	clean := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf || c < 0x20 || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 8)
	for _, r := range text {
		switch {
		case r == 0 || r == utf8.RuneError || isControl(r):
		case isWhitespace(r):
			b.WriteByte(' ')
		case isChineseChar(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isWhitespace is tokenization._is_whitespace.
func isWhitespace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r':
		return true
	}
	return r >= 0x80 && unicode.Is(unicode.Zs, r)
}

// isControl is tokenization._is_control: any category C* (Cc, Cf, Cs, Co,
// Cn) except tab, LF and CR.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	if r < 0x20 || r == 0x7f {
		return true
	}
	if r < 0x80 {
		return false
	}
	if unicode.Is(unicode.C, r) {
		return true
	}
	// Cn: unassigned code points belong to no category table.
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isPunctuation is tokenization._is_punctuation.
func isPunctuation(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return r >= 0x80 && unicode.IsPunct(r)
}

// isChineseChar is BasicTokenizer._is_chinese_char.
func isChineseChar(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// stripAccents is _run_strip_accents: NFD, then drop nonspacing marks.
func stripAccents(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// splitOnPunc is _run_split_on_punc: every punctuation character becomes a
// token of its own. Empty input yields nothing.
func splitOnPunc(s string, dst []string) []string {
	start := 0
	for i, r := range s {
		if isPunctuation(r) {
			if start < i {
				dst = append(dst, s[start:i])
			}
			n := utf8.RuneLen(r)
			if n < 0 {
				n = 1
			}
			dst = append(dst, s[i:i+n])
			start = i + n
		}
	}
	if start < len(s) {
		dst = append(dst, s[start:])
	}
	return dst
}
