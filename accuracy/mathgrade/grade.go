package mathgrade

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-go/inference/accuracy/sympyeq"
	"github.com/mlperf-go/inference/internal/pystr"
)

// Grade is prm800k's grade_answer(given_answer, ground_truth): true when
// the two normalize to the same string under math_normalize
// (NormalizeMathd) or the grader's own normalizer (Normalize), or, element
// by element for tuples and intervals, when sympy simplifies their
// difference to 0 (sympyeq.Equal) — except that unreduced fractions must
// match exactly and an integer answer admits no simplification. The
// MLPerf MATH-500 scorer (mlcommons/inference language/deepseek-r1 and
// gpt-oss-120b eval_accuracy.py, evaluate_math500) calls it on the boxed
// answer and the ground truth.
func Grade(given, truth string) bool {
	if NormalizeMathd(truth) == NormalizeMathd(given) {
		return true
	}
	gt, gv := Normalize(truth), Normalize(given)
	if gt == gv {
		return true
	}
	if len(gv) == 0 {
		return false
	}
	gtElems, gvElems := splitTuple(gt), splitTuple(gv)
	if len(gtElems) > 1 && (firstRune(gt) != firstRune(gv) || lastRune(gt) != lastRune(gv)) {
		return false
	}
	if len(gtElems) != len(gvElems) {
		return false
	}
	ok := false // grade_answer's is_correct (unset for zero elements: an UnboundLocalError, never reached)
	for i := range gtElems {
		a, b := gtElems[i], gvElems[i]
		switch {
		case isFrac(a) && isFrac(b):
			ok = a == b
		case strIsInt(a) != strIsInt(b):
			ok = false
		default:
			ok = EqualUnderSympy(a, b)
		}
		if !ok {
			break
		}
	}
	return ok
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

const tupleChars = "()[]"

// splitTuple is split_tuple: the elements of a bracketed, comma-separated
// tuple or interval (no brackets inside), else the whole expression.
func splitTuple(expr string) []string {
	expr = stripCommas(expr)
	if len(expr) == 0 {
		return nil
	}
	rs := []rune(expr)
	if len(rs) > 2 && strings.ContainsRune(tupleChars, rs[0]) && strings.ContainsRune(tupleChars, rs[len(rs)-1]) &&
		!strings.ContainsAny(string(rs[1:len(rs)-1]), tupleChars) {
		var out []string
		for _, e := range strings.Split(string(rs[1:len(rs)-1]), ",") {
			out = append(out, pystr.Strip(e))
		}
		return out
	}
	return []string{expr}
}

// fracRE is ^-?[0-9]+.?/0*[1-9][0-9]*.?$ (`.` any character but a new
// line, $ also before a final new line).
var fracRE = regexp.MustCompile(`^-?[0-9]+[^\n]?/0*[1-9][0-9]*[^\n]?\n?$`)

// isFrac is _is_frac.
func isFrac(expr string) bool { return fracRE.MatchString(expr) }

var badRegexes = []*regexp.Regexp{regexp.MustCompile(`\^[0-9]+\^`), regexp.MustCompile(`\^[0-9][0-9]+`)}

// allowEval is should_allow_eval: at most two distinct letters (after
// "sqrt" and "frac" are removed), no "^{" or "^(", no stacked or
// multi-digit exponents (sympy might hang).
func allowEval(expr string) bool {
	e := strings.ReplaceAll(strings.ReplaceAll(expr, "sqrt", ""), "frac", "")
	letters := map[rune]bool{}
	for _, r := range e {
		if pystr.IsAlpha(r) {
			letters[r] = true
		}
	}
	if len(letters) > 2 {
		return false
	}
	if strings.Contains(expr, "^{") || strings.Contains(expr, "^(") {
		return false
	}
	for _, re := range badRegexes {
		if re.MatchString(expr) {
			return false
		}
	}
	return true
}

// EqualUnderSympy is are_equal_under_sympy(ground_truth, given): the
// expression "(truth)-(given)", when should_allow_eval lets it through,
// parsed as sympy's parse_expr does with the implicit multiplication and
// application transformations, and simplified; true when that is 0.
// sympyeq says how far its decision matches sympy's.
func EqualUnderSympy(truth, given string) bool {
	expr := "(" + truth + ")-(" + given + ")"
	if !allowEval(expr) {
		return false
	}
	eq, err := sympyeq.Zero(expr)
	return err == nil && eq
}
