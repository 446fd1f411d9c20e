// Package pystr holds Python's str semantics where Go's differ, for ports
// of the reference scripts that must treat text exactly as they do:
// str.isspace, str.strip, str.lower, str.upper, str.isalpha,
// float() and int() of a str,
// and Python's \s, \w and \d classes spelt for regexp2
// (github.com/dlclark/regexp2). Unicode tables are Go's; Python's may be a
// Unicode version apart. Functions are pure and safe for concurrent use.
package pystr

import (
	"math/big"
	"regexp"
	"strconv"
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

// floatRE is Python's float() syntax (PEP 515 underscores) after white
// space is stripped and digits are made ASCII.
var floatRE = regexp.MustCompile(`^[+-]?(?:(?:[0-9](?:_?[0-9])*\.(?:[0-9](?:_?[0-9])*)?|\.[0-9](?:_?[0-9])*|[0-9](?:_?[0-9])*)(?:[eE][+-]?[0-9](?:_?[0-9])*)?|(?i:inf|infinity|nan))$`)

// intRE is Python's int() syntax for base 10.
var intRE = regexp.MustCompile(`^[+-]?[0-9](?:_?[0-9])*$`)

// asciiDigits strips s as float() and int() do and writes its Unicode
// decimal digits as ASCII.
func asciiDigits(s string) string {
	s = Strip(s)
	var b strings.Builder
	for _, r := range s {
		if d, isDigit := DecimalValue(r); isDigit {
			b.WriteByte(byte('0' + d))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Float is Python's float(s) for a str: surrounding white space ignored,
// any Unicode decimal digits, underscores between digits, inf, infinity
// and nan; ok is false where float() raises. Out-of-range values are ±Inf
// or ±0, as in Python.
func Float(s string) (v float64, ok bool) {
	t := asciiDigits(s)
	if !floatRE.MatchString(t) {
		return 0, false
	}
	t = strings.ReplaceAll(t, "_", "")
	if strings.HasSuffix(strings.ToLower(t), "nan") {
		t = "NaN" // Python takes a sign on nan; Go does not
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if e, isNum := err.(*strconv.NumError); !isNum || e.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return v, true
}

// Int is Python's int(s) for a str in base 10: surrounding white space
// ignored, a sign, any Unicode decimal digits, underscores between digits;
// ok is false where int() raises.
func Int(s string) (*big.Int, bool) {
	t := asciiDigits(s)
	if !intRE.MatchString(t) {
		return nil, false
	}
	v, ok := new(big.Int).SetString(strings.ReplaceAll(t, "_", ""), 10)
	return v, ok
}

// DecimalValue is a Unicode decimal digit's value (Nd digits come in runs
// of ten, 0 to 9, each run starting a range of the Nd table or continuing
// one).
func DecimalValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	return 0, false
}
