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

// The LAPACK 3.11 routines below are the reference algorithms (as the
// Debian liblapack that OpenBLAS ships compiles them: no fused
// multiply-adds in the Fortran) calling the kernels above; column-major.

// lpDlapy2 is LAPACK's dlapy2: sqrt(x²+y²) as w·sqrt(1+(z/w)²).
func lpDlapy2(x, y float64) float64 {
	w, z := math.Abs(x), math.Abs(y)
	if z > w {
		w, z = z, w
	}
	if z == 0 || w > math.MaxFloat64 {
		return w
	}
	q := z / w
	return w * math.Sqrt(1+q*q)
}

// lpDlarfg is LAPACK's dlarfg on alpha and the n−1 values of x (unit
// stride): it returns beta and tau, and scales x into the reflector's v.
func lpDlarfg(n int, alpha float64, x []float64) (beta, tau float64) {
	if n <= 1 {
		return alpha, 0
	}
	x = x[:n-1]
	xnorm := obNrm2(x)
	if xnorm == 0 {
		return alpha, 0
	}
	beta = -math.Copysign(lpDlapy2(alpha, xnorm), alpha)
	const safmin = 0x1p-1022 / 0x1p-53 // dlamch('S')/dlamch('E')
	knt := 0
	if math.Abs(beta) < safmin {
		const rsafmn = 1 / safmin
		for {
			knt++
			for i := range x {
				x[i] *= rsafmn
			}
			beta *= rsafmn
			alpha *= rsafmn
			if math.Abs(beta) >= safmin || knt >= 20 {
				break
			}
		}
		xnorm = obNrm2(x)
		beta = -math.Copysign(lpDlapy2(alpha, xnorm), alpha)
	}
	tau = (beta - alpha) / beta
	s := 1 / (alpha - beta)
	for i := range x {
		x[i] *= s
	}
	for range knt {
		beta *= safmin
	}
	return beta, tau
}

// lpDlarf applies H = I − tau·v·vᵀ to the m×n c (leading dimension ldc)
// from the left (left true) or the right, as LAPACK's dlarf: trailing
// zeros of v and zero rows/columns of c are skipped first. work holds at
// least n (left) or m (right) values.
func lpDlarf(left bool, m, n int, v []float64, tau float64, c []float64, ldc int, work []float64) {
	if tau == 0 {
		return
	}
	lastv := n
	if left {
		lastv = m
	}
	for lastv > 0 && v[lastv-1] == 0 {
		lastv--
	}
	if lastv == 0 {
		return
	}
	if left {
		lastc := iladlc(lastv, n, c, ldc)
		obGemvT(lastv, lastc, c, ldc, v, work)
		obGer(lastv, lastc, -tau, v, work, c, ldc)
		return
	}
	lastc := iladlr(m, lastv, c, ldc)
	obGemvN(lastc, lastv, c, ldc, v, work)
	obGer(lastc, lastv, -tau, work, v, c, ldc)
}

// iladlc is LAPACK's iladlc: the number of leading columns of the m×n a
// up to its last non-zero column.
func iladlc(m, n int, a []float64, lda int) int {
	if n == 0 || a[(n-1)*lda] != 0 || a[m-1+(n-1)*lda] != 0 {
		return n
	}
	for j := n; j > 0; j-- {
		for i := range m {
			if a[i+(j-1)*lda] != 0 {
				return j
			}
		}
	}
	return 0
}

// iladlr is LAPACK's iladlr: the number of leading rows of the m×n a up
// to its last non-zero row.
func iladlr(m, n int, a []float64, lda int) int {
	if m == 0 || a[m-1] != 0 || a[m-1+(n-1)*lda] != 0 {
		return m
	}
	r := 0
	for j := range n {
		i := m
		for i >= 1 && a[max(i, 1)-1+j*lda] == 0 {
			i--
		}
		r = max(r, i)
	}
	return r
}

// lpDgehd2 is LAPACK's dgehd2 (what dgehrd runs for ihi−ilo below 129):
// the Hessenberg reduction of rows and columns ilo..ihi (0-based) of the
// n×n column-major a, with the reflectors below the subdiagonal and their
// factors in tau (n−1 values).
func lpDgehd2(n, ilo, ihi int, a, tau []float64) {
	work := make([]float64, n)
	for i := ilo; i < ihi; i++ {
		x := a[min(i+2, n-1)+i*n:]
		beta, t := lpDlarfg(ihi-i, a[i+1+i*n], x)
		tau[i] = t
		a[i+1+i*n] = 1
		v := a[i+1+i*n:]
		lpDlarf(false, ihi+1, ihi-i, v, t, a[(i+1)*n:], n, work)
		lpDlarf(true, ihi-i, n-i-1, v, t, a[i+1+(i+1)*n:], n, work)
		a[i+1+i*n] = beta
	}
}

// lpDorghr is LAPACK's dorghr with dorg2r (what dorgqr runs below 129
// columns): it overwrites the output of lpDgehd2 with the orthogonal Q.
func lpDorghr(n, ilo, ihi int, a, tau []float64) {
	for j := ihi; j > ilo; j-- {
		for i := 0; i < j; i++ {
			a[i+j*n] = 0
		}
		for i := j + 1; i <= ihi; i++ {
			a[i+j*n] = a[i+(j-1)*n]
		}
		for i := ihi + 1; i < n; i++ {
			a[i+j*n] = 0
		}
	}
	for j := 0; j <= ilo; j++ {
		for i := range n {
			a[i+j*n] = 0
		}
		a[j+j*n] = 1
	}
	for j := ihi + 1; j < n; j++ {
		for i := range n {
			a[i+j*n] = 0
		}
		a[j+j*n] = 1
	}
	nh := ihi - ilo
	if nh > 0 {
		lpDorg2r(nh, nh, nh, a[ilo+1+(ilo+1)*n:], n, tau[ilo:], make([]float64, n))
	}
}

// lpDorg2r is LAPACK's dorg2r: the m×n Q with orthonormal columns from k
// reflectors stored in a (leading dimension lda) and tau.
func lpDorg2r(m, n, k int, a []float64, lda int, tau, work []float64) {
	for j := k; j < n; j++ {
		for l := range m {
			a[l+j*lda] = 0
		}
		a[j+j*lda] = 1
	}
	for i := k - 1; i >= 0; i-- {
		if i < n-1 {
			a[i+i*lda] = 1
			lpDlarf(true, m-i, n-i-1, a[i+i*lda:], tau[i], a[i+(i+1)*lda:], lda, work)
		}
		if i < m-1 {
			s := -tau[i]
			for l := i + 1; l < m; l++ {
				a[l+i*lda] *= s
			}
		}
		a[i+i*lda] = 1 - tau[i]
		for l := 0; l < i; l++ {
			a[l+i*lda] = 0
		}
	}
}

// obSmallGemmMax is the largest n for which numpy's a.dot(b) of two n×n
// matrices runs OpenBLAS's small-matrix dgemm kernel (its permit: M·N·K
// at most 100³), which obMatMul follows.
const obSmallGemmMax = 100

// obMatMul is numpy's a.dot(b) for row-major n×n a and b, n at most
// obSmallGemmMax, as OpenBLAS's dgemm_small_kernel_nn_skylakex.c computes
// it (numpy's row-major product is the column-major bᵀaᵀ, so the kernel's
// M runs over the columns of the result): each element is an FMA chain
// over k from zero, except in the last n mod 8 columns when there are at
// most 4 of them and n ≥ 16, where eight FMA lanes (k mod 8) are reduced
// as one of two trees.
func obMatMul(a, b []float64, n int) []float64 {
	c := make([]float64, n*n)
	tail := n &^ 7
	mm := n - tail
	reduced := mm > 0 && mm <= 4 && n >= 16
	bt := transposeSquare(b, n) // column p of b, contiguous
	for q := range n {
		arow := a[q*n : (q+1)*n]
		for p := range n {
			bcol := bt[p*n : (p+1)*n]
			if !reduced || p < tail {
				s := 0.0
				for k, v := range arow {
					s = math.FMA(v, bcol[k], s)
				}
				c[q*n+p] = s
				continue
			}
			var l [8]float64
			for k, v := range arow {
				l[k&7] = math.FMA(v, bcol[k], l[k&7])
			}
			if mm == 4 || q < n&^3 {
				// REDUCE_4: unpack/permute tree
				c[q*n+p] = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
			} else {
				// GCC's _mm512_reduce_add_pd: halves, then quarters
				c[q*n+p] = ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]))
			}
		}
	}
	return c
}

// obSyrkMaxDims is the largest feature count for which obCov has been
// checked against numpy's np.cov.
const obSyrkMaxDims = 128

// obCov is np.cov's X·Xᵀ step on the centred rows×dims row-major xc, as
// OpenBLAS's dsyrk computes it: per element an FMA chain over the rows in
// chunks of at most DGEMM_DEFAULT_Q (384 on Skylake-X) split the way
// driver/level3/level3_syrk.c splits K, each chunk from zero and added to
// the running value. The result is symmetric (numpy mirrors the upper
// triangle); f scales it afterwards (numpy's c *= 1/fact).
func obCov(xc []float64, rows, dims int, f float64) []float64 {
	const q = 384
	cols := make([]float64, rows*dims) // column j of xc, contiguous
	for r := range rows {
		for j := range dims {
			cols[j*rows+r] = xc[r*dims+j]
		}
	}
	c := make([]float64, dims*dims)
	for i := range dims {
		ci := cols[i*rows : (i+1)*rows]
		for j := i; j < dims; j++ {
			cj := cols[j*rows : (j+1)*rows]
			tot := 0.0
			for ls, ml := 0, 0; ls < rows; ls += ml {
				ml = rows - ls
				if ml >= 2*q {
					ml = q
				} else if ml > q {
					ml = (ml + 1) / 2
				}
				s := 0.0
				for r := ls; r < ls+ml; r++ {
					s = math.FMA(ci[r], cj[r], s)
				}
				tot += s
			}
			c[i*dims+j] = tot * f
			c[j*dims+i] = c[i*dims+j]
		}
	}
	return c
}
