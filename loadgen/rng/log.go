package rng

import "math"

// dd is a double-double value hi+lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	s.lo += a.lo + b.lo
	return twoSum(s.hi, s.lo)
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	return twoSum(p, e)
}

func ddRecip(k float64) dd {
	h := 1 / k
	return dd{h, math.FMA(-h, k, 1) / k}
}

var ln2 = dd{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56}

// logCR returns ln(x) rounded to nearest for finite x > 0, matching glibc's
// correctly rounded log (Go's math.Log can be 1 ulp off). It evaluates
// k*ln2 + 2*atanh((m-1)/(m+1)) in double-double arithmetic.
func logCR(x float64) float64 {
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return math.Log(x)
	}
	if x == 1 {
		return 0
	}
	m, k := math.Frexp(x) // x = m * 2^k, m in [0.5,1)
	if m < math.Sqrt2/2 {
		m *= 2
		k--
	}
	num := m - 1 // exact
	den := twoSum(m, 1)
	q1 := num / den.hi
	r := ddAdd(dd{num, 0}, ddMul(dd{-q1, 0}, den))
	s := twoSum(q1, r.hi/den.hi)
	z := ddMul(s, s)
	p := ddRecip(45)
	for i := 21; i >= 0; i-- {
		p = ddAdd(ddMul(p, z), ddRecip(float64(2*i+1)))
	}
	v := ddMul(ddMul(p, s), dd{2, 0})
	v = ddAdd(v, ddMul(ln2, dd{float64(k), 0}))
	return v.hi + v.lo
}
