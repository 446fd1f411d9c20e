// Package gsm8k scores GSM8K answers by exact match as
// mlcommons/inference language/mixtral-8x7b/evaluate-accuracy.py does for
// Mixtral-8x7B: the number is extracted from the text before the first
// "\nQ:" (find_number: the first number after the last "The answer is",
// else the last number), its commas removed, and compared as a Python
// float with the reference answer. Functions are pure and safe for
// concurrent use.
package gsm8k

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mlperf-go/inference/internal/pystr"
)

// AnswerDelimiter is find_number's default answer_delimiter.
const AnswerDelimiter = "The answer is"

// numberRE is find_numbers' pattern -?[\d,]*\.?\d+, where Python's \d is
// any Unicode decimal digit.
var numberRE = regexp.MustCompile(`-?[\p{Nd},]*\.?\p{Nd}+`)

// FindNumbers is find_numbers: every number in s, possibly negative, with
// thousands commas and a decimal point, left to right.
func FindNumbers(s string) []string { return numberRE.FindAllString(s, -1) }

// FindNumber is find_number: when s contains delimiter, the first number
// after its last occurrence, if any; else the last number of s; "" when
// there is none.
func FindNumber(s, delimiter string) string {
	if i := strings.LastIndex(s, delimiter); i >= 0 {
		if n := numberRE.FindString(s[i+len(delimiter):]); n != "" {
			return n
		}
	}
	all := FindNumbers(s)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1]
}

// Extract is the prediction evaluate-accuracy.py makes of one decoded
// output: maybe_remove_comma(find_number(output.split("\nQ:")[0])).
func Extract(output string) string {
	if i := strings.Index(output, "\nQ:"); i >= 0 {
		output = output[:i]
	}
	return strings.ReplaceAll(FindNumber(output, AnswerDelimiter), ",", "")
}

// Correct is one GSM8K verdict: try_float(target) == try_float(Extract(output)),
// false when the prediction is not a number.
func Correct(output, target string) bool {
	p, ok := PyFloat(Extract(output))
	if !ok {
		return false
	}
	r, ok := PyFloat(target)
	return ok && r == p
}

// Result is the GSM8K score.
type Result struct {
	Correct, Total int
	// Accuracy is 100.0 * Correct / Total, as the reference computes it
	// (printed with Python's repr of a float).
	Accuracy float64
}

// Score scores outputs against targets (the data set's gt_output).
func Score(outputs, targets []string) (Result, error) {
	if len(outputs) != len(targets) {
		return Result{}, fmt.Errorf("gsm8k: %d outputs for %d targets", len(outputs), len(targets))
	}
	if len(outputs) == 0 {
		return Result{}, fmt.Errorf("gsm8k: no outputs to score (the reference divides by zero)")
	}
	r := Result{Total: len(outputs)}
	for i := range outputs {
		if Correct(outputs[i], targets[i]) {
			r.Correct++
		}
	}
	r.Accuracy = 100.0 * float64(r.Correct) / float64(r.Total)
	return r, nil
}

// PyFloat is Python's float(s) as try_float uses it: surrounding white
// space ignored, any Unicode decimal digits, underscores between digits,
// inf, infinity and nan; ok is false where float() raises.
func PyFloat(s string) (v float64, ok bool) { return pystr.Float(s) }
