package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// Llama 3 / 3.1 special ids (Meta's tokenizer: 128,000 BPE tokens, then
// 256 special ones).
const (
	Llama3BOSID = 128000 // <|begin_of_text|>
	Llama3EOTID = 128009 // <|eot_id|>: the Instruct models' end of turn
	// Llama3VocabSize is the number of ids, the embedding rows of every
	// Llama 3 and 3.1 model.
	Llama3VocabSize = 128256
)

// Llama3Pattern is the pre-tokenizer regex of Llama 3 (tiktoken's
// cl100k-like pattern with 1-3 digit numbers), as tokenizer.json carries
// it. Llama3 implements exactly this pattern; a tokenizer.json with
// another is refused.
const Llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Llama3 is the byte-level BPE tokenizer of Llama 3 and 3.1 as Hugging
// Face tokenizers runs its tokenizer.json: special-token strings in the
// text become their ids, the rest is split by Llama3Pattern, each piece's
// UTF-8 bytes mapped to GPT-2's byte characters and, unless the whole
// piece is a vocabulary token (ignore_merges), merged by rank. It is
// immutable after loading and safe for concurrent use.
type Llama3 struct {
	vocab        map[string]int32 // byte-level token string → id
	bytesOf      [][]byte         // id → decoded bytes (special: content)
	special      map[string]int32 // special content → id
	isSpecial    []bool
	specialLens  []int // distinct special content lengths, longest first
	byteID       [256]int32
	runeOf       [256]rune
	merges       merges
	ignoreMerges bool
	bos          int32
	cleanUp      bool
}

// hfTokenizer is the part of a tokenizer.json that Llama3 reads.
type hfTokenizer struct {
	AddedTokens []struct {
		ID      int32  `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	PreTokenizer *struct {
		Type          string `json:"type"`
		PreTokenizers []struct {
			Type    string `json:"type"`
			Pattern *struct {
				Regex string `json:"Regex"`
			} `json:"pattern"`
			Behavior string `json:"behavior"`
			UseRegex *bool  `json:"use_regex"`
		} `json:"pretokenizers"`
	} `json:"pre_tokenizer"`
	Decoder *struct {
		Type string `json:"type"`
	} `json:"decoder"`
	Model struct {
		Type         string            `json:"type"`
		Vocab        map[string]int32  `json:"vocab"`
		Merges       []json.RawMessage `json:"merges"`
		IgnoreMerges bool              `json:"ignore_merges"`
		ByteFallback bool              `json:"byte_fallback"`
	} `json:"model"`
}

// LoadLlama3 reads tokenizer.json (path is the file or its folder: the
// llama3 folder that make setup fills, or a Llama-3.1 model folder) and,
// when it lies beside it, tokenizer_config.json for
// clean_up_tokenization_spaces (true, Meta's value, when absent).
func LoadLlama3(path string) (*Llama3, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w (run make setup, or point to a folder with the tokenizer.json of Llama 3.1)", err)
	}
	defer f.Close()
	t, err := NewLlama3(f)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	cfgPath := filepath.Join(filepath.Dir(path), "tokenizer_config.json")
	if b, err := os.ReadFile(cfgPath); err == nil {
		var cfg struct {
			CleanUp *bool `json:"clean_up_tokenization_spaces"`
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBadData, cfgPath, err)
		}
		if cfg.CleanUp != nil {
			t.cleanUp = *cfg.CleanUp
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return t, nil
}

// NewLlama3 builds the tokenizer from a tokenizer.json: a byte-level BPE
// model split by Llama3Pattern.
func NewLlama3(r io.Reader) (*Llama3, error) {
	var h hfTokenizer
	if err := json.NewDecoder(r).Decode(&h); err != nil {
		return nil, fmt.Errorf("%w: tokenizer.json: %v", ErrBadData, err)
	}
	if h.Model.Type != "BPE" || h.Model.ByteFallback {
		return nil, fmt.Errorf("%w: tokenizer.json: model %q (byte_fallback %v), want Llama 3's byte-level BPE", ErrBadData, h.Model.Type, h.Model.ByteFallback)
	}
	if err := checkLlama3PreTokenizer(&h); err != nil {
		return nil, err
	}
	if h.Decoder == nil || h.Decoder.Type != "ByteLevel" {
		return nil, fmt.Errorf("%w: tokenizer.json: decoder is not ByteLevel", ErrBadData)
	}
	n := len(h.Model.Vocab)
	for _, a := range h.AddedTokens {
		n = max(n, int(a.ID)+1)
	}
	if n > 1<<24 {
		return nil, fmt.Errorf("%w: tokenizer.json: %d ids", ErrBadData, n)
	}
	t := &Llama3{vocab: h.Model.Vocab, bytesOf: make([][]byte, n), special: map[string]int32{}, isSpecial: make([]bool, n),
		merges: merges{}, ignoreMerges: h.Model.IgnoreMerges, bos: -1, cleanUp: true}
	tab := byteToRune()
	t.runeOf = tab
	var inv [0x200]int
	for i := range inv {
		inv[i] = -1
	}
	for b, r := range tab {
		inv[r] = b
	}
	for s, id := range h.Model.Vocab {
		if id < 0 || int(id) >= n {
			return nil, fmt.Errorf("%w: tokenizer.json: vocabulary id %d out of range", ErrBadData, id)
		}
		bs := make([]byte, 0, len(s))
		for _, r := range s {
			if r >= 0x200 || inv[r] < 0 {
				return nil, fmt.Errorf("%w: tokenizer.json: token %q is not byte-level", ErrBadData, s)
			}
			bs = append(bs, byte(inv[r]))
		}
		t.bytesOf[id] = bs
	}
	for b, r := range tab {
		id, ok := h.Model.Vocab[string(r)]
		if !ok {
			return nil, fmt.Errorf("%w: tokenizer.json lacks the byte token %q (byte %d)", ErrBadData, string(r), b)
		}
		t.byteID[b] = id
	}
	lens := map[int]bool{}
	for _, a := range h.AddedTokens {
		if a.ID < 0 || a.Content == "" {
			return nil, fmt.Errorf("%w: tokenizer.json: added token %d %q", ErrBadData, a.ID, a.Content)
		}
		if _, inVocab := h.Model.Vocab[a.Content]; inVocab && !a.Special {
			continue
		}
		t.special[a.Content] = a.ID
		t.isSpecial[a.ID] = true
		t.bytesOf[a.ID] = []byte(a.Content)
		lens[len(a.Content)] = true
		if a.Content == "<|begin_of_text|>" {
			t.bos = a.ID
		}
	}
	for l := range lens {
		t.specialLens = append(t.specialLens, l)
	}
	slices.Sort(t.specialLens)
	slices.Reverse(t.specialLens)
	for rank, raw := range h.Model.Merges {
		a, b, err := mergePair(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: tokenizer.json: merge %d: %v", ErrBadData, rank, err)
		}
		ia, okA := t.vocab[a]
		ib, okB := t.vocab[b]
		m, okM := t.vocab[a+b]
		if !okA || !okB || !okM {
			return nil, fmt.Errorf("%w: tokenizer.json: merge %d (%q %q) names a token missing from the vocabulary", ErrBadData, rank, a, b)
		}
		k := pairKey(ia, ib)
		if _, dup := t.merges[k]; !dup {
			t.merges[k] = merge{rank: int32(rank), id: m}
		}
	}
	if len(t.merges) == 0 {
		return nil, fmt.Errorf("%w: tokenizer.json has no merges", ErrBadData)
	}
	for id := range t.bytesOf {
		if t.bytesOf[id] == nil && !t.isSpecial[id] {
			return nil, fmt.Errorf("%w: tokenizer.json: id %d is neither a token nor an added token", ErrBadData, id)
		}
	}
	return t, nil
}

// mergePair reads one merge: "a b" (tokenizers < 0.20) or ["a", "b"].
func mergePair(raw json.RawMessage) (string, string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		a, b, ok := strings.Cut(s, " ")
		if !ok || a == "" || b == "" || strings.Contains(b, " ") {
			return "", "", fmt.Errorf("%q is not two symbols", s)
		}
		return a, b, nil
	}
	var p []string
	if err := json.Unmarshal(raw, &p); err != nil || len(p) != 2 || p[0] == "" || p[1] == "" {
		return "", "", fmt.Errorf("%s is not a pair of symbols", raw)
	}
	return p[0], p[1], nil
}

// checkLlama3PreTokenizer accepts only Llama 3's pre-tokenizer: Split by
// Llama3Pattern (isolated), then ByteLevel without its own regex.
func checkLlama3PreTokenizer(h *hfTokenizer) error {
	p := h.PreTokenizer
	if p == nil || p.Type != "Sequence" || len(p.PreTokenizers) != 2 {
		return fmt.Errorf("%w: tokenizer.json: pre_tokenizer is not Llama 3's (Split, ByteLevel)", ErrBadData)
	}
	sp, bl := p.PreTokenizers[0], p.PreTokenizers[1]
	if sp.Type != "Split" || sp.Pattern == nil || sp.Pattern.Regex != Llama3Pattern || sp.Behavior != "Isolated" {
		return fmt.Errorf("%w: tokenizer.json: the Split pre-tokenizer is not Llama 3's pattern", ErrBadData)
	}
	if bl.Type != "ByteLevel" || bl.UseRegex == nil || *bl.UseRegex {
		return fmt.Errorf("%w: tokenizer.json: the ByteLevel pre-tokenizer is not Llama 3's (use_regex false)", ErrBadData)
	}
	return nil
}

// VocabSize returns the number of ids (128256 for Llama 3.1).
func (t *Llama3) VocabSize() int { return len(t.bytesOf) }

// BOS returns the <|begin_of_text|> id (128000), -1 if the file has none.
func (t *Llama3) BOS() int32 { return t.bos }

// CleanUpSpaces is tokenizer_config.json's clean_up_tokenization_spaces
// (true for Meta's Llama 3.1 files): transformers' decode then applies
// CleanUpTokenization.
func (t *Llama3) CleanUpSpaces() bool { return t.cleanUp }

// IsSpecial reports whether id is an added special token.
func (t *Llama3) IsSpecial(id int32) bool {
	return id >= 0 && int(id) < len(t.isSpecial) && t.isSpecial[id]
}

// SpecialID returns the id of a special token's text ("<|eot_id|>").
func (t *Llama3) SpecialID(content string) (int32, bool) {
	id, ok := t.special[content]
	return id, ok
}

// Token returns the byte-level vocabulary string of id (a special token's
// text), "" outside the vocabulary.
func (t *Llama3) Token(id int32) string {
	if id < 0 || int(id) >= len(t.bytesOf) {
		return ""
	}
	if t.isSpecial[id] {
		return string(t.bytesOf[id])
	}
	var sb strings.Builder
	for _, c := range t.bytesOf[id] {
		sb.WriteRune(t.runeOf[c])
	}
	return sb.String()
}

// Merges returns the merges in rank order as pairs of token strings, as
// tokenizer.json lists them.
func (t *Llama3) Merges() [][2]string {
	out := make([][2]string, len(t.merges))
	for k, m := range t.merges {
		out[m.rank] = [2]string{t.Token(int32(k >> 32)), t.Token(int32(uint32(k)))}
	}
	return slices.DeleteFunc(out, func(p [2]string) bool { return p[0] == "" })
}

// Encode returns the ids of text as tokenizer(text).input_ids does, with
// <|begin_of_text|> first when bos is set: special-token strings in the
// text become their ids.
func (t *Llama3) Encode(text string, bos bool) []int32 {
	var out []int32
	if bos && t.bos >= 0 {
		out = append(out, t.bos)
	}
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '<' {
			continue
		}
		for _, l := range t.specialLens {
			if i+l <= len(text) {
				if id, ok := t.special[text[i:i+l]]; ok {
					out = t.encodeOrdinary(out, text[start:i])
					out = append(out, id)
					start = i + l
					i = start - 1
					break
				}
			}
		}
	}
	return t.encodeOrdinary(out, text[start:])
}

// EncodeOrdinary returns the ids of text with special-token strings read
// as plain text (no BOS).
func (t *Llama3) EncodeOrdinary(text string) []int32 { return t.encodeOrdinary(nil, text) }

func (t *Llama3) encodeOrdinary(out []int32, text string) []int32 {
	var buf []int32
	var word []byte
	for len(text) > 0 {
		n := llama3Piece(text)
		piece := text[:n]
		text = text[n:]
		if t.ignoreMerges {
			word = word[:0]
			for i := 0; i < len(piece); i++ {
				word = utf8.AppendRune(word, t.runeOf[piece[i]])
			}
			if id, ok := t.vocab[string(word)]; ok {
				out = append(out, id)
				continue
			}
		}
		buf = buf[:0]
		for i := 0; i < len(piece); i++ {
			buf = append(buf, t.byteID[piece[i]])
		}
		out = append(out, t.merges.apply(buf)...)
	}
	return out
}

// Decode returns the text of ids as PreTrainedTokenizerFast.decode does:
// the tokens' bytes joined (a special token as its text, or nothing with
// SkipSpecial) and decoded as UTF-8 with U+FFFD for invalid sequences,
// then CleanUpTokenization when opt.CleanUpSpaces. Ids outside the
// vocabulary decode to nothing.
func (t *Llama3) Decode(ids []int32, opt DecodeOptions) string {
	var b []byte
	for _, id := range ids {
		if id < 0 || int(id) >= len(t.bytesOf) || (opt.SkipSpecial && t.isSpecial[id]) {
			continue
		}
		b = append(b, t.bytesOf[id]...)
	}
	s := DecodeUTF8Replace(b)
	if opt.CleanUpSpaces {
		s = CleanUpTokenization(s)
	}
	return s
}

// AppendTokenBytes appends the bytes id stands for to dst (a special
// token's text unless skipSpecial); nothing for an id outside the
// vocabulary. A server streaming text joins them until they make whole
// UTF-8 characters.
func (t *Llama3) AppendTokenBytes(dst []byte, id int32, skipSpecial bool) []byte {
	if id < 0 || int(id) >= len(t.bytesOf) || (skipSpecial && t.isSpecial[id]) {
		return dst
	}
	return append(dst, t.bytesOf[id]...)
}

// isCRLF reports \r or \n.
func isCRLF(r rune) bool { return r == '\r' || r == '\n' }

// llama3Piece returns the byte length of the first piece of text under
// Llama3Pattern, matched as Oniguruma (Hugging Face tokenizers) matches
// it: the first alternative that matches at this position wins, + and *
// are greedy with backtracking. \s is Unicode White_Space, \p{L} and \p{N}
// Go's letter and number categories; (?i) folds 's' to 'S' and 'ſ'.
// Invalid UTF-8 bytes count as one character that is neither letter,
// number nor space.
func llama3Piece(text string) int {
	next := func(i int) (rune, int) {
		if i >= len(text) {
			return -1, 0
		}
		return utf8.DecodeRuneInString(text[i:])
	}
	run := func(i int, f func(rune) bool, most int) int {
		for n := 0; i < len(text) && (most <= 0 || n < most); n++ {
			r, w := next(i)
			if !f(r) {
				break
			}
			i += w
		}
		return i
	}
	other := func(r rune) bool { return r >= 0 && !isSpace(r) && !isLetter(r) && !isNumber(r) }
	r0, w0 := next(0)
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r0 == '\'' {
		r1, w1 := next(1)
		switch r1 {
		case 's', 'S', 'ſ', 't', 'T', 'm', 'M', 'd', 'D':
			return 1 + w1
		}
		r2, w2 := next(1 + w1)
		fold := func(r rune) rune {
			if r >= 'A' && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}
		switch string([]rune{fold(r1), fold(r2)}) {
		case "re", "ve", "ll":
			return 1 + w1 + w2
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if !isCRLF(r0) && !isNumber(r0) {
		if isLetter(r0) {
			return run(0, isLetter, 0)
		}
		if r1, _ := next(w0); r1 >= 0 && isLetter(r1) {
			return run(w0, isLetter, 0)
		}
	}
	// \p{N}{1,3}
	if isNumber(r0) {
		return run(0, isNumber, 3)
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	s := 0
	if r0 == ' ' {
		if r1, _ := next(1); other(r1) {
			s = 1
		}
	}
	if r, _ := next(s); other(r) {
		return run(run(s, other, 0), isCRLF, 0)
	}
	// whitespace: \s*[\r\n]+ (to the last CR/LF of the run), \s+(?!\S), \s+
	end := run(0, isSpace, 0)
	lastNL := -1
	for i := 0; i < end; {
		r, w := next(i)
		if isCRLF(r) {
			lastNL = i + w
		}
		i += w
	}
	if lastNL > 0 {
		return lastNL
	}
	if end == len(text) {
		return end
	}
	_, w := utf8.DecodeLastRuneInString(text[:end])
	if end-w > 0 {
		return end - w
	}
	if end > 0 {
		return end
	}
	return max(w0, 1) // unreachable: every character is in some class
}

// compile-time check that both LLM tokenizers fit CheckModelVocab.
var _ Vocab = (*Llama3)(nil)
