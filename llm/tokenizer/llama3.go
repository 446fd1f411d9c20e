package tokenizer

import (
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
type Llama3 struct{ byteBPE }

// llama3Spec is Meta's Llama 3.1 tokenizer.json: one split by
// Llama3Pattern, <|begin_of_text|> first, clean-up on.
var llama3Spec = bpeSpec{name: "Llama 3", patterns: []string{Llama3Pattern}, matchers: []matcher{llama3Piece},
	bos: "<|begin_of_text|>", cleanUp: true}

// LoadLlama3 reads tokenizer.json (path is the file or its folder: the
// llama3 folder that make setup fills, or a Llama-3.1 model folder) and,
// when it lies beside it, tokenizer_config.json for
// clean_up_tokenization_spaces (true, Meta's value, when absent).
func LoadLlama3(path string) (*Llama3, error) {
	b, err := loadHF(path, llama3Spec, "run make setup, or point to a folder with the tokenizer.json of Llama 3.1")
	if err != nil {
		return nil, err
	}
	return &Llama3{*b}, nil
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
