package generate

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeepGathersRows checks keep against a plain gather for random
// reorders: forks, drops, swaps and longer cycles, with and without room
// for the in-place path, and with padding columns to drop.
func TestKeepGathersRows(t *testing.T) {
	m := &Model{spec: Spec{Layers: 1, KVHeads: 2, HeadDim: 3, Vocab: 5}, past: []string{"k", "v"}}
	r := rand.New(rand.NewPCG(1, 2))
	defer func(p int) { parallelCopy = p }(parallelCopy)
	for n := range 3000 {
		parallelCopy = []int{0, 4 << 20}[n%2] // both ways of moving rows
		rows := 1 + r.IntN(6)
		T := 1 + r.IntN(5)
		b := newBatch[float32](m, T)
		b.n, b.T = rows, T
		b.start = make([]int, rows)
		if n%4 == 0 {
			for i := range b.start {
				b.start[i] = r.IntN(T)
			}
		}
		rs := b.hd() * T
		for i := range b.cur {
			c := rows * rs
			if n%3 != 0 {
				c += r.IntN(8) * rs // room to grow in place
			}
			b.cur[i] = make([]float32, rows*rs, c)
			for j := range b.cur[i] {
				b.cur[i][j] = float32(i*100000 + j)
			}
		}
		src := make([]int, 1+r.IntN(7))
		for j := range src {
			src[j] = r.IntN(rows)
		}
		switch n % 5 {
		case 0: // a permutation: cycles
			src = r.Perm(rows)
		case 1: // beams: each parent at most as far as its own index
			src = make([]int, rows)
			for j := range src {
				src[j] = r.IntN(j + 1)
			}
		}
		old := make([][]float32, len(b.cur))
		for i := range b.cur {
			old[i] = slices.Clone(b.cur[i])
		}
		oldStart := slices.Clone(b.start)
		minStart := T
		for _, s := range src {
			minStart = min(minStart, oldStart[s])
		}
		identity := len(src) == rows
		for j, s := range src {
			identity = identity && s == j
		}
		if err := b.keep(src); err != nil {
			t.Fatal(err)
		}
		if identity && minStart*4 < T {
			minStart = 0
		}
		nT := T - minStart
		if b.n != len(src) || b.T != nT {
			t.Fatalf("case %d: n, T = %d, %d, want %d, %d", n, b.n, b.T, len(src), nT)
		}
		H, D := m.spec.KVHeads, m.spec.HeadDim
		for i := range b.cur {
			if len(b.cur[i]) < len(src)*H*nT*D {
				t.Fatalf("case %d: buffer %d holds %d, want %d", n, i, len(b.cur[i]), len(src)*H*nT*D)
			}
			for j, s := range src {
				if b.start[j] != oldStart[s]-minStart {
					t.Fatalf("case %d: start[%d] = %d, want %d", n, j, b.start[j], oldStart[s]-minStart)
				}
				for h := range H {
					got := b.cur[i][(j*H+h)*nT*D : (j*H+h+1)*nT*D]
					want := old[i][(s*H+h)*T*D+minStart*D : (s*H+h+1)*T*D]
					if !slices.Equal(got, want) {
						t.Fatalf("case %d src %v: buffer %d row %d head %d = %v, want %v", n, src, i, j, h, got, want)
					}
				}
			}
		}
	}
}
