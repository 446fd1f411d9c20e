package rng

import "math"

// UniformInt returns a draw of std::uniform_int_distribution<>(a, b) as
// libstdc++ 12 computes it on a 32-bit engine (Lemire's nearly-divisionless
// method). It requires a <= b and b-a < 2^32, which covers every range LoadGen
// uses (sample positions); larger ranges are reduced to their low 32 bits of
// width and are not supported.
func (g *MT19937) UniformInt(a, b uint64) uint64 {
	r := uint64(uint32(b-a)) + 1 // range; b-a == 2^32-1 gives 2^32
	if r == 1<<32 {
		return a + uint64(g.Uint32())
	}
	x := uint64(g.Uint32()) * r
	if uint32(x) < uint32(r) {
		th := uint32((1<<32 - r) % r)
		for uint32(x) < th {
			x = uint64(g.Uint32()) * r
		}
	}
	return a + x>>32
}

// Shuffle permutes s exactly as libstdc++ 12 std::shuffle(begin, end, g):
// two positions per engine call when n*n fits 32 bits, else Fisher-Yates.
func Shuffle[T any](s []T, g *MT19937) {
	n := uint64(len(s))
	if n < 2 {
		return
	}
	if (1<<32-1)/n >= n {
		i := uint64(1)
		if n%2 == 0 {
			j := g.UniformInt(0, 1)
			s[1], s[j] = s[j], s[1]
			i = 2
		}
		for ; i < n; i += 2 {
			r2 := i + 2
			x := g.UniformInt(0, (i+1)*r2-1)
			j1, j2 := x/r2, x%r2
			s[i], s[j1] = s[j1], s[i]
			s[i+1], s[j2] = s[j2], s[i+1]
		}
		return
	}
	for i := uint64(1); i < n; i++ {
		j := g.UniformInt(0, i)
		s[i], s[j] = s[j], s[i]
	}
}

// Canonical returns std::generate_canonical<double,53>: (a + b*2^32) / 2^64
// from two draws, clamped below 1.
func (g *MT19937) Canonical() float64 {
	a := float64(g.Uint32())
	b := float64(g.Uint32()) * 4294967296.0
	v := (a + b) / 18446744073709551616.0
	if v >= 1 {
		v = math.Nextafter(1, 0)
	}
	return v
}

// Exponential returns std::exponential_distribution<double>(lambda):
// -log(1-u)/lambda with u = Canonical().
func (g *MT19937) Exponential(lambda float64) float64 {
	return -logCR(1-g.Canonical()) / lambda
}
