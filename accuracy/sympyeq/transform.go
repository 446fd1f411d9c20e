package sympyeq

import (
	"strings"
	"unicode"
)

// The transformations of sympy's parse_expr with standard_transformations
// + (implicit_multiplication_application,) (sympy/parsing/sympy_parser.py):
// auto_symbol, repeated_decimals, auto_number, factorial_notation, then
// split_symbols, implicit_multiplication, implicit_application and
// function_exponentiation, over (type, string) tokens. lambda_notation is
// not ported: "lambda" has too many letters for the MATH grader to let it
// through.

var pyKeywords = map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true,
	"in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true,
	"return": true, "try": true, "while": true, "with": true, "yield": true}

// constructors are the names the transformations write; all callable.
var constructors = map[string]bool{"Symbol": true, "Function": true, "Integer": true, "Float": true, "Rational": true,
	"Number": true, "factorial": true, "factorial2": true}

// inGlobals is `name in global_dict`.
func inGlobals(name string) bool {
	return callableNames[name] || valueNames[name] || otherNames[name] || constructors[name] || name == "I"
}

// isCallable is _token_callable.
func isCallable(name string) bool { return callableNames[name] || constructors[name] }

func pyRepr(s string) string { return "'" + s + "'" }

func autoSymbol(tokens []tok) []tok {
	var out []tok
	prev := tok{kind: -1}
	tokens = append(tokens, tok{kind: -1})
	for i := 0; i+1 < len(tokens); i++ {
		t, next := tokens[i], tokens[i+1]
		if t.kind == tName {
			name := t.val
			if pyKeywords[name] || prev.is(tOp, ".") ||
				(prev.kind == tOp && (prev.val == "(" || prev.val == ",") && next.is(tOp, "=")) {
				out = append(out, t)
				continue
			}
			if inGlobals(name) && !otherNames[name] {
				out = append(out, t)
				continue
			}
			ctor := "Symbol"
			if next.val == "(" {
				ctor = "Function"
			}
			out = append(out, tok{tName, ctor}, tok{tOp, "("}, tok{tName, pyRepr(name)}, tok{tOp, ")"})
		} else {
			out = append(out, t)
		}
		prev = t
	}
	return out
}

func isDigits(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789_", r) {
			return false
		}
	}
	return true
}

func repeatedDecimals(tokens []tok) []tok {
	var out, num []tok
	for _, t := range tokens {
		switch t.kind {
		case tNumber:
			low := strings.ToLower(t.val)
			if len(num) == 0 && strings.Contains(t.val, ".") && !strings.Contains(low, "e") && !strings.Contains(low, "j") {
				num = append(num, t)
			} else if isDigits(t.val) && (len(num) == 2 || len(num) == 3 && isDigits(num[len(num)-1].val)) {
				num = append(num, t)
			} else {
				num = nil
			}
		case tOp:
			switch {
			case t.val == "[" && len(num) == 1:
				num = append(num, t)
			case t.val == "]" && len(num) >= 3:
				num = append(num, t)
			case t.val == "." && len(num) == 0:
				num = append(num, tok{tNumber, "0."})
			default:
				num = nil
			}
		default:
			num = nil
		}
		out = append(out, t)
		if len(num) > 0 && num[len(num)-1].val == "]" {
			out = out[:len(out)-len(num)]
			pre, post, _ := strings.Cut(num[0].val, ".")
			rep := num[2].val
			if len(num) == 5 {
				rep += num[3].val
			}
			pre = strings.ReplaceAll(pre, "_", "")
			post = strings.ReplaceAll(post, "_", "")
			rep = strings.ReplaceAll(rep, "_", "")
			zeros := strings.Repeat("0", len(post))
			a := pre
			if a == "" {
				a = "0"
			}
			b := strings.TrimLeft(post, "0")
			if b == "" {
				b = "0"
			}
			d := strings.TrimLeft(rep, "0")
			c, e := "1"+zeros, strings.Repeat("9", len(rep))+zeros
			out = append(out,
				tok{tOp, "("}, tok{tName, "Integer"}, tok{tOp, "("}, tok{tNumber, a}, tok{tOp, ")"}, tok{tOp, "+"},
				tok{tName, "Rational"}, tok{tOp, "("}, tok{tNumber, b}, tok{tOp, ","}, tok{tNumber, c}, tok{tOp, ")"}, tok{tOp, "+"},
				tok{tName, "Rational"}, tok{tOp, "("}, tok{tNumber, d}, tok{tOp, ","}, tok{tNumber, e}, tok{tOp, ")"}, tok{tOp, ")"})
			num = nil
		}
	}
	return out
}

func autoNumber(tokens []tok) []tok {
	var out []tok
	for _, t := range tokens {
		if t.kind != tNumber {
			out = append(out, t)
			continue
		}
		number := t.val
		var post []tok
		if strings.HasSuffix(number, "j") || strings.HasSuffix(number, "J") {
			number = number[:len(number)-1]
			post = []tok{{tOp, "*"}, {tName, "I"}}
		}
		low := strings.ToLower(number)
		if strings.Contains(number, ".") || (strings.Contains(low, "e") && !strings.HasPrefix(low, "0x")) {
			out = append(out, tok{tName, "Float"}, tok{tOp, "("}, tok{tNumber, pyRepr(number)}, tok{tOp, ")"})
		} else {
			out = append(out, tok{tName, "Integer"}, tok{tOp, "("}, tok{tNumber, number}, tok{tOp, ")"})
		}
		out = append(out, post...)
	}
	return out
}

// addFactorial is _add_factorial_tokens: wrap the last operand in name(...).
func addFactorial(name string, result []tok) ([]tok, error) {
	if len(result) == 0 || result[len(result)-1].val == "(" {
		return nil, errSyntax
	}
	diff := 0
	for i := len(result) - 1; i >= 0; i-- {
		switch result[i].val {
		case ")":
			diff++
		case "(":
			diff--
		}
		if diff == 0 {
			var out []tok
			if i-1 >= 0 && result[i-1].kind == tName {
				out = append(out, result[:i-1]...)
				out = append(out, tok{tName, name}, tok{tOp, "("})
				out = append(out, result[i-1:]...)
			} else {
				out = append(out, result[:i]...)
				out = append(out, tok{tName, name}, tok{tOp, "("})
				out = append(out, result[i:]...)
			}
			return append(out, tok{tOp, ")"}), nil
		}
	}
	return result, nil
}

func factorialNotation(tokens []tok) ([]tok, error) {
	var out []tok
	n := 0
	var err error
	for _, t := range tokens {
		switch {
		case t.is(tOp, "!") || t.is(tError, "!"):
			n++
		case t.kind == tError:
			n = 0
			out = append(out, tok{tOp, t.val})
		default:
			switch {
			case n == 1:
				out, err = addFactorial("factorial", out)
			case n == 2:
				out, err = addFactorial("factorial2", out)
			case n > 2:
				err = errSyntax
			}
			if err != nil {
				return nil, err
			}
			n = 0
			out = append(out, t)
		}
	}
	return out, nil
}

// splittable is _token_splittable.
func splittable(name string) bool {
	if strings.Contains(name, "_") {
		return false
	}
	if greekLetters[name] {
		return false
	}
	return len([]rune(name)) > 1
}

// greekLetters are the names unicodedata.lookup('GREEK SMALL LETTER ' + name) finds.
var greekLetters = map[string]bool{"alpha": true, "beta": true, "gamma": true, "delta": true, "epsilon": true,
	"zeta": true, "eta": true, "theta": true, "iota": true, "kappa": true, "lamda": true, "lambda": true, "mu": true,
	"nu": true, "xi": true, "omicron": true, "pi": true, "rho": true, "sigma": true, "tau": true, "upsilon": true,
	"phi": true, "chi": true, "psi": true, "omega": true, "final sigma": true, "digamma": true, "heta": true,
	"koppa": true, "sampi": true, "stigma": true, "archaic koppa": true, "archaic sampi": true, "pamphylian digamma": true,
	"yot": true, "san": true, "sho": true, "lunate sigma symbol": true}

func isPyDigit(r rune) bool {
	return unicode.IsDigit(r) || strings.ContainsRune("²³¹⁰⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉", r)
}

func splitSymbols(tokens []tok) []tok {
	var out []tok
	split, skipClose := false, false
	for _, t := range tokens {
		if skipClose {
			skipClose = false
			continue
		}
		if t.kind == tName && (t.val == "Symbol" || t.val == "Function") {
			split = true
		} else if split && t.kind == tName {
			symbol := []rune(t.val[1 : len(t.val)-1])
			if splittable(string(symbol)) {
				out = out[:len(out)-2] // the call to Symbol or Function
				for i := 0; i < len(symbol); i++ {
					ch := string(symbol[i])
					switch {
					case inGlobals(ch):
						out = append(out, tok{tName, ch})
					case isPyDigit(symbol[i]):
						chars := []rune{symbol[i]}
						j := i
						for k := i + 1; k < len(symbol); k++ {
							j = k
							if !isPyDigit(symbol[k]) {
								j = k - 1
								break
							}
							chars = append(chars, symbol[k])
						}
						i = j
						out = append(out, tok{tName, "Number"}, tok{tOp, "("}, tok{tName, pyRepr(string(chars))}, tok{tOp, ")"})
					default:
						out = append(out, tok{tName, "Symbol"}, tok{tOp, "("}, tok{tName, pyRepr(ch)}, tok{tOp, ")"})
					}
				}
				split, skipClose = false, true
				continue
			}
			split = false
		}
		out = append(out, t)
	}
	return out
}

// item is a token, a parenthesis group or an applied function, as
// _group_parentheses and _apply_functions build them.
type item struct {
	t     tok
	group []item // a ParenthesisGroup: "(" ... ")" tokens
	isGrp bool
	fn    *applied
}

type applied struct {
	function tok
	args     []item // the ParenthesisGroup, parentheses included
}

func tokItem(t tok) item { return item{t: t} }

func (it item) isTok(kind int, val string) bool {
	return it.fn == nil && !it.isGrp && it.t.is(kind, val)
}
func (it item) isName() bool { return it.fn == nil && !it.isGrp && it.t.kind == tName }

// groupParens is _group_parentheses(recursor).
func groupParens(tokens []tok, recursor func([]tok) ([]tok, error)) ([]item, error) {
	var result []item
	var stacks [][]tok
	for _, t := range tokens {
		if t.kind == tOp {
			if t.val == "(" {
				stacks = append(stacks, nil)
			} else if t.val == ")" {
				if len(stacks) == 0 {
					return nil, errSyntax // IndexError on stacks[-1]
				}
				stacks[len(stacks)-1] = append(stacks[len(stacks)-1], t)
				stack := stacks[len(stacks)-1]
				stacks = stacks[:len(stacks)-1]
				if len(stacks) > 0 {
					stacks[len(stacks)-1] = append(stacks[len(stacks)-1], stack...)
				} else {
					inner, err := recursor(stack[1 : len(stack)-1])
					if err != nil {
						return nil, err
					}
					g := []item{tokItem(stack[0])}
					for _, x := range inner {
						g = append(g, tokItem(x))
					}
					g = append(g, tokItem(stack[len(stack)-1]))
					result = append(result, item{group: g, isGrp: true})
				}
				continue
			}
		}
		if len(stacks) > 0 {
			stacks[len(stacks)-1] = append(stacks[len(stacks)-1], t)
		} else {
			result = append(result, tokItem(t))
		}
	}
	if len(stacks) > 0 {
		return nil, errSyntax // mismatched parentheses
	}
	return result, nil
}

// applyFunctions is _apply_functions.
func applyFunctions(items []item) []item {
	var result []item
	var symbol *tok
	for _, it := range items {
		switch {
		case it.isGrp:
			if symbol != nil && isCallable(symbol.val) {
				result[len(result)-1] = item{fn: &applied{function: *symbol, args: it.group}}
				symbol = nil
			} else {
				result = append(result, it.group...)
			}
		case it.isName():
			t := it.t
			symbol = &t
			result = append(result, it)
		default:
			symbol = nil
			result = append(result, it)
		}
	}
	return result
}

func implicitMultiplicationStep(items []item) []item {
	var result []item
	skip := false
	for i := 0; i+1 < len(items); i++ {
		t, next := items[i], items[i+1]
		result = append(result, t)
		if skip {
			skip = false
			continue
		}
		if t.isTok(tOp, ".") && next.isName() {
			skip = true
			continue
		}
		star := item{t: tok{tOp, "*"}}
		if t.fn != nil {
			switch {
			case next.fn != nil:
				result = append(result, star)
			case next.isTok(tOp, "("):
				if t.fn.function.val == "Function" {
					t.fn.function = tok{t.fn.function.kind, "Symbol"}
				}
				result = append(result, star)
			case next.isName():
				result = append(result, star)
			}
			continue
		}
		switch {
		case t.isTok(tOp, ")"):
			if next.fn != nil || next.isName() || next.isTok(tOp, "(") {
				result = append(result, star)
			}
		case t.isName() && !isCallable(t.t.val):
			switch {
			case next.fn != nil || (next.isName() && isCallable(next.t.val)):
				result = append(result, star)
			case next.isTok(tOp, "("):
				result = append(result, star)
			case next.isName():
				result = append(result, star)
			}
		}
	}
	if len(items) > 0 {
		result = append(result, items[len(items)-1])
	}
	return result
}

func flatten(items []item) []tok {
	var out []tok
	for _, it := range items {
		if it.fn != nil {
			out = append(out, it.fn.function)
			out = append(out, flatten(it.fn.args)...)
		} else {
			out = append(out, it.t)
		}
	}
	return out
}

func implicitMultiplication(tokens []tok) ([]tok, error) {
	g, err := groupParens(tokens, implicitMultiplication)
	if err != nil {
		return nil, err
	}
	return flatten(implicitMultiplicationStep(applyFunctions(g))), nil
}

func implicitApplicationStep(items []item) []item {
	var result []item
	appendParen, skip := 0, 0
	exponentSkip := false
	open, close := item{t: tok{tOp, "("}}, item{t: tok{tOp, ")"}}
	for i := 0; i+1 < len(items); i++ {
		t, next := items[i], items[i+1]
		result = append(result, t)
		nextKind := -1
		if next.fn == nil {
			nextKind = next.t.kind
		}
		switch {
		case t.isName() && next.fn == nil && nextKind != tOp && nextKind != tEnd && nextKind != tNewline,
			t.isName() && next.fn != nil:
			if isCallable(t.t.val) {
				result = append(result, open)
				appendParen++
			}
		case t.isName() && next.isTok(tOp, "**"):
			if isCallable(t.t.val) {
				exponentSkip = true
			}
		case exponentSkip:
			if t.fn != nil || t.isTok(tOp, "*") {
				if !next.isTok(tOp, "*") {
					if !next.isTok(tOp, "(") {
						result = append(result, open)
						appendParen++
					}
					exponentSkip = false
				}
			}
		case appendParen > 0:
			if next.fn == nil && next.t.kind == tOp && (next.t.val == "^" || next.t.val == "**" || next.t.val == "*") {
				skip = 1
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			result = append(result, close)
			appendParen--
		}
	}
	if len(items) > 0 {
		result = append(result, items[len(items)-1])
	}
	for ; appendParen > 0; appendParen-- {
		result = append(result, close)
	}
	return result
}

func implicitApplication(tokens []tok) ([]tok, error) {
	g, err := groupParens(tokens, implicitApplication)
	if err != nil {
		return nil, err
	}
	return flatten(implicitApplicationStep(applyFunctions(g))), nil
}

func functionExponentiation(tokens []tok) []tok {
	var result, exponent []tok
	consuming := false
	level := 0
	for i := 0; i+1 < len(tokens); i++ {
		t, next := tokens[i], tokens[i+1]
		if t.kind == tName && next.is(tOp, "**") {
			if isCallable(t.val) {
				consuming = true
			}
		} else if consuming {
			if t.is(tName, "Function") {
				t = tok{tName, "Symbol"}
			}
			exponent = append(exponent, t)
			if t.kind == tOp && next.kind == tOp && t.val == ")" && next.val == "(" {
				consuming = false
			}
			if t.kind == tOp && next.kind == tOp && t.val == "*" && next.val == "(" {
				consuming = false
				exponent = exponent[:len(exponent)-1]
			}
			continue
		} else if len(exponent) > 0 && !consuming {
			if t.kind == tOp {
				if t.val == "(" {
					level++
				} else if t.val == ")" {
					level--
				}
			}
			if level == 0 {
				result = append(result, t)
				result = append(result, exponent...)
				exponent = nil
				continue
			}
		}
		result = append(result, t)
	}
	if len(tokens) > 0 {
		result = append(result, tokens[len(tokens)-1])
	}
	return append(result, exponent...)
}

// transform runs the transformations in parse_expr's order.
func transform(tokens []tok) ([]tok, error) {
	if len(tokens) > 0 && tokens[0].is(tName, "lambda") {
		return nil, errUnsupported
	}
	tokens = autoSymbol(tokens)
	tokens = repeatedDecimals(tokens)
	tokens = autoNumber(tokens)
	tokens, err := factorialNotation(tokens)
	if err != nil {
		return nil, err
	}
	tokens = splitSymbols(tokens)
	if tokens, err = implicitMultiplication(tokens); err != nil {
		return nil, err
	}
	if tokens, err = implicitApplication(tokens); err != nil {
		return nil, err
	}
	return functionExponentiation(tokens), nil
}
