package lcb

import (
	"regexp"

	"github.com/mlperf-go/inference/accuracy/harmony"
	"github.com/mlperf-go/inference/internal/pystr"
)

var (
	pythonBlock = regexp.MustCompile("(?s)```python(.*?)```")
	anyBlock    = regexp.MustCompile("(?s)```(.*?)```")
	langTag     = regexp.MustCompile(`(?i)^(?:python|py)[\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]*\n`)
)

// ParseR1 is deepseek-r1's parse_code: the first ```python block,
// stripped; ok is false where there is none.
func ParseR1(text string) (string, bool) {
	text = pystr.Strip(text)
	if text == "" {
		return "", false
	}
	m := pythonBlock.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return pystr.Strip(m[1]), true
}

func lastMatch(re *regexp.Regexp, s string) (string, bool) {
	all := re.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return "", false
	}
	return all[len(all)-1][1], true
}

// plain strips a plain block and a python or py tag on its first line.
func plain(code string) string {
	return langTag.ReplaceAllString(pystr.Strip(code), "")
}

// ParseHarmony is gpt-oss-120b's parse_code: where the output has a
// Harmony final channel, the last ```python block in it, else its last
// ``` block (a python or py tag on the first line dropped); failing that,
// the same two searches over the whole text.
func ParseHarmony(text string) (string, bool) {
	text = pystr.Strip(text)
	if text == "" {
		return "", false
	}
	final := harmony.FinalSection(text)
	if final != text {
		if m, ok := lastMatch(pythonBlock, final); ok {
			return pystr.Strip(m), true
		}
		if m, ok := lastMatch(anyBlock, final); ok {
			return plain(m), true
		}
	}
	if m, ok := lastMatch(pythonBlock, text); ok {
		return pystr.Strip(m), true
	}
	if m, ok := lastMatch(anyBlock, text); ok {
		return plain(m), true
	}
	return "", false
}
