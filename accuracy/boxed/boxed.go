// Package boxed extracts final answers from reasoning-model outputs as the
// MLPerf reasoning scorers do (mlcommons/inference
// language/deepseek-r1/eval_accuracy.py and gpt-oss-120b/eval_accuracy.py,
// which agree here): Boxed is parse_boxed_math, the contents of the last
// \boxed{...} with its braces balanced (MATH-500); AIME is
// parse_aime_answer, an integer 0–999 from the last \boxed{digits}, else
// the last "Answer: digits"; AIMECorrect is evaluate_aime. Functions are
// safe for concurrent use.
package boxed

import (
	"math/big"
	"strings"
	"time"

	"github.com/dlclark/regexp2"

	"github.com/mlperf-go/inference/internal/pystr"
)

const boxedOpen = `\boxed{`

// Boxed is parse_boxed_math: the stripped contents of the last "\boxed{"
// up to its matching brace; ok is false where there is no \boxed{ or it
// is never closed (a truncated output).
func Boxed(text string) (string, bool) {
	text = pystr.Strip(text)
	if text == "" {
		return "", false
	}
	i := strings.LastIndex(text, boxedOpen)
	if i < 0 {
		return "", false
	}
	start := i + len(boxedOpen)
	depth := 0
	for j := start; j < len(text); j++ {
		switch text[j] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return pystr.Strip(text[start:j]), true
			}
			depth--
		}
	}
	return "", false
}

const (
	d  = pystr.Digit
	sp = pystr.Space
)

var (
	// \\boxed{\s*(\d+)\s*}
	boxedInt = mustCompile(`\\boxed\{`+sp+`*(`+d+`+)`+sp+`*\}`, 0)
	// Answer:\s*(\d+)(?!\.)\b with IGNORECASE | MULTILINE; the \b follows a
	// digit, so it is "no word character next"
	answerInt = mustCompile(`Answer:`+sp+`*(`+d+`+)(?!\.)(?!`+pystr.Word+`)`, regexp2.IgnoreCase|regexp2.Multiline)
)

func mustCompile(expr string, opt regexp2.RegexOptions) *regexp2.Regexp {
	re := regexp2.MustCompile(expr, opt)
	re.MatchTimeout = 10 * time.Second
	return re
}

func lastGroup(re *regexp2.Regexp, s string) (string, bool) {
	m, err := re.FindStringMatch(s)
	g, found := "", false
	for err == nil && m != nil {
		g, found = m.GroupByNumber(1).String(), true
		m, err = re.FindNextMatch(m)
	}
	return g, found && err == nil
}

// AIME is parse_aime_answer: the integer of the last \boxed{digits}, else
// of the last "Answer: digits" (not followed by a decimal point); ok is
// false where there is none or it is outside 0–999.
func AIME(text string) (int, bool) {
	text = pystr.Strip(text)
	if text == "" {
		return 0, false
	}
	s, ok := lastGroup(boxedInt, text)
	if !ok {
		if s, ok = lastGroup(answerInt, text); !ok {
			return 0, false
		}
	}
	v, ok := pystr.Int(s)
	if !ok || v.Sign() < 0 || v.Cmp(big.NewInt(999)) > 0 {
		return 0, false
	}
	return int(v.Int64()), true
}

// AIMECorrect is evaluate_aime: a parsed answer (ok false for None) equal
// to int(ground truth); a ground truth int() cannot read is never matched.
func AIMECorrect(parsed int, ok bool, truth string) bool {
	if !ok {
		return false
	}
	t, tok := pystr.Int(truth)
	return tok && t.Cmp(big.NewInt(int64(parsed))) == 0
}
