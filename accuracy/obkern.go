package accuracy

import (
	"math"
	"math/big"
)

// The BLAS kernels below reproduce, rounding for rounding, what OpenBLAS
// 0.3.21's x86-64 kernels for the Skylake-X / Cooper Lake cores compute
// (the BLAS that Debian's numpy and scipy load on such a machine), for
// unit strides, alpha 1 and beta 0 where noted: kernel/x86_64/dgemv_t_4.c,
// dgemv_n_4.c with dgemv_n_microk_skylakex-4.c, kernel/generic/ger.c over
// daxpy.c, and nrm2.S (x87). They are column-major: element (i, j) of a is
// a[i+j*lda]. They serve the small-matrix Schur path of Sqrtm, where
// LAPACK's decisions (exact zeros in the Schur form) depend on these
// roundings.

// obNrm2 is OpenBLAS's x86-64 dnrm2 (nrm2.S): the squares summed in x87
// extended precision (64-bit significands) in four interleaved partial
// sums, added as d+((c+a)+b), the square root taken in extended precision
// and rounded to float64. No scaling: that is what nrm2.S does.
func obNrm2(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	const prec = 64
	var acc [4]*big.Float
	for k := range acc {
		acc[k] = new(big.Float).SetPrec(prec)
	}
	sq := new(big.Float).SetPrec(prec)
	v := new(big.Float).SetPrec(prec)
	main := len(x) &^ 7
	for i := 0; i < main; i++ {
		v.SetFloat64(x[i])
		sq.Mul(v, v)
		acc[i&3].Add(acc[i&3], sq)
	}
	for i := main; i < len(x); i++ {
		v.SetFloat64(x[i])
		sq.Mul(v, v)
		acc[0].Add(acc[0], sq)
	}
	s := new(big.Float).SetPrec(prec).Add(acc[2], acc[0])
	s.Add(s, acc[1])
	s.Add(acc[3], s)
	s.Sqrt(s)
	f, _ := s.Float64()
	return f
}

// obGemvT sets y[j] = Σ_i a[i,j]·x[i] for i < m, j < n (dgemv 'T', alpha
// 1, beta 0).
func obGemvT(m, n int, a []float64, lda int, x, y []float64) {
	for j := range n {
		y[j] = 0
	}
	m3 := m & 3
	nb := m - m3
	if nb > 0 {
		j := 0
		for ; j < n&^3; j++ { // 4x4 kernel: FMA in 4 lanes per column
			y[j] = dotLanes4FMA(a[j*lda:], x, nb)
		}
		if (n-j)&2 != 0 { // 4x2 kernel: SSE mul, add in 2 lanes
			for c := j; c < j+2; c++ {
				var l0, l1 float64
				col := a[c*lda:]
				for i := 0; i < nb; i += 2 {
					l0 += col[i] * x[i]
					l1 += col[i+1] * x[i+1]
				}
				y[c] = l0 + l1
			}
			j += 2
		}
		if (n-j)&1 != 0 { // 4x1 kernel: SSE mul, add in 4 lanes
			col := a[j*lda:]
			var l [4]float64
			for i := 0; i < nb; i += 4 {
				for k := range 4 {
					l[k] += col[i+k] * x[i+k]
				}
			}
			y[j] = (l[0] + l[2]) + (l[1] + l[3])
		}
	}
	switch m3 {
	case 1:
		for j := range n {
			y[j] = math.FMA(a[nb+j*lda], x[nb], y[j])
		}
	case 2:
		for j := range n {
			col := a[nb+j*lda:]
			y[j] += math.FMA(col[0], x[nb], col[1]*x[nb+1])
		}
	case 3:
		for j := range n {
			col := a[nb+j*lda:]
			y[j] += math.FMA(col[2], x[nb+2], math.FMA(col[0], x[nb], col[1]*x[nb+1]))
		}
	}
}

// dotLanes4FMA is the dgemv_t 4x4 microkernel's sum for one column: lane
// k accumulates rows i ≡ k (mod 4) with FMA, the lanes are added as
// (l0+l2)+(l1+l3).
func dotLanes4FMA(col, x []float64, nb int) float64 {
	var l0, l1, l2, l3 float64
	for i := 0; i < nb; i += 4 {
		l0 = math.FMA(col[i], x[i], l0)
		l1 = math.FMA(col[i+1], x[i+1], l1)
		l2 = math.FMA(col[i+2], x[i+2], l2)
		l3 = math.FMA(col[i+3], x[i+3], l3)
	}
	return (l0 + l2) + (l1 + l3)
}

// obGemvN sets y[i] = Σ_j a[i,j]·x[j] for i < m, j < n (dgemv 'N', alpha
// 1, beta 0).
func obGemvN(m, n int, a []float64, lda int, x, y []float64) {
	for i := range m {
		y[i] = 0
	}
	m3 := m & 3
	nb := m - m3
	if nb > 0 {
		j := 0
		for ; j+4 <= n; j += 4 {
			c0, c1, c2, c3 := a[j*lda:], a[(j+1)*lda:], a[(j+2)*lda:], a[(j+3)*lda:]
			for i := range nb {
				s := math.FMA(c0[i], x[j], c1[i]*x[j+1])
				s = math.FMA(c2[i], x[j+2], s)
				s = math.FMA(c3[i], x[j+3], s)
				y[i] += s
			}
		}
		if (n-j)&2 != 0 {
			c0, c1 := a[j*lda:], a[(j+1)*lda:]
			for i := range nb {
				y[i] += math.FMA(c0[i], x[j], c1[i]*x[j+1])
			}
			j += 2
		}
		if (n-j)&1 != 0 {
			c0 := a[j*lda:]
			for i := range nb {
				y[i] += c0[i] * x[j]
			}
		}
	}
	for r := nb; r < m; r++ {
		t, j := 0.0, 0
		if lda == m3 { // dgemv_n_4.c's packed-tail loop: two columns a step
			for ; j < n&^3; j += 2 {
				t += math.FMA(a[r+j*lda], x[j], a[r+(j+1)*lda]*x[j+1])
			}
		}
		for ; j < n; j++ {
			t = math.FMA(a[r+j*lda], x[j], t)
		}
		y[r] += t
	}
}

// obGer is a += alpha·x·yᵀ for the m×n a: column by column, t = alpha·y[j]
// rounded, then a[i,j] = fma(t, x[i], a[i,j]) (ger.c over daxpy).
func obGer(m, n int, alpha float64, x, y, a []float64, lda int) {
	for j := range n {
		t := alpha * y[j]
		col := a[j*lda : j*lda+m]
		for i := range col {
			col[i] = math.FMA(t, x[i], col[i])
		}
	}
}
