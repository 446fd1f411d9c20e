// Package pystr holds Python's str semantics where Go's differ, for ports
// of the reference scripts that must treat text exactly as they do:
// str.isspace, str.strip, str.lower, str.upper, str.isalpha, str.isdecimal,
// and Python's \s, \w and \d classes spelt for regexp2
// (github.com/dlclark/regexp2). Unicode tables are Go's; Python's may be a
// Unicode version apart. Functions are pure and safe for concurrent use.
package pystr

import (
	"strings"
	"unicode"
)

// Python's regular-expression classes in regexp2 syntax.
const (
	Word  = `[\p{L}\p{N}_]`
	Space = `[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]`
	Digit = `\p{Nd}`
)

// IsSpace is Python's str.isspace for one character: Unicode white space
// plus the separators U+001C–U+001F.
func IsSpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

// Fields is Python's str.split() without arguments.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }

// Strip is Python's str.strip() without arguments.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// IsAlpha is Python's str.isalpha for one character (categories Lu, Ll,
// Lt, Lm, Lo).
func IsAlpha(r rune) bool { return unicode.IsLetter(r) }

// IsDecimal is Python's str.isdecimal for one character (category Nd):
// the characters int() and \d accept.
func IsDecimal(r rune) bool { return unicode.Is(unicode.Nd, r) }

// Lower is Python's str.lower(): the full lower-case mapping, which
// differs from Go's simple one for İ (→ i + U+0307) and for Σ at the end
// of a word (→ ς).
func Lower(s string) string {
	if isASCIINoUpper(s) {
		return s
	}
	rs := []rune(s)
	var sb strings.Builder
	sb.Grow(len(s))
	for i, r := range rs {
		switch r {
		case 'İ':
			sb.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(rs, i) {
				sb.WriteRune('ς')
			} else {
				sb.WriteRune('σ')
			}
		default:
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}

// upperSpecial are the characters whose full upper-case mapping
// (SpecialCasing.txt, unconditional) is more than one character.
var upperSpecial = map[rune]string{
	'ß': "SS", 'ŉ': "ʼN", 'ǰ': "J̌", 'ΐ': "Ϊ́", 'ΰ': "Ϋ́", 'և': "ԵՒ", 'ẖ': "H̱", 'ẗ': "T̈", 'ẘ': "W̊", 'ẙ': "Y̊",
	'ẚ': "Aʾ", 'ﬀ': "FF", 'ﬁ': "FI", 'ﬂ': "FL", 'ﬃ': "FFI", 'ﬄ': "FFL", 'ﬅ': "ST", 'ﬆ': "ST",
}

// Upper is Python's str.upper(): the full upper-case mapping (ß → SS,
// ligatures spelt out), which Go's simple mapping lacks.
func Upper(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		if u, ok := upperSpecial[r]; ok {
			sb.WriteString(u)
		} else {
			sb.WriteRune(unicode.ToUpper(r))
		}
	}
	return sb.String()
}

func isASCIINoUpper(s string) bool {
	for i := range len(s) {
		if c := s[i]; c >= 0x80 || c >= 'A' && c <= 'Z' {
			return false
		}
	}
	return true
}

// finalSigma is the Final_Sigma condition of Python's handle_capital_sigma:
// a cased letter before (skipping case-ignorable characters) and none
// after.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0xb7, 0x2018, 0x2019, 0x2024, 0x2027, 0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a, 0x387, 0x55f, 0x5f4:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
