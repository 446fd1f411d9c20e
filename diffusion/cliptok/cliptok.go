// Package cliptok is CLIP's byte-level BPE tokenizer (OpenAI CLIP
// clip/simple_tokenizer.py; transformers' CLIPTokenizer, which Stable
// Diffusion XL's two tokenizers are; open_clip's tokenize for the CLIP
// score): text cleaned (ftfy's quote and Unicode normalisation, runs of
// whitespace to one space, lower case), split by CLIP's pattern, each
// piece mapped to byte symbols with "</w>" on its last one, merged by
// rank, and framed as <|startoftext|> … <|endoftext|> padded to the
// context length with the tokenizer's pad token.
//
// The vocabulary and merges are read from a Hugging Face tokenizer folder
// (vocab.json, merges.txt, tokenizer_config.json) as a diffusers model
// folder holds them; no registry package ships CLIP's
// bpe_simple_vocab_16e6. Encode is tested against OpenAI's
// clip/simple_tokenizer.py on the real vocabulary's ids and merge order
// (testdata). A Tokenizer is immutable and safe for concurrent use.
package cliptok

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// Special tokens of CLIP's vocabulary.
const (
	BOS = "<|startoftext|>"
	EOS = "<|endoftext|>"
)

// ContextLength is CLIP's text context (model_max_length), in tokens.
const ContextLength = 77

// ErrBadData is wrapped by errors about tokenizer files.
var ErrBadData = errors.New("cliptok: bad tokenizer data")

// Tokenizer is a loaded CLIP tokenizer.
type Tokenizer struct {
	vocab         map[string]int32
	ranks         map[[2]string]int
	bos, eos, pad int32
	// MaxLen is the padded length (model_max_length, 77 for CLIP).
	MaxLen int
	// PadToken is the padding token's text ("<|endoftext|>" for SDXL's
	// first tokenizer, "!" for its second).
	PadToken string
}

// New returns a tokenizer over vocab (token → id) and merges (in rank
// order), padding with pad to maxLen tokens. The vocabulary must hold BOS,
// EOS, pad and every merge result.
func New(vocab map[string]int32, merges [][2]string, pad string, maxLen int) (*Tokenizer, error) {
	t := &Tokenizer{vocab: vocab, ranks: make(map[[2]string]int, len(merges)), MaxLen: maxLen, PadToken: pad}
	if maxLen < 2 {
		return nil, fmt.Errorf("%w: model_max_length %d", ErrBadData, maxLen)
	}
	var ok bool
	for _, s := range []struct {
		tok string
		id  *int32
	}{{BOS, &t.bos}, {EOS, &t.eos}, {pad, &t.pad}} {
		if *s.id, ok = vocab[s.tok]; !ok {
			return nil, fmt.Errorf("%w: the vocabulary lacks %q", ErrBadData, s.tok)
		}
	}
	for i, m := range merges {
		if _, ok := vocab[m[0]+m[1]]; !ok {
			return nil, fmt.Errorf("%w: merge %d (%s %s) makes a token not in the vocabulary", ErrBadData, i, m[0], m[1])
		}
		if _, dup := t.ranks[m]; !dup {
			t.ranks[m] = i
		}
	}
	return t, nil
}

// Load reads a Hugging Face CLIP tokenizer folder: vocab.json,
// merges.txt (its "#version" line skipped) and, when present,
// tokenizer_config.json's pad_token and model_max_length (defaults
// "<|endoftext|>" and 77).
func Load(dir string) (*Tokenizer, error) {
	vb, err := os.ReadFile(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return nil, fmt.Errorf("cliptok: %w (want a tokenizer folder with vocab.json and merges.txt)", err)
	}
	var vocab map[string]int32
	if err := json.Unmarshal(vb, &vocab); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadData, filepath.Join(dir, "vocab.json"), err)
	}
	mb, err := os.ReadFile(filepath.Join(dir, "merges.txt"))
	if err != nil {
		return nil, fmt.Errorf("cliptok: %w", err)
	}
	var merges [][2]string
	for i, line := range strings.Split(string(mb), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || (i == 0 && strings.HasPrefix(line, "#version")) {
			continue
		}
		a, b, ok := strings.Cut(line, " ")
		if !ok || strings.Contains(b, " ") {
			return nil, fmt.Errorf("%w: %s line %d: %q is not two symbols", ErrBadData, filepath.Join(dir, "merges.txt"), i+1, line)
		}
		merges = append(merges, [2]string{a, b})
	}
	pad, maxLen := EOS, ContextLength
	if cb, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json")); err == nil {
		var cfg struct {
			Pad    json.RawMessage `json:"pad_token"`
			MaxLen *float64        `json:"model_max_length"`
		}
		if err := json.Unmarshal(cb, &cfg); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBadData, filepath.Join(dir, "tokenizer_config.json"), err)
		}
		if p := tokenText(cfg.Pad); p != "" {
			pad = p
		}
		if cfg.MaxLen != nil && *cfg.MaxLen >= 2 && *cfg.MaxLen <= 1e6 {
			maxLen = int(*cfg.MaxLen)
		}
	}
	t, err := New(vocab, merges, pad, maxLen)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, dir)
	}
	return t, nil
}

// tokenText reads a token setting written as a string or as an
// AddedToken object {"content": ...}.
func tokenText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.Content
	}
	return ""
}

// pattern is CLIP's token pattern (case-insensitive; one digit per
// token).
var pattern = regexp.MustCompile(`(?i)<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|\p{L}+|\p{N}|[^\s\p{L}\p{N}]+`)

// fixes are what ftfy.fix_text's uncurl_quotes and fix_latin_ligatures
// replace.
var fixes = strings.NewReplacer("\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`,
	"\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "ſt", "\ufb06", "st")

// Clean is the text clean-up before splitting: the parts of ftfy.fix_text
// (ftfy 6 defaults) that change well-formed text — HTML entities decoded
// when the text has no "<" (unescape_html "auto"), full- and half-width
// forms folded (fix_character_width), ligatures split, curly quotes
// straightened, NFC — then whitespace runs collapsed to one space and
// trimmed, and lower case. Mojibake repair is not done.
func Clean(text string) string {
	if !strings.Contains(text, "<") {
		text = html.UnescapeString(text)
	}
	text = norm.NFC.String(fixes.Replace(width.Fold.String(text)))
	return strings.ToLower(strings.Join(strings.Fields(text), " "))
}

// byteSym maps each byte to its printable symbol (GPT-2's
// bytes_to_unicode, which CLIP shares).
var byteSym = func() [256]string {
	var s [256]string
	n := 0
	for b := range 256 {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			s[b] = string(rune(b))
		} else {
			s[b] = string(rune(256 + n))
			n++
		}
	}
	return s
}()

// ByteSymbols returns the 256 byte symbols in the order of CLIP's
// vocabulary (bytes_to_unicode's: the printable bytes '!'…'~', '¡'…'¬',
// '®'…'ÿ' first, then the others), its first 256 entries.
func ByteSymbols() []string {
	var printable, other []string
	for b := range 256 {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			printable = append(printable, byteSym[b])
		} else {
			other = append(other, byteSym[b])
		}
	}
	return append(printable, other...)
}

// bpe merges the symbols of one piece.
func (t *Tokenizer) bpe(piece string) []string {
	var word []string
	for i := 0; i < len(piece); i++ {
		word = append(word, byteSym[piece[i]])
	}
	word[len(word)-1] += "</w>"
	for len(word) > 1 {
		best, rank := [2]string{}, -1
		for i := 0; i+1 < len(word); i++ {
			if r, ok := t.ranks[[2]string{word[i], word[i+1]}]; ok && (rank < 0 || r < rank) {
				best, rank = [2]string{word[i], word[i+1]}, r
			}
		}
		if rank < 0 {
			break
		}
		out := word[:0:0]
		for i := 0; i < len(word); i++ {
			if i+1 < len(word) && word[i] == best[0] && word[i+1] == best[1] {
				out = append(out, best[0]+best[1])
				i++
			} else {
				out = append(out, word[i])
			}
		}
		word = out
	}
	return word
}

// Encode returns the ids of text without the start and end tokens.
// Symbols missing from the vocabulary map to <|endoftext|> (the unknown
// token of transformers' CLIPTokenizer).
func (t *Tokenizer) Encode(text string) []int32 {
	var ids []int32
	for _, piece := range pattern.FindAllString(Clean(text), -1) {
		for _, s := range t.bpe(piece) {
			id, ok := t.vocab[s]
			if !ok {
				id = t.eos
			}
			ids = append(ids, id)
		}
	}
	return ids
}

// Tokens returns the MaxLen ids the SDXL pipeline feeds its text encoder
// (padding "max_length", truncation on): start, at most MaxLen−2 text
// tokens, end, then the pad token.
func (t *Tokenizer) Tokens(text string) []int32 {
	ids := t.Encode(text)
	if len(ids) > t.MaxLen-2 {
		ids = ids[:t.MaxLen-2]
	}
	out := make([]int32, 0, t.MaxLen)
	out = append(out, t.bos)
	out = append(out, ids...)
	out = append(out, t.eos)
	for len(out) < t.MaxLen {
		out = append(out, t.pad)
	}
	return out
}

// VocabSize is the number of entries of the vocabulary.
func (t *Tokenizer) VocabSize() int { return len(t.vocab) }

// Write writes a tokenizer folder in the Hugging Face layout (vocab.json,
// merges.txt with its "#version: 0.2" line, tokenizer_config.json with
// pad_token and model_max_length) that Load reads.
func Write(dir string, vocab map[string]int32, merges [][2]string, pad string, maxLen int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cliptok: %w", err)
	}
	vb, err := json.Marshal(vocab)
	if err != nil {
		return fmt.Errorf("cliptok: %w", err)
	}
	var mb strings.Builder
	mb.WriteString("#version: 0.2\n")
	for _, m := range merges {
		mb.WriteString(m[0] + " " + m[1] + "\n")
	}
	cb, _ := json.MarshalIndent(map[string]any{
		"tokenizer_class": "CLIPTokenizer", "pad_token": pad, "bos_token": BOS, "eos_token": EOS,
		"unk_token": EOS, "model_max_length": maxLen, "do_lower_case": true,
	}, "", "  ")
	for name, b := range map[string][]byte{"vocab.json": vb, "merges.txt": []byte(mb.String()), "tokenizer_config.json": cb} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("cliptok: %w", err)
		}
	}
	return nil
}

// Synthetic returns a small CLIP-format vocabulary and merges learned
// from corpus: the 256 byte symbols, the same with "</w>", then up to
// nMerges merges chosen greedily by pair frequency (ties broken by the
// pair's text), then BOS and EOS, numbered in that order as CLIP numbers
// its vocabulary. It is the tokenizer of the synthetic models.
func Synthetic(corpus string, nMerges int) (map[string]int32, [][2]string) {
	vocab := map[string]int32{}
	add := func(s string) {
		if _, ok := vocab[s]; !ok {
			vocab[s] = int32(len(vocab))
		}
	}
	for _, s := range ByteSymbols() {
		add(s)
	}
	for _, s := range ByteSymbols() {
		add(s + "</w>")
	}
	var words [][]string
	for _, piece := range pattern.FindAllString(Clean(corpus), -1) {
		var w []string
		for i := 0; i < len(piece); i++ {
			w = append(w, byteSym[piece[i]])
		}
		w[len(w)-1] += "</w>"
		words = append(words, w)
	}
	var merges [][2]string
	for len(merges) < nMerges {
		count := map[[2]string]int{}
		for _, w := range words {
			for i := 0; i+1 < len(w); i++ {
				count[[2]string{w[i], w[i+1]}]++
			}
		}
		var best [2]string
		bc := 0
		for p, c := range count {
			if c > bc || (c == bc && p[0]+" "+p[1] < best[0]+" "+best[1]) {
				best, bc = p, c
			}
		}
		if bc < 2 {
			break
		}
		merges = append(merges, best)
		add(best[0] + best[1])
		for k, w := range words {
			out := w[:0:0]
			for i := 0; i < len(w); i++ {
				if i+1 < len(w) && w[i] == best[0] && w[i+1] == best[1] {
					out = append(out, best[0]+best[1])
					i++
				} else {
					out = append(out, w[i])
				}
			}
			words[k] = out
		}
	}
	add(BOS)
	add(EOS)
	return vocab, merges
}
