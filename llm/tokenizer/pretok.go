package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizer regexes of DeepSeek-V3 (and R1) and of o200k_harmony
// (gpt-oss), as their tokenizer.json files carry them, and hand-written
// matchers of each, matched as Oniguruma and fancy-regex match them: at a
// position the first alternative that matches wins, ? * + are greedy and
// give characters back when what follows fails. \s is Unicode
// White_Space; \p{..} are Go's tables of the Unicode general categories
// (Unicode 15.0). Invalid UTF-8 bytes count as one character of no
// category.
const (
	// DeepSeekDigitsPattern, DeepSeekCJKPattern and DeepSeekPattern are
	// the three splits of DeepSeek-V3's pre-tokenizer, applied in turn.
	DeepSeekDigitsPattern = `\p{N}{1,3}`
	DeepSeekCJKPattern    = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"
	DeepSeekPattern       = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
	// O200kPattern is the split of o200k_harmony (tiktoken's o200k_base
	// pattern).
	O200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// runeAt decodes the character at byte i of s: (-1, 0) past the end, and
// (RuneError, 1) for an invalid byte.
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(s[i:])
}

// runOf returns the end of the run of characters satisfying f from byte
// i, taking at most most characters (most ≤ 0: no limit).
func runOf(s string, i int, f func(rune) bool, most int) int {
	for n := 0; i < len(s) && (most <= 0 || n < most); n++ {
		r, w := runeAt(s, i)
		if !f(r) {
			break
		}
		i += w
	}
	return i
}

// isLetterOrMark is [\p{L}\p{M}].
func isLetterOrMark(r rune) bool { return r >= 0 && (unicode.IsLetter(r) || unicode.IsMark(r)) }

// isPunctOrSymbol is [\p{P}\p{S}].
func isPunctOrSymbol(r rune) bool { return r >= 0 && (unicode.IsPunct(r) || unicode.IsSymbol(r)) }

// deepSeekDigits matches \p{N}{1,3}.
func deepSeekDigits(s string) int {
	if r, _ := runeAt(s, 0); r < 0 || !isNumber(r) {
		return 0
	}
	return runOf(s, 0, isNumber, 3)
}

// isDeepSeekCJK is [一-龥぀-ゟ゠-ヿ]: CJK ideographs U+4E00..U+9FA5,
// hiragana U+3040..U+309F, katakana U+30A0..U+30FF.
func isDeepSeekCJK(r rune) bool {
	return (r >= 0x4e00 && r <= 0x9fa5) || (r >= 0x3040 && r <= 0x30ff)
}

// deepSeekCJK matches DeepSeekCJKPattern.
func deepSeekCJK(s string) int { return runOf(s, 0, isDeepSeekCJK, 0) }

// isASCIIPunct is the class [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]: the 32
// ASCII punctuation and symbol characters.
func isASCIIPunct(r rune) bool {
	return (r >= '!' && r <= '/') || (r >= ':' && r <= '@') || (r >= '[' && r <= '`') || (r >= '{' && r <= '~')
}

func isASCIILetter(r rune) bool { return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') }

// deepSeekMain matches DeepSeekPattern.
func deepSeekMain(s string) int {
	r0, w0 := runeAt(s, 0)
	if r0 < 0 {
		return 0
	}
	r1, _ := runeAt(s, w0)
	// [ASCII punctuation][A-Za-z]+
	if isASCIIPunct(r0) && isASCIILetter(r1) {
		return runOf(s, w0, isASCIILetter, 0)
	}
	// [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
	if !isCRLF(r0) && !unicode.IsLetter(r0) && !isPunctOrSymbol(r0) && isLetterOrMark(r1) {
		return runOf(s, w0, isLetterOrMark, 0)
	}
	if isLetterOrMark(r0) {
		return runOf(s, 0, isLetterOrMark, 0)
	}
	//  ?[\p{P}\p{S}]+[\r\n]*
	if r0 == ' ' && isPunctOrSymbol(r1) {
		return runOf(s, runOf(s, 1, isPunctOrSymbol, 0), isCRLF, 0)
	}
	if isPunctOrSymbol(r0) {
		return runOf(s, runOf(s, 0, isPunctOrSymbol, 0), isCRLF, 0)
	}
	return matchSpaces(s)
}

// matchSpaces matches \s*[\r\n]+|\s+(?!\S)|\s+ at the start of s (0 if s
// does not start with a space): to the last CR or LF of the run of spaces
// if it has one, else the run less its last character when a non-space
// follows and the run is longer than one, else the run.
func matchSpaces(s string) int {
	end := runOf(s, 0, isSpace, 0)
	if end == 0 {
		return 0
	}
	lastNL := -1
	for i := 0; i < end; {
		r, w := runeAt(s, i)
		if isCRLF(r) {
			lastNL = i + w
		}
		i += w
	}
	switch {
	case lastNL > 0:
		return lastNL
	case end == len(s):
		return end
	}
	if _, w := utf8.DecodeLastRuneInString(s[:end]); end-w > 0 {
		return end - w
	}
	return end
}

// isO200kUpper is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]; isO200kLower is
// [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isO200kUpper(r rune) bool {
	return r >= 0 && (unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo) || unicode.IsMark(r))
}

func isO200kLower(r rune) bool {
	return r >= 0 && (unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo) || unicode.IsMark(r))
}

// o200kOther is [^\s\p{L}\p{N}].
func o200kOther(r rune) bool { return r >= 0 && !isSpace(r) && !isLetter(r) && !isNumber(r) }

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at byte
// i of s, 0 if there is none ('ſ' folds to 's').
func contraction(s string, i int) int {
	if r, _ := runeAt(s, i); r != '\'' {
		return 0
	}
	r1, w1 := runeAt(s, i+1)
	switch r1 {
	case 's', 'S', 'ſ', 't', 'T', 'm', 'M', 'd', 'D':
		return 1 + w1
	}
	r2, w2 := runeAt(s, i+1+w1)
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
	return 0
}

// o200kWordLower matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// from byte p of s, returning its end (-1: no match): the upper run, then
// the lower run after it; when no lower character follows the upper run,
// the upper run gives characters back until the last of its characters
// that is also lower.
func o200kWordLower(s string, p int) int {
	q := runOf(s, p, isO200kUpper, 0)
	if r, _ := runeAt(s, q); isO200kLower(r) {
		return runOf(s, q, isO200kLower, 0)
	}
	for k := q; k > p; {
		r, w := utf8.DecodeLastRuneInString(s[p:k])
		k -= w
		if isO200kLower(r) {
			return k + w
		}
	}
	return -1
}

// o200kPiece matches O200kPattern at the start of s. Every character is
// in one of its alternatives, so it matches any non-empty s.
func o200kPiece(s string) int {
	r0, w0 := runeAt(s, 0)
	if r0 < 0 {
		return 0
	}
	prefix := !isCRLF(r0) && !isLetter(r0) && !isNumber(r0) // [^\r\n\p{L}\p{N}]
	// ...[upper]*[lower]+(contraction)?, with the prefix and without
	for _, p := range []int{w0, 0} {
		if p == w0 && !prefix {
			continue
		}
		if e := o200kWordLower(s, p); e > 0 {
			return e + contraction(s, e)
		}
	}
	// ...[upper]+[lower]*(contraction)?
	for _, p := range []int{w0, 0} {
		if p == w0 && !prefix {
			continue
		}
		if r, _ := runeAt(s, p); isO200kUpper(r) {
			e := runOf(s, runOf(s, p, isO200kUpper, 0), isO200kLower, 0)
			return e + contraction(s, e)
		}
	}
	// \p{N}{1,3}
	if isNumber(r0) {
		return runOf(s, 0, isNumber, 3)
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n/]*
	crlfSlash := func(r rune) bool { return isCRLF(r) || r == '/' }
	if r1, _ := runeAt(s, 1); r0 == ' ' && o200kOther(r1) {
		return runOf(s, runOf(s, 1, o200kOther, 0), crlfSlash, 0)
	}
	if o200kOther(r0) {
		return runOf(s, runOf(s, 0, o200kOther, 0), crlfSlash, 0)
	}
	if n := matchSpaces(s); n > 0 {
		return n
	}
	return w0 // unreachable: every character is in some class
}
