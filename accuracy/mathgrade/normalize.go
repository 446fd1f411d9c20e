package mathgrade

import (
	"errors"
	"math"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-go/inference/accuracy/latextext"
	"github.com/mlperf-go/inference/internal/pystr"
)

// errPy stands for a Python exception the reference catches.
var errPy = errors.New("mathgrade: python exception")

// textEnclosed matches ^\\text\{(?P<text>.+?)\}$: the lazy group, `.`
// without new lines, and $ at the end or before a final new line.
func textEnclosed(s string) (string, bool) {
	const pre = `\text{`
	if !strings.HasPrefix(s, pre) {
		return "", false
	}
	rest := s[len(pre):]
	// the lazy .+? takes the shortest content followed by "}" and the end
	for i := 1; i <= len(rest)-1; i++ {
		if !utf8.RuneStart(rest[i]) {
			continue
		}
		if strings.ContainsRune(rest[:i], '\n') {
			return "", false
		}
		if rest[i] == '}' && (i+1 == len(rest) || i+2 == len(rest) && rest[i+1] == '\n') {
			return rest[:i], true
		}
	}
	return "", false
}

// NormalizeMathd is prm800k's math_normalize.normalize_answer (after
// Hendrycks' MATH math_equivalence): strip, unwrap \text{...}, then
// _strip_string (spaces, \left and \right, \frac and \sqrt braces, units,
// degrees, a short "x =" prefix, "a/b" to \frac{a}{b}); where _strip_string
// raises, the answer as it was before it.
func NormalizeMathd(answer string) string {
	answer = pystr.Strip(answer)
	if t, ok := textEnclosed(answer); ok {
		answer = pystr.Strip(t)
	}
	s, err := stripString(answer)
	if err != nil {
		return answer
	}
	return s
}

func stripString(s string) (string, error) {
	s = strings.ReplaceAll(s, "\n", "")
	s = strings.ReplaceAll(s, `\!`, "")
	s = strings.ReplaceAll(s, `\\`, `\`)
	s = strings.ReplaceAll(s, "tfrac", "frac")
	s = strings.ReplaceAll(s, "dfrac", "frac")
	s = strings.ReplaceAll(s, `\left`, "")
	s = strings.ReplaceAll(s, `\right`, "")
	s = strings.ReplaceAll(s, `^{\circ}`, "")
	s = strings.ReplaceAll(s, `^\circ`, "")
	s = strings.ReplaceAll(s, `\$`, "")
	// _remove_right_units
	if strings.Contains(s, `\text{ `) {
		parts := strings.Split(s, `\text{ `)
		if len(parts) != 2 {
			return "", errPy // AssertionError
		}
		s = parts[0]
	}
	s = strings.ReplaceAll(s, `\%`, "")
	s = strings.ReplaceAll(s, " .", " 0.")
	s = strings.ReplaceAll(s, "{.", "{0.")
	if len(s) == 0 {
		return s, nil
	}
	if s[0] == '.' {
		s = "0" + s
	}
	if parts := strings.Split(s, "="); len(parts) == 2 && utf8.RuneCountInString(parts[0]) <= 2 {
		s = parts[1]
	}
	var err error
	if s, err = fixSqrt(s); err != nil {
		return "", err
	}
	s = strings.ReplaceAll(s, " ", "")
	if s, err = fixFracs(s); err != nil {
		return "", err
	}
	if s == "0.5" {
		s = `\frac{1}{2}`
	}
	return fixASlashB(s), nil
}

// fixSqrt: \sqrt3 → \sqrt{3} (an IndexError on a \sqrt at the end).
func fixSqrt(s string) (string, error) {
	if !strings.Contains(s, `\sqrt`) {
		return s, nil
	}
	parts := strings.Split(s, `\sqrt`)
	var sb strings.Builder
	sb.WriteString(parts[0])
	for _, p := range parts[1:] {
		r, size := utf8.DecodeRuneInString(p)
		if size == 0 {
			return "", errPy
		}
		if r != '{' {
			sb.WriteString(`\sqrt{` + string(r) + "}" + p[size:])
		} else {
			sb.WriteString(`\sqrt` + p)
		}
	}
	return sb.String(), nil
}

// fixFracs: \frac12 → \frac{1}{2}, \frac1{72} → \frac{1}{72}; a \frac
// followed by nothing raises, one followed by a single character leaves
// the whole string as it was.
func fixFracs(s string) (string, error) {
	parts := strings.Split(s, `\frac`)
	var sb strings.Builder
	sb.WriteString(parts[0])
	for _, p := range parts[1:] {
		sb.WriteString(`\frac`)
		rs := []rune(p)
		if len(rs) == 0 {
			return "", errPy
		}
		if rs[0] == '{' {
			sb.WriteString(p)
			continue
		}
		if len(rs) < 2 {
			return s, nil
		}
		a, b := string(rs[0]), string(rs[1])
		post := string(rs[2:])
		if b != "{" {
			sb.WriteString("{" + a + "}{" + b + "}" + post)
		} else {
			sb.WriteString("{" + a + "}" + b + post)
		}
	}
	return sb.String(), nil
}

// canonicalInt reports whether s is str(int(s)) for an int() that
// parses: what _fix_a_slash_b's assert leaves through.
var canonicalInt = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`)

// fixASlashB: "a/b" of two canonical integers → \frac{a}{b}.
func fixASlashB(s string) string {
	parts := strings.Split(s, "/")
	if len(parts) != 2 {
		return s
	}
	a, b := parts[0], parts[1]
	if !canonicalInt.MatchString(a) || !canonicalInt.MatchString(b) || a == "-0" || b == "-0" {
		return s
	}
	return `\frac{` + a + "}{" + b + "}"
}

// units are the words _normalize removes with an optional plural and
// power.
var units = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, u := range []string{"degree", "cm", "centimeter", "meter", "mile", "second", "minute", "hour", "day", "week",
		"month", "year", "foot", "feet", "inch", "yard"} {
		out = append(out, regexp.MustCompile(u+`(es)?(s)? *(\^[0-9]+)?`))
	}
	return out
}()

var (
	circRE        = regexp.MustCompile(`\^ *\\circ`)
	thinCommaRE   = regexp.MustCompile(`,\\! *`)
	dashRE        = regexp.MustCompile(`- *`)
	mixedNumberRE = regexp.MustCompile(`([0-9]) +([0-9])`)
	// (\d)(,)(\d\d\d)($|\D) with Python's Unicode \d
	commaRE = regexp.MustCompile(`(\p{Nd})(,)(\p{Nd}\p{Nd}\p{Nd})($|\P{Nd})`)
)

// Normalize is prm800k's grader._normalize: \text{} unwrapped, $ and %
// removed, "or"/"and" made commas, million/billion/trillion spelt as
// powers of ten, units and degrees removed, outer braces dropped, a float
// that is an integer written as one, LaTeX converted to text
// (latextext, after \tfrac and \dfrac become \frac; kept as it was where
// the conversion raises), spaces and braces removed, lower case, and an
// integer written without commas.
func Normalize(expr string) string {
	if t, ok := textEnclosed(expr); ok {
		expr = t
	}
	r := strings.NewReplacer(`\%`, "%", `\$`, "$")
	expr = r.Replace(expr)
	expr = strings.ReplaceAll(expr, "$", "")
	expr = strings.ReplaceAll(expr, "%", "")
	expr = strings.ReplaceAll(expr, " or ", " , ")
	expr = strings.ReplaceAll(expr, " and ", " , ")
	expr = strings.ReplaceAll(expr, "million", "*10^6")
	expr = strings.ReplaceAll(expr, "billion", "*10^9")
	expr = strings.ReplaceAll(expr, "trillion", "*10^12")
	for _, u := range units {
		expr = u.ReplaceAllString(expr, "")
	}
	expr = circRE.ReplaceAllString(expr, "")
	if len(expr) > 0 && expr[0] == '{' && expr[len(expr)-1] == '}' {
		expr = expr[1 : len(expr)-1]
	}
	expr = thinCommaRE.ReplaceAllString(expr, "")
	if f, ok := pystr.Float(expr); ok && isInt(f) {
		expr = roundToInt(f).String()
	}
	if strings.Contains(expr, `\`) {
		if t, err := parseLatex(expr); err == nil {
			expr = t
		}
	}
	expr = dashRE.ReplaceAllString(expr, "-")
	expr = mixedNumberRE.ReplaceAllString(expr, "$1+$2")
	expr = strings.ReplaceAll(expr, " ", "")
	expr = strings.ReplaceAll(expr, "{", "")
	expr = strings.ReplaceAll(expr, "}", "")
	expr = pystr.Lower(expr)
	if strIsInt(expr) {
		if v, ok := strToInt(expr); ok {
			expr = v.String()
		}
	}
	return expr
}

// parseLatex is _parse_latex.
func parseLatex(expr string) (string, error) {
	expr = strings.ReplaceAll(expr, `\tfrac`, `\frac`)
	expr = strings.ReplaceAll(expr, `\dfrac`, `\frac`)
	expr = strings.ReplaceAll(expr, `\frac`, ` \frac`)
	t, err := latextext.ToText(expr)
	if err != nil {
		return "", err
	}
	t = strings.NewReplacer("√", "sqrt", "π", "pi", "∞", "inf", "∪", "U", "·", "*", "×", "*").Replace(t)
	return pystr.Strip(t), nil
}

// isInt is _is_int: within 1e-7 of int(round(x)) (False for inf, nan).
func isInt(x float64) bool {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return false
	}
	r, _ := roundToInt(x).Float64()
	return math.Abs(x-r) <= 1e-7
}

// roundToInt is int(round(x)) for a finite float: half to even.
func roundToInt(x float64) *big.Int {
	v, _ := new(big.Float).SetFloat64(math.RoundToEven(x)).Int(nil)
	return v
}

// stripCommas is _strip_properly_formatted_commas: "1,000" → "1000",
// repeated until nothing changes.
func stripCommas(expr string) string {
	for {
		next := commaRE.ReplaceAllString(expr, "$1$3$4")
		if next == expr {
			return next
		}
		expr = next
	}
}

// strIsInt is _str_is_int.
func strIsInt(x string) bool {
	f, ok := pystr.Float(stripCommas(x))
	return ok && isInt(f)
}

// strToInt is _str_to_int: every comma removed, float(), then int()
// truncates; ok is false where Python raises.
func strToInt(x string) (*big.Int, bool) {
	f, ok := pystr.Float(strings.ReplaceAll(x, ",", ""))
	if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	v, _ := new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
	return v, true
}
