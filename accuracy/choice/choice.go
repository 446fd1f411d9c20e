// Package choice parses and checks multiple-choice answers (GPQA: A–D,
// MMLU-Pro: A–J) as the MLPerf reasoning scorers do:
// mlcommons/inference language/deepseek-r1/eval_accuracy.py (ParseR1:
// the last "ANSWER: X" / "FINAL ANSWER: X" anywhere, MMLU-Pro falling back
// to the last standalone letter) and language/gpt-oss-120b/eval_accuracy.py
// (ParseHarmony: the Harmony final channel first — a letter at its start,
// then "Answer: X" — before the same patterns). The regular expressions
// are the references', run by a backtracking engine
// (github.com/dlclark/regexp2) with Python's \s and \b classes. Functions
// are safe for concurrent use.
package choice

import (
	"strings"
	"sync"
	"time"

	"github.com/dlclark/regexp2"

	"github.com/mlperf-go/inference/accuracy/harmony"
	"github.com/mlperf-go/inference/internal/pystr"
)

// Options are the valid letters of each data set's questions.
const (
	GPQA    = "ABCD"
	MMLUPro = "ABCDEFGHIJ"
)

const (
	wordBefore = `(?<!` + pystr.Word + `)` // \b before a word character
	wordAfter  = `(?!` + pystr.Word + `)`  // \b after one
	sp         = pystr.Space
)

type patterns struct {
	answer   *regexp2.Regexp // the deepseek-r1 ANSWER / FINAL ANSWER pattern
	letter   *regexp2.Regexp // \b([A-max])\b
	single   *regexp2.Regexp // gpt-oss: a letter at the start
	answerGO *regexp2.Regexp // gpt-oss: Answer[:.] X
}

var (
	mu    sync.Mutex
	cache = map[byte]*patterns{}
)

// timeout bounds one regular-expression search (a pathological output).
const timeout = 10 * time.Second

func compile(expr string) *regexp2.Regexp {
	re := regexp2.MustCompile(expr, regexp2.IgnoreCase)
	re.MatchTimeout = timeout
	return re
}

func pats(max byte) *patterns {
	mu.Lock()
	defer mu.Unlock()
	if p, ok := cache[max]; ok {
		return p
	}
	cls := "[A-" + string(max) + "]"
	p := &patterns{
		answer: compile(wordBefore + `(?:ANSWER|FINAL` + sp + `*ANSWER)` + wordAfter + sp + `*[:=]?` + sp + `*(?:\(?` + sp +
			`*(` + cls + `)` + sp + `*\)?)(?:` + sp + `*$|[^A-Za-z])`),
		letter:   compile(wordBefore + `(` + cls + `)` + wordAfter),
		single:   compile(`^[^a-zA-Z]*(` + cls + `)(?:[^a-zA-Z]|$)`),
		answerGO: compile(wordBefore + `(?:Answer|ANSWER)` + sp + `*[:.]?` + sp + `*(` + cls + `)` + wordAfter),
	}
	cache[max] = p
	return p
}

// last returns group 1 of the last of re's non-overlapping matches.
func last(re *regexp2.Regexp, s string) (string, bool) {
	m, err := re.FindStringMatch(s)
	var g string
	found := false
	for err == nil && m != nil {
		g, found = m.GroupByNumber(1).String(), true
		m, err = re.FindNextMatch(m)
	}
	return g, found && err == nil
}

func first(re *regexp2.Regexp, s string) (string, bool) {
	m, err := re.FindStringMatch(s)
	if err != nil || m == nil {
		return "", false
	}
	return m.GroupByNumber(1).String(), true
}

// unwrap removes the ['...'] a list-printed output carries and makes
// literal \n and \' what they stand for.
func unwrap(s string) string {
	if (strings.HasPrefix(s, "['") || strings.HasPrefix(s, `["`)) && (strings.HasSuffix(s, "']") || strings.HasSuffix(s, `"]`)) {
		if len(s) >= 4 {
			s = pystr.Strip(s[2 : len(s)-2])
		} else {
			s = "" // s[2:-2] of "[']"
		}
	}
	return unescape(s)
}

func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\n`, "\n"), `\'`, "'")
}

// ParseR1 is deepseek-r1's parse_multiple_choice(text, max): the upper-case
// letter, ok false for None.
func ParseR1(text string, max byte) (string, bool) {
	text = pystr.Strip(text)
	if text == "" {
		return "", false
	}
	text = unwrap(text)
	p := pats(max)
	if g, ok := last(p.answer, text); ok {
		return pystr.Upper(g), true
	}
	if max == 'J' {
		if g, ok := last(p.letter, text); ok {
			return pystr.Upper(g), true
		}
	}
	return "", false
}

// ParseHarmony is gpt-oss-120b's parse_multiple_choice(text, max).
func ParseHarmony(text string, max byte) (string, bool) {
	text = pystr.Strip(text)
	if text == "" {
		return "", false
	}
	final := harmony.StripBold(harmony.FinalSection(text))
	final = unwrap(final)
	p := pats(max)
	if g, ok := first(p.single, pystr.Strip(final)); ok {
		return pystr.Upper(g), true
	}
	if g, ok := first(p.answerGO, final); ok {
		return pystr.Upper(g), true
	}
	if g, ok := last(p.answer, unescape(text)); ok {
		return pystr.Upper(g), true
	}
	if max == 'J' {
		if g, ok := last(p.letter, final); ok {
			return pystr.Upper(g), true
		}
	}
	return "", false
}

// Correct is evaluate_multiple_choice: the parsed letter (ok false for
// None) is one of options and equals the ground truth, both upper-cased.
func Correct(parsed string, ok bool, truth, options string) bool {
	if !ok || parsed == "" || truth == "" {
		return false
	}
	p, t := pystr.Upper(parsed), pystr.Upper(truth)
	return strings.Contains(options, p) && p == t
}
