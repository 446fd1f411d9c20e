package sympyeq

import (
	"hash/fnv"
	"math"
	"math/cmplx"
	"sort"
)

// The numeric test: an expression with symbols (or numbers lin cannot
// hold) is evaluated in complex arithmetic at points where each symbol is
// a pseudo-random complex number, a negative real or a positive real, and
// counts as 0 when it vanishes at every point (relative to the size of
// the terms summed). Random complex points decide the polynomial and
// rational-function identities simplify proves; the points on the
// negative real axis make the identities that fail on a branch cut
// (sqrt(1/x) against 1/sqrt(x)), which SymPy does not apply to symbols
// without assumptions, fail here too. An undefined function f is a fixed
// analytic function of its arguments chosen from f's name.

const numericTolerance = 1e-9

type numEnv struct {
	vars  map[string]complex128
	scale float64 // the largest magnitude summed
}

// eval evaluates e; signed zeros are made +0 after each step, since
// SymPy's values have none (1/(-2) is -1/2, not -1/2 - 0i, and the square
// root of it lies on the positive imaginary axis).
func (n *numEnv) eval(e *ex) (complex128, error) {
	v, err := n.eval1(e)
	return complex(real(v)+0, imag(v)+0), err
}

func (n *numEnv) eval1(e *ex) (complex128, error) {
	switch e.op {
	case "num":
		if e.num.rat != nil {
			f, _ := e.num.rat.Float64()
			return complex(f, 0), nil
		}
		f, _ := e.num.flt.Float64()
		return complex(f, 0), nil
	case "const":
		switch e.name {
		case "pi":
			return complex(math.Pi, 0), nil
		case "I":
			return 1i, nil
		}
		return 0, errUndefined
	case "sym":
		return n.vars[e.name], nil
	case "add":
		a, err := n.eval(e.args[0])
		if err != nil {
			return 0, err
		}
		b, err := n.eval(e.args[1])
		if err != nil {
			return 0, err
		}
		n.scale = math.Max(n.scale, math.Max(cmplx.Abs(a), cmplx.Abs(b)))
		return a + b, nil
	case "mul":
		a, err := n.eval(e.args[0])
		if err != nil {
			return 0, err
		}
		b, err := n.eval(e.args[1])
		if err != nil {
			return 0, err
		}
		return a * b, nil
	case "pow":
		a, err := n.eval(e.args[0])
		if err != nil {
			return 0, err
		}
		b, err := n.eval(e.args[1])
		if err != nil {
			return 0, err
		}
		v, err := power(a, b, e.args[1])
		if err == nil && hasFloat(e.args[1]) && hasSymbol(e.args[0]) {
			// SymPy keeps x**5.0 apart from x**5 (and from x**5.0000001):
			// a power with a Float exponent is its own term, equal only to
			// the same power
			h := fnv.New64a()
			h.Write([]byte(exKey(e.args[1])))
			v *= complex(1+1e-3*(float64(h.Sum64()%1000)+1), 0)
		}
		return v, err
	case "fn":
		return n.fn(e)
	case "undef":
		h := fnv.New64a()
		h.Write([]byte(e.name))
		seed := h.Sum64()
		var w complex128
		for i, a := range e.args {
			v, err := n.eval(a)
			if err != nil {
				return 0, err
			}
			k := float64((seed>>(8*uint(i%8)))&0xff)/255 + 0.5
			w += complex(k, 0.3*k) * (v + complex(float64(i)+0.37, 0))
		}
		return cmplx.Exp(0.3*w) + w*w, nil
	}
	return 0, errUnsupported
}

// power is a**b on the principal branch; an exact integer exponent
// multiplies.
func power(a, b complex128, be *ex) (complex128, error) {
	if be.op == "num" && be.num.rat != nil && be.num.rat.IsInt() && be.num.rat.Num().IsInt64() {
		k := be.num.rat.Num().Int64()
		if k < 0 && a == 0 {
			return 0, errUndefined
		}
		if k > 4096 || k < -4096 {
			return cmplx.Pow(a, b), nil
		}
		r := complex(1, 0)
		base := a
		neg := k < 0
		if neg {
			k = -k
		}
		for k > 0 {
			if k&1 == 1 {
				r *= base
			}
			base *= base
			k >>= 1
		}
		if neg {
			return 1 / r, nil
		}
		return r, nil
	}
	if a == 0 {
		if real(b) > 0 {
			return 0, nil
		}
		return 0, errUndefined
	}
	return cmplx.Pow(a, b), nil
}

func (n *numEnv) fn(e *ex) (complex128, error) {
	var args []complex128
	for _, a := range e.args {
		v, err := n.eval(a)
		if err != nil {
			return 0, err
		}
		args = append(args, v)
	}
	x := args[0]
	real1 := math.Abs(imag(x)) <= 1e-12*math.Max(1, math.Abs(real(x)))
	switch e.name {
	case "log":
		if x == 0 {
			return 0, errUndefined
		}
		return cmplx.Log(x), nil
	case "exp":
		return cmplx.Exp(x), nil
	case "abs":
		return complex(cmplx.Abs(x), 0), nil
	case "re":
		return complex(real(x), 0), nil
	case "im":
		return complex(imag(x), 0), nil
	case "factorial":
		if real1 {
			r := real(x)
			if r < 0 && r == math.Trunc(r) {
				return 0, errUndefined
			}
			return complex(math.Gamma(r+1), 0), nil
		}
		return gamma(x + 1), nil
	case "floor":
		return complex(math.Floor(real(x)), math.Floor(imag(x))), nil
	case "ceiling":
		return complex(math.Ceil(real(x)), math.Ceil(imag(x))), nil
	case "sin":
		return cmplx.Sin(x), nil
	case "cos":
		return cmplx.Cos(x), nil
	case "tan":
		return cmplx.Tan(x), nil
	case "factorial2":
		if real1 && real(x) >= -1 && real(x) == math.Trunc(real(x)) {
			v := 1.0
			for k := real(x); k > 1; k -= 2 {
				v *= k
			}
			return complex(v, 0), nil
		}
	case "Mod":
		y := args[1]
		if real1 && imag(y) == 0 && real(y) != 0 {
			m := math.Mod(real(x), real(y))
			if m != 0 && (m < 0) != (real(y) < 0) {
				m += real(y)
			}
			return complex(m, 0), nil
		}
	}
	return 0, errUnsupported
}

func hasFloat(e *ex) bool {
	if e.op == "num" && e.num.flt != nil {
		return true
	}
	for _, a := range e.args {
		if hasFloat(a) {
			return true
		}
	}
	return false
}

func hasSymbol(e *ex) bool {
	if e.op == "sym" || e.op == "undef" {
		return true
	}
	for _, a := range e.args {
		if hasSymbol(a) {
			return true
		}
	}
	return false
}

// exKey prints e (for telling Float exponents apart).
func exKey(e *ex) string {
	switch e.op {
	case "num":
		if e.num.rat != nil {
			return e.num.rat.RatString()
		}
		return e.num.flt.Text('g', -1)
	case "sym", "const":
		return e.name
	}
	s := e.op + e.name + "("
	for _, a := range e.args {
		s += exKey(a) + ","
	}
	return s + ")"
}

// gamma is the complex Gamma function (Lanczos, g = 7, n = 9), for
// factorial of a symbol.
func gamma(z complex128) complex128 {
	if real(z) < 0.5 {
		return complex(math.Pi, 0) / (cmplx.Sin(complex(math.Pi, 0)*z) * gamma(1-z))
	}
	c := [...]float64{0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
		-176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7}
	z--
	x := complex(c[0], 0)
	for i := 1; i < len(c); i++ {
		x += complex(c[i], 0) / (z + complex(float64(i), 0))
	}
	t := z + 7.5
	return complex(math.Sqrt(2*math.Pi), 0) * cmplx.Pow(t, z+0.5) * cmplx.Exp(-t) * x
}

// symbols lists the symbol names of e, sorted.
func symbols(e *ex, out map[string]bool) {
	if e.op == "sym" {
		out[e.name] = true
	}
	for _, a := range e.args {
		symbols(a, out)
	}
}

func hasUndef(e *ex) bool {
	if e.op == "undef" {
		return true
	}
	for _, a := range e.args {
		if hasUndef(a) {
			return true
		}
	}
	return false
}

// numericZero runs the numeric test.
func numericZero(e *ex) (bool, error) {
	set := map[string]bool{}
	symbols(e, set)
	var names []string
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	points := 1
	if len(names) > 0 || hasUndef(e) {
		points = 7
	}
	state := uint64(0x9E3779B97F4A7C15)
	rnd := func() float64 {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		return float64(state>>11) / (1 << 53)
	}
	for pt := 0; pt < points; pt++ {
		env := &numEnv{vars: map[string]complex128{}}
		for _, name := range names {
			switch {
			case pt < 4:
				env.vars[name] = complex(rnd()*5-2.3, rnd()*5-2.4)
			case pt < 6:
				env.vars[name] = complex(-(rnd()*2.7 + 0.3), 0)
			default:
				env.vars[name] = complex(rnd()*2.7+0.3, 0)
			}
		}
		v, err := env.eval(e)
		if err != nil {
			return false, err
		}
		if cmplx.IsNaN(v) || cmplx.IsInf(v) {
			return false, nil
		}
		if cmplx.Abs(v) > numericTolerance*math.Max(1, env.scale) {
			return false, nil
		}
	}
	return true, nil
}
