package sympyeq

import (
	"errors"
	"math/big"
	"strings"
)

var (
	// errSyntax: Python raises while tokenizing, transforming, compiling
	// or evaluating (the grader catches it: not equal).
	errSyntax = errors.New("sympyeq: not a valid expression")
	// errUnsupported: the expression uses a SymPy name or construct this
	// port does not evaluate.
	errUnsupported = errors.New("sympyeq: unsupported by this port")
	// errTooBig: the expression is too large to evaluate here.
	errTooBig = errors.New("sympyeq: expression too large")
)

// ex is a SymPy expression tree as the evaluated code builds it.
type ex struct {
	op   string // num, sym, const, add, mul, pow, fn, undef
	num  *number
	name string // sym / const / fn / undef name
	args []*ex
}

// number is a SymPy Integer or Rational (rat) or Float (flt, with its
// precision).
type number struct {
	rat *big.Rat
	flt *big.Float
}

func ratEx(r *big.Rat) *ex           { return &ex{op: "num", num: &number{rat: r}} }
func intEx(n int64) *ex              { return ratEx(big.NewRat(n, 1)) }
func addEx(a, b *ex) *ex             { return &ex{op: "add", args: []*ex{a, b}} }
func mulEx(a, b *ex) *ex             { return &ex{op: "mul", args: []*ex{a, b}} }
func powEx(a, b *ex) *ex             { return &ex{op: "pow", args: []*ex{a, b}} }
func fnEx(name string, a ...*ex) *ex { return &ex{op: "fn", name: name, args: a} }

// value is a Python value while the code is evaluated.
type value struct {
	kind  int // vEx, vStr, vCallable, vUndef (a Function('f') class), vTuple
	e     *ex
	s     string // string literal, callable or undefined function name
	items []value
}

const (
	vEx = iota
	vStr
	vCallable
	vUndef
	vTuple
)

// evaluated are the callables this port evaluates.
var evaluated = map[string]bool{"Symbol": true, "Function": true, "Integer": true, "Float": true, "Rational": true,
	"Number": true, "factorial": true, "factorial2": true, "sqrt": true, "ln": true, "log": true, "exp": true,
	"abs": true, "re": true, "im": true, "floor": true, "ceiling": true, "sin": true, "cos": true, "tan": true}

type parser struct {
	toks []tok
	pos  int
	size int // nodes built, bounded
}

func (p *parser) peek() tok {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return tok{kind: tEnd}
}

func (p *parser) next() tok { t := p.peek(); p.pos++; return t }

func (p *parser) acceptOp(v string) bool {
	if p.peek().is(tOp, v) {
		p.pos++
		return true
	}
	return false
}

// evaluate parses the transformed tokens as a Python expression and
// evaluates it over SymPy's semantics.
func evaluate(toks []tok) (*ex, error) {
	var clean []tok
	for _, t := range toks {
		if t.kind == tNewline || t.kind == tEnd || t.kind == tComment {
			continue
		}
		clean = append(clean, t)
	}
	if len(clean) == 0 {
		return nil, errSyntax
	}
	p := &parser{toks: clean}
	v, err := p.expression()
	if err != nil {
		return nil, err
	}
	if p.pos != len(clean) {
		return nil, errSyntax
	}
	if v.kind != vEx {
		return nil, errSyntax // a tuple, string or callable: the subtraction raised
	}
	return v.e, nil
}

// expression: comparisons and boolean operators are rejected (they make
// relationals or bools that the grader's subtraction cannot take).
func (p *parser) expression() (value, error) {
	v, err := p.arith()
	if err != nil {
		return v, err
	}
	t := p.peek()
	if t.kind == tOp && strings.Contains("< > == >= <= != =", t.val) && t.val != "" {
		return v, errSyntax
	}
	if t.kind == tName && pyKeywords[t.val] {
		return v, errUnsupported
	}
	return v, nil
}

func (p *parser) arith() (value, error) {
	v, err := p.term()
	if err != nil {
		return v, err
	}
	for {
		switch {
		case p.acceptOp("+"):
			w, err := p.term()
			if err != nil {
				return v, err
			}
			if v, err = p.binary("+", v, w); err != nil {
				return v, err
			}
		case p.acceptOp("-"):
			w, err := p.term()
			if err != nil {
				return v, err
			}
			if v, err = p.binary("-", v, w); err != nil {
				return v, err
			}
		default:
			return v, nil
		}
	}
}

func (p *parser) term() (value, error) {
	v, err := p.factor()
	if err != nil {
		return v, err
	}
	for {
		t := p.peek()
		if t.kind != tOp || (t.val != "*" && t.val != "/" && t.val != "//" && t.val != "%" && t.val != "@") {
			return v, nil
		}
		p.pos++
		w, err := p.factor()
		if err != nil {
			return v, err
		}
		if v, err = p.binary(t.val, v, w); err != nil {
			return v, err
		}
	}
}

func (p *parser) factor() (value, error) {
	switch {
	case p.acceptOp("-"):
		v, err := p.factor()
		if err != nil {
			return v, err
		}
		return p.binary("*", exValue(intEx(-1)), v)
	case p.acceptOp("+"):
		v, err := p.factor()
		if err != nil || v.kind != vEx {
			return v, firstErr(err, errSyntax)
		}
		return v, nil
	case p.acceptOp("~"):
		// Integer.__invert__: ~n = -n - 1; on anything else a logical Not
		v, err := p.factor()
		if err != nil {
			return v, err
		}
		if v.kind != vEx || v.e.op != "num" || v.e.num.rat == nil || !v.e.num.rat.IsInt() {
			return value{}, errSyntax
		}
		return exValue(ratEx(new(big.Rat).Sub(new(big.Rat).Neg(v.e.num.rat), big.NewRat(1, 1)))), nil
	}
	return p.power()
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func (p *parser) power() (value, error) {
	v, err := p.primary()
	if err != nil {
		return v, err
	}
	if p.acceptOp("**") {
		w, err := p.factor() // right-associative, binds tighter than unary minus on the left
		if err != nil {
			return v, err
		}
		return p.binary("**", v, w)
	}
	return v, nil
}

func exValue(e *ex) value { return value{kind: vEx, e: e} }

func (p *parser) grow() error {
	p.size++
	if p.size > 20000 {
		return errTooBig
	}
	return nil
}

// binary applies a Python operator to two values.
func (p *parser) binary(op string, a, b value) (value, error) {
	if err := p.grow(); err != nil {
		return value{}, err
	}
	if a.kind != vEx || b.kind != vEx {
		return value{}, errSyntax // TypeError
	}
	switch op {
	case "+":
		return exValue(addEx(a.e, b.e)), nil
	case "-":
		return exValue(addEx(a.e, mulEx(intEx(-1), b.e))), nil
	case "*":
		return exValue(mulEx(a.e, b.e)), nil
	case "/":
		return exValue(mulEx(a.e, powEx(b.e, intEx(-1)))), nil
	case "**":
		return exValue(powEx(a.e, b.e)), nil
	case "//":
		return exValue(fnEx("floor", mulEx(a.e, powEx(b.e, intEx(-1))))), nil
	case "%":
		return exValue(fnEx("Mod", a.e, b.e)), nil
	}
	return value{}, errSyntax
}

func (p *parser) primary() (value, error) {
	v, err := p.atom()
	if err != nil {
		return v, err
	}
	for {
		switch {
		case p.acceptOp("("):
			args, err := p.callArgs()
			if err != nil {
				return v, err
			}
			if v, err = p.call(v, args); err != nil {
				return v, err
			}
		case p.peek().is(tOp, "["), p.peek().is(tOp, "."):
			return v, errSyntax // subscripts and attributes of SymPy objects: not in an answer
		default:
			return v, nil
		}
	}
}

func (p *parser) callArgs() ([]value, error) {
	var args []value
	if p.acceptOp(")") {
		return args, nil
	}
	for {
		if p.peek().kind == tName && p.pos+1 < len(p.toks) && p.toks[p.pos+1].is(tOp, "=") {
			return nil, errUnsupported // keyword arguments
		}
		v, err := p.expression()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		if p.acceptOp(")") {
			return args, nil
		}
		if !p.acceptOp(",") {
			return nil, errSyntax
		}
		if p.acceptOp(")") {
			return args, nil
		}
	}
}

func (p *parser) atom() (value, error) {
	t := p.next()
	switch t.kind {
	case tNumber:
		if strings.HasPrefix(t.val, "'") {
			return value{kind: vStr, s: t.val[1 : len(t.val)-1]}, nil
		}
		n, ok := pyIntLiteral(t.val)
		if !ok {
			return value{}, errSyntax
		}
		return exValue(ratEx(new(big.Rat).SetInt(n))), nil // a Python int (only inside Integer(...))
	case tName:
		if strings.HasPrefix(t.val, "'") {
			return value{kind: vStr, s: t.val[1 : len(t.val)-1]}, nil
		}
		switch t.val {
		case "I":
			return exValue(&ex{op: "const", name: "I"}), nil
		case "pi", "oo", "zoo", "nan":
			return exValue(&ex{op: "const", name: t.val}), nil
		}
		if pyKeywords[t.val] {
			return value{}, errUnsupported
		}
		if isCallable(t.val) {
			return value{kind: vCallable, s: t.val}, nil
		}
		return value{}, errUnsupported // a SymPy value this port does not know
	case tOp:
		switch t.val {
		case "(":
			if p.acceptOp(")") {
				return value{kind: vTuple}, nil
			}
			v, err := p.expression()
			if err != nil {
				return v, err
			}
			if p.acceptOp(")") {
				return v, nil
			}
			items := []value{v}
			for p.acceptOp(",") {
				if p.peek().is(tOp, ")") {
					break
				}
				w, err := p.expression()
				if err != nil {
					return w, err
				}
				items = append(items, w)
			}
			if !p.acceptOp(")") {
				return value{}, errSyntax
			}
			return value{kind: vTuple, items: items}, nil
		case "[", "{":
			return value{}, errSyntax // lists, sets, dicts: TypeError in the subtraction
		}
	}
	return value{}, errSyntax
}

// pyIntLiteral is a Python integer literal's value.
func pyIntLiteral(s string) (*big.Int, bool) {
	s = strings.ReplaceAll(s, "_", "")
	base := 10
	switch {
	case len(s) > 1 && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 1 && (s[1] == 'o' || s[1] == 'O'):
		base, s = 8, s[2:]
	case len(s) > 1 && (s[1] == 'b' || s[1] == 'B'):
		base, s = 2, s[2:]
	}
	return new(big.Int).SetString(s, base)
}

// call applies a callable value.
func (p *parser) call(f value, args []value) (value, error) {
	if err := p.grow(); err != nil {
		return value{}, err
	}
	if f.kind == vUndef {
		var es []*ex
		for _, a := range args {
			if a.kind != vEx {
				return value{}, errSyntax
			}
			es = append(es, a.e)
		}
		return exValue(&ex{op: "undef", name: f.s, args: es}), nil
	}
	if f.kind != vCallable {
		return value{}, errSyntax // calling a SymPy expression: TypeError
	}
	if !evaluated[f.s] {
		return value{}, errUnsupported
	}
	str := func() (string, bool) {
		if len(args) == 1 && args[0].kind == vStr {
			return args[0].s, true
		}
		return "", false
	}
	exArgs := func(n int) ([]*ex, bool) {
		if len(args) != n {
			return nil, false
		}
		var out []*ex
		for _, a := range args {
			if a.kind != vEx {
				return nil, false
			}
			out = append(out, a.e)
		}
		return out, true
	}
	switch f.s {
	case "Symbol":
		s, ok := str()
		if !ok {
			return value{}, errSyntax
		}
		return exValue(&ex{op: "sym", name: s}), nil
	case "Function":
		s, ok := str()
		if !ok {
			return value{}, errSyntax
		}
		return value{kind: vUndef, s: s}, nil
	case "Integer":
		if s, ok := str(); ok {
			n, ok := intFromString(s)
			if !ok {
				return value{}, errSyntax
			}
			return exValue(ratEx(new(big.Rat).SetInt(n))), nil
		}
		a, ok := exArgs(1)
		if !ok || a[0].op != "num" || a[0].num.rat == nil || !a[0].num.rat.IsInt() {
			return value{}, errUnsupported
		}
		return exValue(a[0]), nil
	case "Float":
		s, ok := str()
		if !ok {
			return value{}, errUnsupported
		}
		n, err := parseFloat(s)
		if err != nil {
			return value{}, err
		}
		return exValue(&ex{op: "num", num: n}), nil
	case "Number":
		s, ok := str()
		if !ok {
			return value{}, errUnsupported
		}
		n, ok := intFromString(s)
		if !ok {
			return value{}, errSyntax
		}
		return exValue(ratEx(new(big.Rat).SetInt(n))), nil
	case "Rational":
		a, ok := exArgs(2)
		if !ok {
			return value{}, errUnsupported
		}
		return exValue(mulEx(a[0], powEx(a[1], intEx(-1)))), nil
	case "sqrt":
		a, ok := exArgs(1)
		if !ok {
			return value{}, errSyntax
		}
		return exValue(powEx(a[0], ratEx(big.NewRat(1, 2)))), nil
	case "ln", "log":
		if a, ok := exArgs(1); ok {
			return exValue(fnEx("log", a[0])), nil
		}
		if a, ok := exArgs(2); ok {
			return exValue(mulEx(fnEx("log", a[0]), powEx(fnEx("log", a[1]), intEx(-1)))), nil
		}
		return value{}, errSyntax
	case "exp", "abs", "re", "im", "factorial", "factorial2", "floor", "ceiling", "sin", "cos", "tan":
		a, ok := exArgs(1)
		if !ok {
			return value{}, errSyntax
		}
		return exValue(fnEx(f.s, a[0])), nil
	}
	return value{}, errUnsupported
}

// intFromString is Integer(str): Python int() of the string.
func intFromString(s string) (*big.Int, bool) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "_", ""))
	n, ok := new(big.Int).SetString(s, 10)
	return n, ok
}

// parseFloat is Float(str) as auto_number calls it: precision max(15,
// significant digits) decimal digits, in bits dps_to_prec, the value
// rounded to nearest.
func parseFloat(s string) (*number, error) {
	s = strings.ReplaceAll(s, "_", "")
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	digits := strings.TrimLeft(strings.ReplaceAll(strings.TrimLeft(mant, "+-"), ".", ""), "0")
	dps := len(digits)
	if digits == "" {
		dps = 1
	}
	if !strings.Contains(s, ".") {
		// an integer in e notation: at least the integer's digits
		if r, ok := new(big.Rat).SetString(s); ok && r.IsInt() {
			dps = max(dps, len(strings.TrimLeft(r.Num().String(), "-")))
		}
	}
	dps = max(dps, 15)
	prec := uint(int((float64(dps)+1)*3.3219280948873626 + 0.5))
	f, _, err := big.ParseFloat(s, 10, prec, big.ToNearestEven)
	if err != nil {
		return nil, errSyntax
	}
	return &number{flt: f}, nil
}
