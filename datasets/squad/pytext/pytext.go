// Package pytext reproduces the few Python 3 str operations that the SQuAD
// reference tools depend on, character for character: str.isspace,
// str.split() and str.strip() with no arguments, str.lower() (full case
// mapping with the Final_Sigma rule), the word characters of the re module's
// \w and \b, and repr() of a float as json.dumps prints it.
//
// Go's strings.Fields, strings.ToLower and regexp's \b differ from these on
// non-ASCII input (U+001C..U+001F, final sigma, U+0130, Unicode word
// boundaries), and those differences change SQuAD features and scores.
//
// All functions are pure and safe for concurrent use. They accept any
// string; invalid UTF-8 bytes are treated as U+FFFD, as Go's range loop
// does.
package pytext

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether r is whitespace for Python's str.isspace, which is
// also the separator set of str.split() and str.strip() without arguments:
// the characters of bidirectional class WS, B or S, or of category Zs.
func IsSpace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0D, r >= 0x1C && r <= 0x20:
		return true
	case r < 0x85:
		return false
	case r == 0x85, r == 0xA0, r == 0x1680, r >= 0x2000 && r <= 0x200A,
		r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000:
		return true
	}
	return false
}

// Fields splits s around runs of Python whitespace, as s.split() does with
// no arguments. It returns nil when s holds only whitespace.
func Fields(s string) []string {
	return strings.FieldsFunc(s, IsSpace)
}

// Strip removes leading and trailing Python whitespace, as s.strip().
func Strip(s string) string {
	return strings.TrimFunc(s, IsSpace)
}

// JoinFields is " ".join(s.split()): it collapses every run of Python
// whitespace to one space and trims both ends.
func JoinFields(s string) string {
	return strings.Join(Fields(s), " ")
}

const (
	capitalSigma = 'Σ'
	smallSigma   = 'σ'
	finalSigma   = 'ς'
	capitalIDot  = 'İ'
)

// Lower returns s.lower() as Python 3 computes it: the full lowercase
// mapping of every character (U+0130 becomes "i" + U+0307) and U+03A3 mapped
// to final sigma U+03C2 where the Final_Sigma context holds (a cased letter
// before it and none after it, skipping case-ignorable characters).
func Lower(s string) string {
	// Fast path: ASCII without upper case letters is returned as is.
	ascii, upper := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if ascii {
		if !upper {
			return s
		}
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case capitalIDot:
			b.WriteString("i\u0307")
		case capitalSigma:
			if isFinalSigma(s, i) {
				b.WriteRune(finalSigma)
			} else {
				b.WriteRune(smallSigma)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// isFinalSigma applies CPython's handle_capital_sigma to the sigma at byte
// offset i of s.
func isFinalSigma(s string, i int) bool {
	// Backwards: skip case-ignorable characters, then need a cased one.
	j := i
	found := false
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if !isCaseIgnorable(r) {
			found = isCased(r)
			break
		}
	}
	if !found {
		return false
	}
	// Forwards: skip case-ignorable characters; a cased one cancels it.
	rest := s[i+utf8.RuneLen(capitalSigma):]
	for _, r := range rest {
		if !isCaseIgnorable(r) {
			return !isCased(r)
		}
	}
	return true
}

// isCased is Unicode's Cased property: Lowercase, Uppercase or Lt.
func isCased(r rune) bool {
	return unicode.IsLower(r) || unicode.IsUpper(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// isCaseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk
// and the Word_Break classes MidLetter, MidNumLet and Single_Quote.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024,
		0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// IsWordChar reports whether r matches \w of Python's re module on str
// patterns: a character for which str.isalnum() is true (letters of any
// L category and numbers of any N category), or the underscore.
func IsWordChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// FloatRepr formats f as Python's repr(float) and json.dumps do: the
// shortest decimal that reads back as f, in positional notation with at
// least one fractional digit when the decimal exponent is in [-4, 16), and
// as d.ddde+XX otherwise. NaN and infinities print as json.dumps prints them.
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	decpt := exp + 1
	if decpt > -4 && decpt <= 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(s, ".") {
			s += ".0"
		}
		return s
	}
	sign := "+"
	if exp < 0 {
		sign = "-"
		exp = -exp
	}
	es := strconv.Itoa(exp)
	if len(es) < 2 {
		es = "0" + es
	}
	return mant + "e" + sign + es
}
