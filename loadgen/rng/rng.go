// Package rng reproduces, bit for bit, the libstdc++ 12 random algorithms that
// the C++ LoadGen draws through on std::mt19937.
//
// Values are not safe for concurrent use; give each goroutine its own engine.
package rng

const (
	n         = 624
	m         = 397
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
	matrixA   = 0x9908b0df
)

// MT19937 is the 32-bit Mersenne Twister engine, identical to std::mt19937.
// It is not safe for concurrent use.
type MT19937 struct {
	mt  [n]uint32
	idx int
}

// New returns an engine seeded like std::mt19937(seed): the seed is reduced
// modulo 2^32, as libstdc++ does.
func New(seed uint64) *MT19937 {
	g := &MT19937{}
	g.mt[0] = uint32(seed)
	for i := 1; i < n; i++ {
		g.mt[i] = 1812433253*(g.mt[i-1]^(g.mt[i-1]>>30)) + uint32(i)
	}
	g.idx = n
	return g
}

func (g *MT19937) twist() {
	for i := 0; i < n; i++ {
		y := g.mt[i]&upperMask | g.mt[(i+1)%n]&lowerMask
		v := g.mt[(i+m)%n] ^ (y >> 1)
		if y&1 != 0 {
			v ^= matrixA
		}
		g.mt[i] = v
	}
	g.idx = 0
}

// Uint32 returns the next engine output, as std::mt19937::operator().
func (g *MT19937) Uint32() uint32 {
	if g.idx >= n {
		g.twist()
	}
	y := g.mt[g.idx]
	g.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}
