// Package sympyeq decides, for the MATH grader of openai/prm800k
// (grading/grader.py, are_equal_under_sympy), whether
//
//	sympy.simplify(parse_expr(expr.replace("^", "**"),
//	    transformations=standard_transformations + (implicit_multiplication_application,))) == 0
//
// holds for an expression the grader lets through (at most two distinct
// letters, no "^{" or multi-digit exponents). It does not port SymPy: it
// ports what SymPy does to the text — Python's tokenizer and the
// parse_expr transformations token for token (tokenize.go,
// transform.go), Python's expression grammar over SymPy's constructors
// (eval.go) — and then decides the zero test:
//
//   - numbers without symbols exactly, in the form SymPy itself keeps
//     them (lin.go): rationals, Floats at their precision, radicals of
//     integers, I and pi, where a Float meets a Rational as SymPy's Add
//     and Mul make them meet;
//   - expressions with symbols, and numbers lin cannot hold (inverses of
//     sums, nested radicals, logarithms), numerically (numeric.go),
//     trusting that simplify proves what is identically 0 — it denests
//     radicals, expands logarithms, rationalises denominators and
//     cancels rational functions — and nothing else.
//
// It is a decision procedure for the answers MATH-style graders meet, not
// a CAS; the package tests hold it against SymPy on every comparison the
// reference grader made over the recorded outputs, and the places it
// differs are listed there (a Float with more than 15 digits next to an
// irrational, an identity simplify fails to prove).
package sympyeq

import (
	"strings"

	"github.com/mlperf-go/inference/internal/pystr"
)

// Zero reports whether SymPy simplifies the expression to 0. The error
// says why the expression could not be evaluated: errSyntax where Python
// raises (the grader then says "not equal"), errUnsupported for a SymPy
// name or construct outside this port, errTooBig for expressions too large
// to evaluate here.
func Zero(expr string) (bool, error) {
	toks, err := tokenize(pystr.Strip(strings.ReplaceAll(expr, "^", "**")))
	if err != nil {
		return false, err
	}
	toks, err = transform(toks)
	if err != nil {
		return false, err
	}
	e, err := evaluate(toks)
	if err != nil {
		return false, err
	}
	set := map[string]bool{}
	symbols(e, set)
	if len(set) == 0 && !hasUndef(e) {
		l, err := toLin(e)
		switch err {
		case nil:
			return len(l) == 0, nil
		case errUndefined:
			return false, nil
		case errUnsupported:
		default:
			return false, err
		}
	}
	z, err := numericZero(e)
	if err == errUndefined {
		return false, nil
	}
	return z, err
}
