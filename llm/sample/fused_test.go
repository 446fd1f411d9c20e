package sample

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// plainLogSumExp is logSumExp's definition: m = rowMax, ls = float32 of
// log of the math.Exp sum in row order.
func plainLogSumExp(row []float32) (m, ls float32) {
	m = rowMax(row)
	var s float64
	for _, v := range row {
		s += math.Exp(float64(v - m))
	}
	return m, float32(math.Log(s))
}

func TestFastExpWithinBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2_000_000 {
		var x float64
		switch i % 3 {
		case 0:
			x = -r.Float64() * -expMin
		case 1:
			x = -r.Float64() * 20
		default:
			// any float32 difference in range
			x = float64(-math.Float32frombits(r.Uint32() & 0x7fffffff))
			if !(x >= expMin) {
				continue
			}
		}
		got, want := fastExp(x), math.Exp(x)
		if e := math.Abs(got-want) / want; e > fastExpErr/2 {
			t.Fatalf("fastExp(%v) = %v, math.Exp %v: relative error %g", x, got, want, e)
		}
	}
	if fastExp(0) != 1 {
		t.Fatal("fastExp(0) != 1")
	}
	ninf := float32(math.Inf(-1))
	for n := range 9 {
		// terms below expMin are left out, on the 4-wide path and the tail
		row := []float32{0, -800, -1e30, ninf, -709, 0, 0, 0, 0}[:n+1]
		want := 1.0
		if n >= 5 {
			want += float64(n - 4)
		}
		if got := fastExpSum(row, 0); got != want {
			t.Errorf("fastExpSum(%v) = %v, want %v", row, got, want)
		}
	}
}

// TestLogSumExpExact checks the fast sum against the plain one bit for bit
// on rows of every kind, peaked ones (log(s) tiny: the exact fallback)
// included.
func TestLogSumExpExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ninf := float32(math.Inf(-1))
	for n := range 3000 {
		V := 1 + r.IntN(3000)
		if n%50 == 0 {
			V = 50400
		}
		row := make([]float32, V)
		spread := []float32{0.01, 1, 5, 20, 100, 1000}[n%6]
		for i := range row {
			row[i] = float32(r.NormFloat64()) * spread
			if n%7 == 0 && r.IntN(10) == 0 {
				row[i] = ninf
			}
		}
		if n%5 == 0 {
			row[r.IntN(V)] += 60 // peaked: one token holds almost all the mass
		}
		gm, gl := logSumExp(row)
		wm, wl := plainLogSumExp(row)
		if math.Float32bits(gm) != math.Float32bits(wm) || math.Float32bits(gl) != math.Float32bits(wl) {
			t.Fatalf("row %d (V %d): logSumExp = %v, %v; plain %v, %v", n, V, gm, gl, wm, wl)
		}
	}
	for _, row := range [][]float32{{float32(math.NaN()), 1}, {1, float32(math.Inf(1))}, {ninf, ninf}, {ninf, 2, float32(math.Inf(1))}} {
		got := LogSoftmax(nil, row)
		m, ls := plainLogSumExp(row)
		for i, v := range got {
			if v == v || math.Float32bits(v) != math.Float32bits((row[i]-m)-ls) {
				t.Errorf("LogSoftmax(%v)[%d] = %v (%#x), want the plain NaN", row, i, v, math.Float32bits(v))
			}
		}
	}
}

// refTop is the single pass of Step over explicit log-probability rows.
func refTop(rows [][]float32, scores []float32, k, mask int) ([]candidate, error) {
	var c []candidate
	V := len(rows[0])
	for beam, bs := range scores {
		row := rows[min(beam, len(rows)-1)]
		for t, v := range row {
			if v != v {
				return nil, fmt.Errorf("NaN at beam %d token %d", beam, t)
			}
			if t == mask {
				v = float32(math.Inf(-1))
			}
			s := v + bs
			if len(c) == k && !(s > c[k-1].score) {
				continue
			}
			j := len(c)
			if j < k {
				c = append(c, candidate{})
			} else {
				j = k - 1
			}
			for j > 0 && c[j-1].score < s {
				c[j] = c[j-1]
				j--
			}
			c[j] = candidate{score: s, idx: beam*V + t}
		}
	}
	return c, nil
}

// plainLogSoftmax is LogSoftmax with the plain math.Exp sum.
func plainLogSoftmax(row []float32) []float32 {
	m, ls := plainLogSumExp(row)
	out := make([]float32, len(row))
	for i, v := range row {
		out[i] = (v - m) - ls
	}
	return out
}

// TestStepCandidatesMatchSinglePass checks that StepLogits (fused
// normalisation, per-beam tops, merged) and Step pick exactly the
// candidates, scores and errors of one pass over the LogSoftmax rows:
// ties, -Inf, masked EOS, shared first rows, NaN and wide rows included.
func TestStepCandidatesMatchSinglePass(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ninf, nan := float32(math.Inf(-1)), float32(math.NaN())
	for n := range 4000 {
		B := []int{1, 2, 3, 4}[n%4]
		V := []int{2, 3, 7, 40, 300, wideRow + 5}[r.IntN(6)]
		if V < 2*B {
			V = 2 * B
		}
		shared := B > 1 && n%5 == 0
		nrows := B
		if shared {
			nrows = 1
		}
		levels := 1 + r.IntN(6) // few distinct values: many ties
		rows := make([][]float32, nrows)
		for i := range rows {
			rows[i] = make([]float32, V)
			for j := range rows[i] {
				rows[i][j] = float32(r.IntN(levels)) * 0.25
				if n%3 == 0 {
					rows[i][j] = float32(r.NormFloat64() * 3)
				}
				if r.IntN(20) == 0 {
					rows[i][j] = ninf
				}
			}
		}
		if n%97 == 0 {
			rows[r.IntN(nrows)][r.IntN(V)] = nan
		}
		if n%89 == 0 {
			rows[r.IntN(nrows)][r.IntN(V)] = float32(math.Inf(1))
		}
		cfg := BeamConfig{Beams: B, EOS: int32(r.IntN(V+2) - 1), MinNewTokens: r.IntN(3), MaxNewTokens: 5, PromptLen: 3, LengthPenalty: 1}
		for _, raw := range []bool{true, false} {
			b, err := NewBeamSearch(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !shared && n%2 == 0 {
				// a later step: arbitrary running scores
				b.cur = r.IntN(3)
				for i := range b.scores {
					b.scores[i] = []float32{0, -1.5, -1e9, float32(-r.Float64() * 10), ninf}[r.IntN(5)]
				}
			}
			mask := -1
			if cfg.EOS >= 0 && int(cfg.EOS) < V && b.cur < cfg.MinNewTokens {
				mask = int(cfg.EOS)
			}
			lp := rows
			if raw {
				lp = make([][]float32, nrows)
				for i, row := range rows {
					lp[i] = plainLogSoftmax(row)
				}
			}
			want, werr := refTop(lp, append([]float32(nil), b.scores...), 2*B, mask)
			var gerr error
			if raw {
				_, _, _, gerr = b.StepLogits(rows)
			} else {
				_, _, _, gerr = b.Step(rows)
			}
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("case %d raw %v: err %v, want %v", n, raw, gerr, werr)
			}
			if werr != nil {
				continue
			}
			got := b.cand
			if len(got) != len(want) {
				t.Fatalf("case %d raw %v: %d candidates, want %d", n, raw, len(got), len(want))
			}
			for i := range want {
				if got[i].idx != want[i].idx || math.Float32bits(got[i].score) != math.Float32bits(want[i].score) {
					t.Fatalf("case %d raw %v (B %d V %d shared %v): candidate %d = %v, want %v\ngot  %v\nwant %v", n, raw, B, V, shared, i, got[i], want[i], got, want)
				}
			}
		}
	}
}

func BenchmarkLogSumExpGPTJ(b *testing.B) {
	row := make([]float32, 50400)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range row {
		row[i] = float32(r.NormFloat64() * 3)
	}
	for b.Loop() {
		logSumExp(row)
	}
}
