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

// byteBPE is a byte-level BPE tokenizer as Hugging Face tokenizers runs a
// tokenizer.json: the added tokens' strings in the text become their ids,
// the rest is split by the pre-tokenizer (a sequence of isolating regex
// splits, each one applied to the pieces of the one before), each piece's
// UTF-8 bytes mapped to GPT-2's byte characters and, unless the whole
// piece is a vocabulary token (ignore_merges), merged by rank. Llama3,
// DeepSeek and O200k are this core with their own pre-tokenizers. It is
// immutable after loading and safe for concurrent use.
type byteBPE struct {
	name         string           // for messages: "Llama 3", "DeepSeek-V3", ...
	vocab        map[string]int32 // byte-level token string → id
	bytesOf      [][]byte         // id → decoded bytes (an added token: its content)
	added        map[string]int32 // added-token content → id
	isAdded      []bool
	isSpecial    []bool // added tokens flagged special (skipped by SkipSpecial)
	addedLens    []int  // distinct added-token lengths, longest first
	addedFirst   [256]bool
	byteID       [256]int32
	runeOf       [256]rune
	merges       merges
	ignoreMerges bool
	split        []matcher // the pre-tokenizer's Split regexes, in order
	bos          int32
	cleanUp      bool
}

// matcher returns the byte length of a pre-tokenizer regex's match at the
// start of s, matched as Oniguruma (Hugging Face tokenizers) matches it,
// or 0 when the regex does not match there (none of the patterns here
// matches the empty string).
type matcher func(s string) int

// hfTokenizer is the part of a tokenizer.json that byteBPE reads.
type hfTokenizer struct {
	AddedTokens []struct {
		ID      int32  `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
		Lstrip  bool   `json:"lstrip"`
		Rstrip  bool   `json:"rstrip"`
		Single  bool   `json:"single_word"`
	} `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer *struct {
		Type          string `json:"type"`
		PreTokenizers []struct {
			Type    string `json:"type"`
			Pattern *struct {
				Regex string `json:"Regex"`
			} `json:"pattern"`
			Behavior string `json:"behavior"`
			Invert   bool   `json:"invert"`
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

// bpeSpec says which tokenizer.json a constructor accepts: its name for
// messages, the Split regexes of its pre-tokenizer in order (each with the
// matcher that implements it), the BOS token's content ("": none) and the
// clean_up_tokenization_spaces default when no tokenizer_config.json says.
type bpeSpec struct {
	name     string
	patterns []string
	matchers []matcher
	bos      string
	cleanUp  bool
	// fix, when set, adjusts the file's added tokens before the tokenizer
	// is built (DeepSeek-R1's <think> over DeepSeek-V3's place holders).
	fix func(h *hfTokenizer) error
}

// readHF decodes a tokenizer.json.
func readHF(r io.Reader) (*hfTokenizer, error) {
	var h hfTokenizer
	if err := json.NewDecoder(r).Decode(&h); err != nil {
		return nil, fmt.Errorf("%w: tokenizer.json: %v", ErrBadData, err)
	}
	return &h, nil
}

// loadHF opens tokenizer.json at path (the file or its folder), builds the
// tokenizer of spec and reads clean_up_tokenization_spaces from a
// tokenizer_config.json beside it. fix names what to install in errors.
func loadHF(path string, spec bpeSpec, fix string) (*byteBPE, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w (%s)", err, fix)
	}
	defer f.Close()
	h, err := readHF(f)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	t, err := newByteBPE(h, spec)
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

// newByteBPE builds the tokenizer of spec from a decoded tokenizer.json,
// refusing a file whose model, pre-tokenizer or decoder is not spec's.
func newByteBPE(h *hfTokenizer, spec bpeSpec) (*byteBPE, error) {
	if h.Model.Type != "BPE" || h.Model.ByteFallback {
		return nil, fmt.Errorf("%w: tokenizer.json: model %q (byte_fallback %v), want %s's byte-level BPE", ErrBadData, h.Model.Type, h.Model.ByteFallback, spec.name)
	}
	if n := strings.TrimSpace(string(h.Normalizer)); n != "" && n != "null" && !emptySequence(h.Normalizer) {
		return nil, fmt.Errorf("%w: tokenizer.json: a normalizer (%s), which %s's has not", ErrBadData, truncateJSON(h.Normalizer), spec.name)
	}
	if err := checkPreTokenizer(h, spec); err != nil {
		return nil, err
	}
	if h.Decoder == nil || h.Decoder.Type != "ByteLevel" {
		return nil, fmt.Errorf("%w: tokenizer.json: decoder is not ByteLevel", ErrBadData)
	}
	if spec.fix != nil {
		if err := spec.fix(h); err != nil {
			return nil, err
		}
	}
	n := len(h.Model.Vocab)
	for _, a := range h.AddedTokens {
		n = max(n, int(a.ID)+1)
	}
	if n > 1<<24 {
		return nil, fmt.Errorf("%w: tokenizer.json: %d ids", ErrBadData, n)
	}
	t := &byteBPE{name: spec.name, vocab: h.Model.Vocab, bytesOf: make([][]byte, n), added: map[string]int32{},
		isAdded: make([]bool, n), isSpecial: make([]bool, n), merges: merges{}, ignoreMerges: h.Model.IgnoreMerges,
		split: spec.matchers, bos: -1, cleanUp: spec.cleanUp}
	tab := byteToRune()
	t.runeOf = tab
	var inv [0x200]int
	for i := range inv {
		inv[i] = -1
	}
	for b, r := range tab {
		inv[r] = b
	}
	addedText := map[string]bool{}
	for _, a := range h.AddedTokens {
		addedText[a.Content] = true
	}
	for s, id := range h.Model.Vocab {
		if id < 0 || int(id) >= n {
			return nil, fmt.Errorf("%w: tokenizer.json: vocabulary id %d out of range", ErrBadData, id)
		}
		if addedText[s] {
			continue // DeepSeek's vocabulary lists its special tokens too
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
		if a.Lstrip || a.Rstrip || a.Single {
			return nil, fmt.Errorf("%w: tokenizer.json: added token %q strips spaces or matches single words, which %s's do not", ErrBadData, a.Content, spec.name)
		}
		if _, inVocab := h.Model.Vocab[a.Content]; inVocab && !a.Special {
			continue
		}
		t.added[a.Content] = a.ID
		t.isAdded[a.ID] = true
		t.isSpecial[a.ID] = a.Special
		t.bytesOf[a.ID] = []byte(a.Content)
		lens[len(a.Content)] = true
		t.addedFirst[a.Content[0]] = true
		if a.Content == spec.bos {
			t.bos = a.ID
		}
	}
	for l := range lens {
		t.addedLens = append(t.addedLens, l)
	}
	slices.Sort(t.addedLens)
	slices.Reverse(t.addedLens)
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
		if t.bytesOf[id] == nil && !t.isAdded[id] {
			return nil, fmt.Errorf("%w: tokenizer.json: id %d is neither a token nor an added token", ErrBadData, id)
		}
	}
	if spec.bos != "" && t.bos < 0 {
		return nil, fmt.Errorf("%w: tokenizer.json has no %s added token, which %s's has", ErrBadData, spec.bos, spec.name)
	}
	return t, nil
}

func emptySequence(raw json.RawMessage) bool {
	var n struct {
		Type        string            `json:"type"`
		Normalizers []json.RawMessage `json:"normalizers"`
	}
	return json.Unmarshal(raw, &n) == nil && n.Type == "Sequence" && len(n.Normalizers) == 0
}

func truncateJSON(raw json.RawMessage) string {
	if len(raw) > 80 {
		return string(raw[:80]) + "…"
	}
	return string(raw)
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

// checkPreTokenizer accepts only spec's pre-tokenizer: a Sequence of
// isolating Splits by spec's regexes in order, then ByteLevel without its
// own regex.
func checkPreTokenizer(h *hfTokenizer, spec bpeSpec) error {
	p := h.PreTokenizer
	bad := func(why string) error {
		return fmt.Errorf("%w: tokenizer.json: pre_tokenizer is not %s's (%d regex splits, then ByteLevel): %s", ErrBadData, spec.name, len(spec.patterns), why)
	}
	if p == nil || p.Type != "Sequence" || len(p.PreTokenizers) != len(spec.patterns)+1 {
		return bad("another shape")
	}
	for i, want := range spec.patterns {
		sp := p.PreTokenizers[i]
		if sp.Type != "Split" || sp.Pattern == nil || sp.Behavior != "Isolated" || sp.Invert {
			return bad(fmt.Sprintf("step %d is not an isolating regex split", i+1))
		}
		if sp.Pattern.Regex != want {
			return bad(fmt.Sprintf("split %d has another regex", i+1))
		}
	}
	bl := p.PreTokenizers[len(spec.patterns)]
	if bl.Type != "ByteLevel" || bl.UseRegex == nil || *bl.UseRegex {
		return bad("the last step is not ByteLevel with use_regex false")
	}
	return nil
}

// VocabSize returns the number of ids.
func (t *byteBPE) VocabSize() int { return len(t.bytesOf) }

// BOS returns the begin-of-text id, -1 if the tokenizer has none.
func (t *byteBPE) BOS() int32 { return t.bos }

// CleanUpSpaces is tokenizer_config.json's clean_up_tokenization_spaces:
// transformers' decode then applies CleanUpTokenization.
func (t *byteBPE) CleanUpSpaces() bool { return t.cleanUp }

// IsSpecial reports whether id is an added token flagged special (which
// decoding with SkipSpecial drops).
func (t *byteBPE) IsSpecial(id int32) bool {
	return id >= 0 && int(id) < len(t.isSpecial) && t.isSpecial[id]
}

// IsAdded reports whether id is an added token, special or not: its text
// in an input encodes to it whole.
func (t *byteBPE) IsAdded(id int32) bool {
	return id >= 0 && int(id) < len(t.isAdded) && t.isAdded[id]
}

// SpecialID returns the id of an added token's text ("<|eot_id|>",
// "<｜User｜>").
func (t *byteBPE) SpecialID(content string) (int32, bool) {
	id, ok := t.added[content]
	return id, ok
}

// Token returns the byte-level vocabulary string of id (an added token's
// text), "" outside the vocabulary.
func (t *byteBPE) Token(id int32) string {
	if id < 0 || int(id) >= len(t.bytesOf) {
		return ""
	}
	if t.isAdded[id] {
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
func (t *byteBPE) Merges() [][2]string {
	out := make([][2]string, len(t.merges))
	for k, m := range t.merges {
		out[m.rank] = [2]string{t.Token(int32(k >> 32)), t.Token(int32(uint32(k)))}
	}
	return slices.DeleteFunc(out, func(p [2]string) bool { return p[0] == "" })
}

// Encode returns the ids of text as tokenizer(text).input_ids does, with
// the BOS id first when bos is set (and the tokenizer has one): added
// tokens' strings in the text become their ids.
func (t *byteBPE) Encode(text string, bos bool) []int32 {
	var out []int32
	if bos && t.bos >= 0 {
		out = append(out, t.bos)
	}
	start := 0
	for i := 0; i < len(text); i++ {
		if !t.addedFirst[text[i]] {
			continue
		}
		for _, l := range t.addedLens {
			if i+l <= len(text) {
				if id, ok := t.added[text[i:i+l]]; ok {
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

// EncodeOrdinary returns the ids of text with added tokens' strings read
// as plain text (no BOS), as tiktoken's encode_ordinary does.
func (t *byteBPE) EncodeOrdinary(text string) []int32 { return t.encodeOrdinary(nil, text) }

func (t *byteBPE) encodeOrdinary(out []int32, text string) []int32 {
	if text == "" {
		return out
	}
	var buf []int32
	var word []byte
	piece := func(p string) {
		if t.ignoreMerges {
			word = word[:0]
			for i := 0; i < len(p); i++ {
				word = utf8.AppendRune(word, t.runeOf[p[i]])
			}
			if id, ok := t.vocab[string(word)]; ok {
				out = append(out, id)
				return
			}
		}
		buf = buf[:0]
		for i := 0; i < len(p); i++ {
			buf = append(buf, t.byteID[p[i]])
		}
		out = append(out, t.merges.apply(buf)...)
	}
	splitAll(text, t.split, piece)
	return out
}

// splitAll runs a sequence of isolating regex splits over text, as
// Hugging Face's Sequence of Split pre-tokenizers does: each match of
// ms[0] and each stretch between matches is a piece, split further by
// ms[1:]; the pieces of the last split go to emit in order.
func splitAll(text string, ms []matcher, emit func(string)) {
	if len(ms) == 0 {
		emit(text)
		return
	}
	m, rest := ms[0], ms[1:]
	pos := 0
	for i := 0; i < len(text); {
		if n := m(text[i:]); n > 0 {
			if i > pos {
				splitAll(text[pos:i], rest, emit)
			}
			splitAll(text[i:i+n], rest, emit)
			i += n
			pos = i
			continue
		}
		_, w := utf8.DecodeRuneInString(text[i:])
		i += w
	}
	if pos < len(text) {
		splitAll(text[pos:], rest, emit)
	}
}

// Decode returns the text of ids as PreTrainedTokenizerFast.decode does:
// the tokens' bytes joined (an added token as its text, or nothing when it
// is special and SkipSpecial is set) and decoded as UTF-8 with U+FFFD for
// invalid sequences, then CleanUpTokenization when opt.CleanUpSpaces. Ids
// outside the vocabulary decode to nothing.
func (t *byteBPE) Decode(ids []int32, opt DecodeOptions) string {
	var b []byte
	for _, id := range ids {
		b = t.AppendTokenBytes(b, id, opt.SkipSpecial)
	}
	s := DecodeUTF8Replace(b)
	if opt.CleanUpSpaces {
		s = CleanUpTokenization(s)
	}
	return s
}

// AppendTokenBytes appends the bytes id stands for to dst (an added
// token's text, unless it is special and skipSpecial is set); nothing for
// an id outside the vocabulary. A server streaming text joins them until
// they make whole UTF-8 characters.
func (t *byteBPE) AppendTokenBytes(dst []byte, id int32, skipSpecial bool) []byte {
	if id < 0 || int(id) >= len(t.bytesOf) || (skipSpecial && t.isSpecial[id]) {
		return dst
	}
	return append(dst, t.bytesOf[id]...)
}
