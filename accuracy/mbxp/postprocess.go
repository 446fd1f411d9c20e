package mbxp

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// evaluate_mbxp.py's postprocess_golang patterns, in Go's syntax (RE2
// matches these as Python's re does: leftmost, greedy).
var (
	goMultiImport = regexp.MustCompile(`(?m)^import \(\n(.+)((?:\n.+)+)\n\)`)
	goLineImport  = regexp.MustCompile(`^import ".*"`) // no MULTILINE: the start of the text only
	goFuncMain    = regexp.MustCompile(`(?ms)^func main.*^}`)
)

// PostprocessGolang is evaluate_mbxp.py's postprocess_golang: every
// "package main" removed, then import blocks of two or more lines, an
// import line at the very start, and everything from a line starting
// "func main" to the last line starting "}".
func PostprocessGolang(code string) string {
	code = strings.ReplaceAll(code, "package main", "")
	code = goMultiImport.ReplaceAllLiteralString(code, "")
	code = goLineImport.ReplaceAllLiteralString(code, "")
	return goFuncMain.ReplaceAllLiteralString(code, "")
}

// PostprocessScala is evaluate_mbxp.py's postprocess_scala: every "object
// Main extends App {" removed, then the last line (as Python's
// splitlines(True) splits lines) dropped.
func PostprocessScala(code string) string {
	code = strings.ReplaceAll(code, "object Main extends App {", "")
	lines := pySplitLines(code)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines[:len(lines)-1], "")
}

// PostprocessPython is evaluate_mbxp.py's postprocess_python: leading
// whitespace (Python's str.isspace) removed.
func PostprocessPython(code string) string {
	return strings.TrimLeftFunc(code, pyIsSpace)
}

// Solution is what evaluate_mbxp.py's worker makes of a response in lang
// before checking it: the text before the first ``` (all of it when there
// is none), postprocessed for go, python and scala, with every `\_`
// replaced by `_`.
func Solution(lang, response string) string {
	s := response
	if i := strings.Index(s, "```"); i >= 0 {
		s = s[:i]
	}
	switch lang {
	case "go":
		s = PostprocessGolang(s)
	case "python":
		s = PostprocessPython(s)
	case "scala":
		s = PostprocessScala(s)
	}
	return strings.ReplaceAll(s, `\_`, "_")
}

// pyIsSpace is Python's str.isspace for one character: Unicode white
// space, and the separators U+001C..U+001F.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// pySplitLines is Python's str.splitlines(keepends=True): lines end at
// \n, \r, \r\n, \v, \f, U+001C..U+001E, U+0085, U+2028 and U+2029.
func pySplitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		end := i + n
		switch r {
		case '\r':
			if end < len(s) && s[end] == '\n' {
				end++
			}
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		default:
			i = end
			continue
		}
		out = append(out, s[start:end])
		start, i = end, end
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
