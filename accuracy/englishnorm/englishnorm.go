// Package englishnorm is Whisper's EnglishTextNormalizer (openai/whisper
// whisper/normalizers/english.py and basic.py), which the MLPerf Whisper
// accuracy script (mlcommons/inference speech2text/accuracy_eval.py)
// applies to every hypothesis and reference before counting word errors:
// lower case; bracketed and parenthesised text and the fillers hmm, mm,
// mhm, mmm, uh, um removed; contractions and titles spelled out; symbols
// and diacritics removed (NFKD); spelled-out numbers written in digits
// with currency and percent signs (EnglishNumberNormalizer); British
// spellings made American (EnglishSpellingNormalizer, the english.json
// map); runs of white space made one space.
//
// The port keeps Python's semantics where Go's differ: str.lower() (with
// its İ and final-sigma rules), str.split() and str.strip() on Unicode
// white space, the regular expressions run by a backtracking engine
// (github.com/dlclark/regexp2) with \b, \d and \s spelt as Python's
// Unicode classes, arbitrary-precision integers and fractions for the
// numbers (Python's int and fractions.Fraction). The AssertionError and
// ValueError the Python code can raise on inputs it never meets are
// errors here. Unicode tables are Go's (Unicode 15), Python's may be a
// version apart; the MLPerf scorer only ever passes text over its 42-label
// alphabet, where the two cannot differ.
//
// A Normalizer is safe for concurrent use.
package englishnorm

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"

	"github.com/mlperf-go/inference/internal/pystr"
)

// spellingJSON is openai/whisper whisper/normalizers/english.json (MIT,
// see LICENSE.openai-whisper): British → American spellings.
//
//go:embed english.json
var spellingJSON []byte

// Python's regular-expression classes in regexp2 syntax.
const (
	pyWord  = `[\p{L}\p{N}_]`
	pyNotW  = `(?<!` + pyWord + `)` // \b before a word character
	pyNotWA = `(?!` + pyWord + `)`  // \b after a word character
	pySpace = `[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]`
	pyDigit = `\p{Nd}`
)

// py compiles a pattern written with Python's \s, \d and \b. Every \b
// here sits next to a word character, at the start of a pattern (no word
// character before) or at its end (none after), which lookarounds with
// Python's word class express exactly.
func py(pattern string) *regexp2.Regexp {
	var sb strings.Builder
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		if rs[i] != '\\' || i+1 == len(rs) {
			sb.WriteRune(rs[i])
			continue
		}
		i++
		switch rs[i] {
		case 'b':
			switch i {
			case 1:
				sb.WriteString(pyNotW)
			case len(rs) - 1:
				sb.WriteString(pyNotWA)
			default:
				panic("englishnorm: \\b inside pattern " + pattern)
			}
		case 's':
			sb.WriteString(pySpace)
		case 'd':
			sb.WriteString(pyDigit)
		default:
			sb.WriteRune('\\')
			sb.WriteRune(rs[i])
		}
	}
	return regexp2.MustCompile(sb.String(), regexp2.None)
}

type replacer struct {
	re   *regexp2.Regexp
	with string
}

var (
	reBrackets = py(`[<\[][^>\]]*[>\]]`)
	reParens   = py(`\(([^)]+?)\)`)
	reIgnore   = py(`\b(hmm|mm|mhm|mmm|uh|um)\b`)
	reSpaceApo = py(`\s+'`)
	reComma    = py(`(\d),(\d)`)
	rePeriod   = py(`\.([^0-9]|$)`)
	reSymbols  = py(`[.$¢€£]([^0-9])`)
	rePercent  = py(`([^0-9])%`)
	reSpaces   = py(`\s+`)

	// The replacers, in the order of english.py's dict.
	replacers = func() []replacer {
		pairs := [][2]string{
			// common contractions
			{`\bwon't\b`, "will not"}, {`\bcan't\b`, "can not"}, {`\blet's\b`, "let us"},
			{`\bain't\b`, "aint"}, {`\by'all\b`, "you all"}, {`\bwanna\b`, "want to"},
			{`\bgotta\b`, "got to"}, {`\bgonna\b`, "going to"}, {`\bi'ma\b`, "i am going to"},
			{`\bimma\b`, "i am going to"}, {`\bwoulda\b`, "would have"}, {`\bcoulda\b`, "could have"},
			{`\bshoulda\b`, "should have"}, {`\bma'am\b`, "madam"},
			// contractions in titles/prefixes
			{`\bmr\b`, "mister "}, {`\bmrs\b`, "missus "}, {`\bst\b`, "saint "},
			{`\bdr\b`, "doctor "}, {`\bprof\b`, "professor "}, {`\bcapt\b`, "captain "},
			{`\bgov\b`, "governor "}, {`\bald\b`, "alderman "}, {`\bgen\b`, "general "},
			{`\bsen\b`, "senator "}, {`\brep\b`, "representative "}, {`\bpres\b`, "president "},
			{`\brev\b`, "reverend "}, {`\bhon\b`, "honorable "}, {`\basst\b`, "assistant "},
			{`\bassoc\b`, "associate "}, {`\blt\b`, "lieutenant "}, {`\bcol\b`, "colonel "},
			{`\bjr\b`, "junior "}, {`\bsr\b`, "senior "}, {`\besq\b`, "esquire "},
			// perfect tenses
			{`'d been\b`, " had been"}, {`'s been\b`, " has been"}, {`'d gone\b`, " had gone"},
			{`'s gone\b`, " has gone"}, {`'d done\b`, " had done"}, {`'s got\b`, " has got"},
			// general contractions
			{`n't\b`, " not"}, {`'re\b`, " are"}, {`'s\b`, " is"}, {`'d\b`, " would"},
			{`'ll\b`, " will"}, {`'t\b`, " not"}, {`'ve\b`, " have"}, {`'m\b`, " am"},
		}
		out := make([]replacer, len(pairs))
		for i, p := range pairs {
			out[i] = replacer{py(p[0]), p[1]}
		}
		return out
	}()
)

// Normalizer is EnglishTextNormalizer. Its zero value is not usable; use
// New.
type Normalizer struct {
	spelling map[string]string
	numbers  *numberNormalizer
}

// New returns the normaliser with the embedded spelling map.
func New() (*Normalizer, error) {
	var m map[string]string
	if err := json.Unmarshal(spellingJSON, &m); err != nil {
		return nil, fmt.Errorf("englishnorm: english.json: %w", err)
	}
	return &Normalizer{spelling: m, numbers: newNumberNormalizer()}, nil
}

// Normalize is EnglishTextNormalizer.__call__. It fails only where the
// Python code would raise.
func (n *Normalizer) Normalize(s string) (string, error) {
	s = pyLower(s)
	s = sub(reBrackets, s, "")
	s = sub(reParens, s, "")
	s = sub(reIgnore, s, "")
	s = sub(reSpaceApo, s, "'")
	for _, r := range replacers {
		s = sub(r.re, s, r.with)
	}
	s = subFunc(reComma, s, func(m *regexp2.Match) string { return group(m, 1) + group(m, 2) })
	s = subFunc(rePeriod, s, func(m *regexp2.Match) string { return " " + group(m, 1) })
	s = RemoveSymbolsAndDiacritics(s, ".%$¢€£")
	s, err := n.numbers.normalize(s)
	if err != nil {
		return "", err
	}
	s = n.Spellings(s)
	s = subFunc(reSymbols, s, func(m *regexp2.Match) string { return " " + group(m, 1) })
	s = subFunc(rePercent, s, func(m *regexp2.Match) string { return group(m, 1) + " " })
	s = sub(reSpaces, s, " ")
	return s, nil
}

// Spellings is EnglishSpellingNormalizer: each white-space separated word
// replaced by its American spelling, joined by single spaces.
func (n *Normalizer) Spellings(s string) string {
	words := Fields(s)
	for i, w := range words {
		if a, ok := n.spelling[w]; ok {
			words[i] = a
		}
	}
	return strings.Join(words, " ")
}

// Numbers is EnglishNumberNormalizer.__call__ alone.
func (n *Normalizer) Numbers(s string) (string, error) { return n.numbers.normalize(s) }

// sub is re.sub(pattern, with, s) for a replacement without group
// references.
func sub(re *regexp2.Regexp, s, with string) string {
	return subFunc(re, s, func(*regexp2.Match) string { return with })
}

// subFunc is re.sub with a function: every non-overlapping match, left to
// right, replaced by f's result.
func subFunc(re *regexp2.Regexp, s string, f func(*regexp2.Match) string) string {
	out, err := re.ReplaceFunc(s, func(m regexp2.Match) string { return f(&m) }, -1, -1)
	if err != nil { // only a match timeout, which is not set
		panic(err)
	}
	return out
}

// group is m.group(i), "" when the group did not take part.
func group(m *regexp2.Match, i int) string {
	g := m.GroupByNumber(i)
	if g == nil || len(g.Captures) == 0 {
		return ""
	}
	return g.String()
}

// additionalDiacritics are basic.py's ADDITIONAL_DIACRITICS: letters NFKD
// does not separate.
var additionalDiacritics = map[rune]string{
	'œ': "oe", 'Œ': "OE", 'ø': "o", 'Ø': "O", 'æ': "ae", 'Æ': "AE", 'ß': "ss", 'ẞ': "SS",
	'đ': "d", 'Đ': "D", 'ð': "d", 'Ð': "D", 'þ': "th", 'Þ': "th", 'ł': "l", 'Ł': "L",
}

// RemoveSymbolsAndDiacritics is basic.py's remove_symbols_and_diacritics:
// over the NFKD form, characters in keep stay, the additional diacritics
// are spelt out, non-spacing marks (Mn) are dropped and other marks,
// symbols and punctuation (M*, S*, P*) become a space.
func RemoveSymbolsAndDiacritics(s, keep string) string {
	var sb strings.Builder
	for _, c := range norm.NFKD.String(s) {
		switch {
		case strings.ContainsRune(keep, c):
			sb.WriteRune(c)
		case additionalDiacritics[c] != "":
			sb.WriteString(additionalDiacritics[c])
		case unicode.Is(unicode.Mn, c):
		case unicode.In(c, unicode.M, unicode.S, unicode.P):
			sb.WriteByte(' ')
		default:
			sb.WriteRune(c)
		}
	}
	return sb.String()
}

// Fields is Python's str.split() without arguments.
func Fields(s string) []string { return pystr.Fields(s) }

// Strip is Python's str.strip() without arguments.
func Strip(s string) string { return pystr.Strip(s) }

// pyLower is Python's str.lower().
func pyLower(s string) string { return pystr.Lower(s) }
