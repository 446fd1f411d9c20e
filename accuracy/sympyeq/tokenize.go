package sympyeq

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token types, as Python's token module names them.
const (
	tName = iota
	tNumber
	tOp
	tError
	tNewline
	tEnd
	tComment
)

// tok is one (type, string) token as sympy's transformations see it.
type tok struct {
	kind int
	val  string
}

func (t tok) is(kind int, val string) bool { return t.kind == kind && t.val == val }

// Python 3.11's tokenize number syntax (ASCII digits, PEP 515 underscores).
const (
	pyDigits  = `[0-9](?:_?[0-9])*`
	pyExp     = `[eE][-+]?` + pyDigits
	pyPoint   = `(?:` + pyDigits + `\.(?:` + pyDigits + `)?|\.` + pyDigits + `)(?:` + pyExp + `)?`
	pyExpFl   = pyDigits + pyExp
	pyFloat   = `(?:` + pyPoint + `|` + pyExpFl + `)`
	pyImag    = `(?:[0-9](?:_?[0-9])*[jJ]|` + pyFloat + `[jJ])`
	pyInt     = `(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?0)*|[1-9](?:_?[0-9])*)`
	pyNumber  = `^(?:` + pyImag + `|` + pyFloat + `|` + pyInt + `)`
	maxTokens = 4096
)

var numberRE = regexp.MustCompile(pyNumber)

// operators are Python's exact token strings (tokenize's Special group);
// the longest that matches is taken.
var operators = func() []string {
	ops := strings.Fields(`!= % %= & &= ( ) * ** **= *= + += , - -= -> . ... / // //= /= : := ; < << <<= <= = == > >= >> >>= @ @= [ ] ^ ^= { | |= } ~`)
	sort.Slice(ops, func(i, j int) bool { return len(ops[i]) > len(ops[j]) })
	return ops
}()

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' }

// isIdentStart is str.isidentifier() of a first character.
func isIdentStart(r rune) bool { return unicode.IsLetter(r) || r == '_' || unicode.Is(unicode.Nl, r) }

// tokenize is Python 3.11's tokenize.generate_tokens over one line, as
// sympy's stringify_expr reads it (the input stripped): names, numbers,
// operators, a comment, ERRORTOKEN for a character nothing matches, then
// NEWLINE and ENDMARKER. A new line, a quote or a backslash (which Python
// tokenizes as strings and continuations) is an error here.
func tokenize(s string) ([]tok, error) {
	var out []tok
	i := 0
	for i < len(s) {
		if len(out) > maxTokens {
			return nil, errTooBig
		}
		c := s[i]
		if c == ' ' || c == '\t' || c == '\f' {
			i++
			continue
		}
		if c == '\n' || c == '\r' || c == '\'' || c == '"' || c == '\\' {
			return nil, errSyntax
		}
		if c == '#' {
			out = append(out, tok{tComment, s[i:]})
			break
		}
		if m := numberRE.FindString(s[i:]); m != "" && (c >= '0' && c <= '9' || c == '.' && m != ".") {
			out = append(out, tok{tNumber, m})
			i += len(m)
			continue
		}
		if op := matchOp(s[i:]); op != "" {
			out = append(out, tok{tOp, op})
			i += len(op)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWord(r) {
			j := i + size
			for j < len(s) {
				r2, n := utf8.DecodeRuneInString(s[j:])
				if !isWord(r2) {
					break
				}
				j += n
			}
			w := s[i:j]
			if isIdentStart(r) {
				out = append(out, tok{tName, w})
			} else {
				out = append(out, tok{tOp, w}) // \w+ that is no identifier: an OP
			}
			i = j
			continue
		}
		out = append(out, tok{tError, string(r)})
		i += size
	}
	return append(out, tok{tNewline, ""}, tok{tEnd, ""}), nil
}

func matchOp(s string) string {
	for _, op := range operators {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}
