package sympyeq

import (
	"math"
	"math/big"
	"sort"
	"strings"
)

// lin is a number without symbols in the form SymPy keeps it after
// construction: a sum of terms, each a coefficient (an exact rational, or
// a Float rounded at its precision as mpmath rounds) times a product of
// atoms raised to rational powers: primes (and integers too large to
// factor here) with exponents in [0, 1), -1 with an exponent in [0, 1)
// (I is (-1)^(1/2)), and pi with any exponent. Such products are
// linearly independent over the rationals, so a lin is zero exactly when
// it has no terms; coefficients combine as SymPy's Add and Mul combine
// numbers (a Rational meeting a Float is rounded to the Float's precision,
// an exact zero result drops the term), which is where SymPy's answer on
// decimals differs from exact arithmetic. What lin cannot represent (the
// inverse of a sum, a non-integer power of a sum, logarithms, a Float to
// a non-integer power) is left to the numeric test.
type lin map[string]*term

type term struct {
	c     coef
	basis []factor // sorted by atom
}

type factor struct {
	atom string // "-1", "pi", or an integer's digits
	exp  *big.Rat
}

// coef is an exact rational (f nil) or a Float.
type coef struct {
	r *big.Rat
	f *big.Float
}

func exactCoef(r *big.Rat) coef { return coef{r: r} }

func (c coef) isZero() bool {
	if c.f != nil {
		return c.f.Sign() == 0
	}
	return c.r.Sign() == 0
}

func (c coef) sign() int {
	if c.f != nil {
		return c.f.Sign()
	}
	return c.r.Sign()
}

// floatAt is x as a Float of precision prec (rounded to nearest).
func floatAt(x coef, prec uint) *big.Float {
	if x.f != nil {
		return new(big.Float).SetPrec(prec).Set(x.f)
	}
	return new(big.Float).SetPrec(prec).SetRat(x.r)
}

// precOf is the working precision of an operation: a Float's, the larger
// of two Floats'.
func precOf(a, b coef) uint {
	var p uint
	if a.f != nil {
		p = a.f.Prec()
	}
	if b.f != nil && b.f.Prec() > p {
		p = b.f.Prec()
	}
	return p
}

// norm turns a Float zero into the exact zero (SymPy's Float._new returns
// S.Zero for a zero result).
func norm(c coef) coef {
	if c.f != nil && c.f.Sign() == 0 {
		return coef{r: new(big.Rat)}
	}
	return c
}

func addCoef(a, b coef) coef {
	if a.f == nil && b.f == nil {
		return coef{r: new(big.Rat).Add(a.r, b.r)}
	}
	p := precOf(a, b)
	return norm(coef{f: new(big.Float).SetPrec(p).Add(floatAt(a, p), floatAt(b, p))})
}

func mulCoef(a, b coef) coef {
	if a.f == nil && b.f == nil {
		return coef{r: new(big.Rat).Mul(a.r, b.r)}
	}
	p := precOf(a, b)
	return norm(coef{f: new(big.Float).SetPrec(p).Mul(floatAt(a, p), floatAt(b, p))})
}

func invCoef(a coef) (coef, bool) {
	if a.isZero() {
		return coef{}, false
	}
	if a.f == nil {
		return coef{r: new(big.Rat).Inv(a.r)}, true
	}
	p := a.f.Prec()
	return coef{f: new(big.Float).SetPrec(p).Quo(big.NewFloat(1).SetPrec(p), a.f)}, true
}

func basisKey(b []factor) string {
	var sb strings.Builder
	for _, f := range b {
		sb.WriteString(f.atom + "^" + f.exp.RatString() + ";")
	}
	return sb.String()
}

func linNumber(c coef) lin {
	c = norm(c)
	if c.isZero() {
		return lin{}
	}
	return lin{"": &term{c: c}}
}

func linAtom(atom string, exp *big.Rat) (lin, error) {
	t, err := normalize(term{c: exactCoef(big.NewRat(1, 1)), basis: []factor{{atom, exp}}})
	if err != nil {
		return nil, err
	}
	return lin{basisKey(t.basis): &t}, nil
}

const maxTerms = 4096

// normalize brings a term's integer atoms' exponents into [0, 1), moving
// the whole powers into the coefficient, and drops zero exponents.
func normalize(t term) (term, error) {
	var out []factor
	c := t.c
	for _, f := range t.basis {
		if f.exp.Sign() == 0 {
			continue
		}
		if f.atom == "pi" {
			out = append(out, f)
			continue
		}
		k := new(big.Int).Div(f.exp.Num(), f.exp.Denom()) // floor
		frac := new(big.Rat).Sub(f.exp, new(big.Rat).SetInt(k))
		if k.Sign() != 0 {
			if k.BitLen() > 16 {
				return term{}, errTooBig
			}
			base, _ := new(big.Int).SetString(f.atom, 10)
			pw := new(big.Int).Exp(base, new(big.Int).Abs(k), nil)
			if pw.BitLen() > 1<<16 {
				return term{}, errTooBig
			}
			m := new(big.Rat).SetInt(pw)
			if k.Sign() < 0 {
				m.Inv(m)
			}
			c = mulCoef(c, exactCoef(m))
		}
		if frac.Sign() != 0 {
			out = append(out, factor{f.atom, frac})
		}
	}
	return term{c: c, basis: out}, nil
}

func mulTerms(a, b *term) (term, error) {
	exps := map[string]*big.Rat{}
	for _, f := range a.basis {
		exps[f.atom] = new(big.Rat).Set(f.exp)
	}
	for _, f := range b.basis {
		if e, ok := exps[f.atom]; ok {
			e.Add(e, f.exp)
		} else {
			exps[f.atom] = new(big.Rat).Set(f.exp)
		}
	}
	var basis []factor
	for k, e := range exps {
		basis = append(basis, factor{k, e})
	}
	sort.Slice(basis, func(i, j int) bool { return basis[i].atom < basis[j].atom })
	return normalize(term{c: mulCoef(a.c, b.c), basis: basis})
}

func (l lin) add(m lin) lin {
	out := lin{}
	for k, t := range l {
		out[k] = &term{c: t.c, basis: t.basis}
	}
	for k, t := range m {
		if o, ok := out[k]; ok {
			c := addCoef(o.c, t.c)
			if c.isZero() {
				delete(out, k)
			} else {
				out[k] = &term{c: c, basis: o.basis}
			}
		} else {
			out[k] = &term{c: t.c, basis: t.basis}
		}
	}
	return out
}

func (l lin) mul(m lin) (lin, error) {
	if len(l)*len(m) > maxTerms {
		return nil, errTooBig
	}
	out := lin{}
	for _, a := range l {
		for _, b := range m {
			t, err := mulTerms(a, b)
			if err != nil {
				return nil, err
			}
			if t.c.isZero() {
				continue
			}
			out = out.add(lin{basisKey(t.basis): &t})
		}
		if len(out) > maxTerms {
			return nil, errTooBig
		}
	}
	return out, nil
}

func (l lin) single() (*term, bool) {
	if len(l) != 1 {
		return nil, false
	}
	for _, t := range l {
		return t, true
	}
	return nil, false
}

// rational returns the value of a term-free or constant lin as an exact
// rational.
func (l lin) rational() (*big.Rat, bool) {
	if len(l) == 0 {
		return new(big.Rat), true
	}
	t, ok := l.single()
	if !ok || len(t.basis) != 0 || t.c.f != nil {
		return nil, false
	}
	return t.c.r, true
}

// errUndefined: the value is zoo or nan (a division by zero), never 0.
var errUndefined = errorString("sympyeq: undefined value")

type errorString string

func (e errorString) Error() string { return string(e) }

// inverse is 1/l for a single term.
func (l lin) inverse() (lin, error) {
	if len(l) == 0 {
		return nil, errUndefined
	}
	t, ok := l.single()
	if !ok {
		return nil, errUnsupported
	}
	c, _ := invCoef(t.c)
	var basis []factor
	for _, f := range t.basis {
		basis = append(basis, factor{f.atom, new(big.Rat).Neg(f.exp)})
	}
	nt, err := normalize(term{c: c, basis: basis})
	if err != nil {
		return nil, err
	}
	return lin{basisKey(nt.basis): &nt}, nil
}

// pow is l**e for an exponent e that is a lin.
func (l lin) pow(e lin) (lin, error) {
	if r, ok := e.rational(); ok {
		return l.powRat(r)
	}
	et, ok := e.single()
	if ok && len(et.basis) == 0 && et.c.f != nil {
		// a Float exponent: SymPy evaluates a positive number's power as a Float
		bt, ok := l.single()
		if !ok || len(bt.basis) != 0 || bt.c.sign() <= 0 || et.c.f.Prec() > 53 {
			return nil, errUnsupported
		}
		b, _ := floatAt(bt.c, 53).Float64()
		x, _ := et.c.f.Float64()
		v := math.Pow(b, x)
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, errUnsupported
		}
		return linNumber(coef{f: new(big.Float).SetPrec(et.c.f.Prec()).SetFloat64(v)}), nil
	}
	return nil, errUnsupported
}

func (l lin) powRat(r *big.Rat) (lin, error) {
	if r.IsInt() {
		n := r.Num()
		if n.BitLen() > 11 { // |n| > 2047
			return nil, errTooBig
		}
		k := n.Int64()
		if k == 0 {
			return linNumber(exactCoef(big.NewRat(1, 1))), nil
		}
		base := l
		if k < 0 {
			inv, err := l.inverse()
			if err != nil {
				return nil, err
			}
			base, k = inv, -k
		}
		out := linNumber(exactCoef(big.NewRat(1, 1)))
		for k > 0 {
			if k&1 == 1 {
				var err error
				if out, err = out.mul(base); err != nil {
					return nil, err
				}
			}
			k >>= 1
			if k > 0 {
				var err error
				if base, err = base.mul(base); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}
	if len(l) == 0 {
		if r.Sign() > 0 {
			return lin{}, nil
		}
		return nil, errUndefined
	}
	t, ok := l.single()
	if !ok || t.c.f != nil {
		return nil, errUnsupported
	}
	// |c|^r times the atoms' powers, the sign's and -1's phase taken to
	// the principal branch
	c := t.c.r
	phase := new(big.Rat)
	if c.Sign() < 0 {
		phase.SetInt64(1)
	}
	var basis []factor
	for _, f := range t.basis {
		if f.atom == "-1" {
			phase.Add(phase, f.exp)
			continue
		}
		basis = append(basis, factor{f.atom, new(big.Rat).Mul(f.exp, r)})
	}
	if phase.Cmp(big.NewRat(1, 1)) > 0 {
		phase.Sub(phase, big.NewRat(2, 1))
	}
	if phase.Sign() != 0 {
		basis = append(basis, factor{"-1", new(big.Rat).Mul(phase, r)})
	}
	for _, side := range []struct {
		n    *big.Int
		sign int
	}{{new(big.Int).Abs(c.Num()), 1}, {c.Denom(), -1}} {
		fs, ok := factorize(side.n)
		if !ok {
			return nil, errTooBig
		}
		for p, k := range fs {
			e := new(big.Rat).Mul(big.NewRat(int64(k*side.sign), 1), r)
			basis = append(basis, factor{p, e})
		}
	}
	merged := map[string]*big.Rat{}
	for _, f := range basis {
		if e, ok := merged[f.atom]; ok {
			e.Add(e, f.exp)
		} else {
			merged[f.atom] = new(big.Rat).Set(f.exp)
		}
	}
	basis = basis[:0]
	for k, e := range merged {
		basis = append(basis, factor{k, e})
	}
	sort.Slice(basis, func(i, j int) bool { return basis[i].atom < basis[j].atom })
	nt, err := normalize(term{c: exactCoef(big.NewRat(1, 1)), basis: basis})
	if err != nil {
		return nil, err
	}
	return lin{basisKey(nt.basis): &nt}, nil
}

// factorize splits n > 0 into primes by trial division up to 10^6; a
// cofactor left over is kept whole (prime when below 10^12). ok is false
// for numbers too large to try.
func factorize(n *big.Int) (map[string]int, bool) {
	out := map[string]int{}
	if n.BitLen() > 256 {
		return nil, false
	}
	m := new(big.Int).Set(n)
	one := big.NewInt(1)
	q, rem := new(big.Int), new(big.Int)
	for p := int64(2); p <= 1000000 && m.Cmp(one) > 0; p++ {
		bp := big.NewInt(p)
		if new(big.Int).Mul(bp, bp).Cmp(m) > 0 {
			break
		}
		for {
			q.QuoRem(m, bp, rem)
			if rem.Sign() != 0 {
				break
			}
			m.Set(q)
			out[bp.String()]++
		}
	}
	if m.Cmp(one) > 0 {
		out[m.String()]++
	}
	return out, true
}

// toLin evaluates e exactly; errUnsupported where lin cannot hold it.
func toLin(e *ex) (lin, error) {
	switch e.op {
	case "num":
		if e.num.rat != nil {
			return linNumber(exactCoef(e.num.rat)), nil
		}
		return linNumber(coef{f: e.num.flt}), nil
	case "const":
		switch e.name {
		case "pi":
			return linAtom("pi", big.NewRat(1, 1))
		case "I":
			return linAtom("-1", big.NewRat(1, 2))
		}
		return nil, errUndefined // oo, zoo, nan: the difference is never 0
	case "add":
		a, err := toLin(e.args[0])
		if err != nil {
			return nil, err
		}
		b, err := toLin(e.args[1])
		if err != nil {
			return nil, err
		}
		return a.add(b), nil
	case "mul":
		a, err := toLin(e.args[0])
		if err != nil {
			return nil, err
		}
		b, err := toLin(e.args[1])
		if err != nil {
			return nil, err
		}
		return a.mul(b)
	case "pow":
		a, err := toLin(e.args[0])
		if err != nil {
			return nil, err
		}
		b, err := toLin(e.args[1])
		if err != nil {
			return nil, err
		}
		return a.pow(b)
	case "fn":
		return fnLin(e)
	}
	return nil, errUnsupported
}

// fnLin evaluates the functions SymPy evaluates on construction for
// exact arguments: factorial and factorial2 of integers, log(1).
func fnLin(e *ex) (lin, error) {
	a, err := toLin(e.args[0])
	if err != nil {
		return nil, err
	}
	r, ok := a.rational()
	switch e.name {
	case "factorial", "factorial2":
		if !ok || !r.IsInt() {
			return nil, errUnsupported
		}
		n := r.Num()
		if n.Sign() < 0 {
			if e.name == "factorial2" && n.Cmp(big.NewInt(-1)) == 0 {
				return linNumber(exactCoef(big.NewRat(1, 1))), nil
			}
			if e.name == "factorial" {
				return nil, errUndefined // zoo
			}
			return nil, errUnsupported
		}
		if n.Cmp(big.NewInt(5000)) > 0 {
			return nil, errTooBig
		}
		step := int64(1)
		if e.name == "factorial2" {
			step = 2
		}
		v := big.NewInt(1)
		for k := n.Int64(); k > 1; k -= step {
			v.Mul(v, big.NewInt(k))
		}
		return linNumber(exactCoef(new(big.Rat).SetInt(v))), nil
	case "log":
		if ok && r.Cmp(big.NewRat(1, 1)) == 0 {
			return lin{}, nil
		}
		if ok && r.Sign() == 0 {
			return nil, errUndefined // zoo
		}
	case "abs":
		if ok {
			return linNumber(exactCoef(new(big.Rat).Abs(r))), nil
		}
	case "re":
		if ok {
			return linNumber(exactCoef(r)), nil
		}
	case "im":
		if ok {
			return lin{}, nil
		}
	}
	return nil, errUnsupported
}
