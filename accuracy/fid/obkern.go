package fid

import (
	"math"
	"math/big"
)

// Products that the emulated code rounds before adding are written
// float64(a*b): the Go spec lets a compiler fuse a*b+c into one FMA (gc
// does on arm64, ppc64le, s390x, and on amd64 with GOAMD64=v3), and an
// explicit conversion forbids it.

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
					l0 += float64(col[i] * x[i])
					l1 += float64(col[i+1] * x[i+1])
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
					l[k] += float64(col[i+k] * x[i+k])
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
				y[i] += float64(c0[i] * x[j])
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
	return w * math.Sqrt(1+float64(q*q))
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
const obSyrkMaxDims = 96

// obCov is np.cov's X·Xᵀ step on the centred rows×dims row-major xc, as
// OpenBLAS's dsyrk computes it on Skylake-X: K (the rows) is split in
// chunks of at most DGEMM_DEFAULT_Q = 384 the way
// driver/level3/level3_syrk.c splits it, each chunk summed from zero and
// added to the running value; within a chunk an element is an FMA chain
// over k, except where dgemm_kernel_16x2_skylakex.c's 12-column blocks
// meet its 4-, 2- or 1-row tails (obSyrkPath), which keep 2 or 4 partial
// sums over k. The result is symmetric (numpy mirrors the upper
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
			lanes := obSyrkPath(dims, j, i)
			tot := 0.0
			for ls, ml := 0, 0; ls < rows; ls += ml {
				ml = rows - ls
				if ml >= 2*q {
					ml = q
				} else if ml > q {
					ml = (ml + 1) / 2
				}
				tot += obDotLanes(ci[ls:ls+ml], cj[ls:ls+ml], lanes)
			}
			c[i*dims+j] = tot * f
			c[j*dims+i] = c[i*dims+j]
		}
	}
	return c
}

// obDotLanes is Σ a[k]·b[k] as the Skylake-X dgemm kernel sums it: one
// FMA chain (lanes 1), or, while at least lanes values remain, lanes
// chains over k mod lanes merged as L0+L1 or (L0+L1)+(L2+L3), the rest
// continuing the merged chain.
func obDotLanes(a, b []float64, lanes int) float64 {
	k := 0
	s := 0.0
	switch lanes {
	case 2:
		var l0, l1 float64
		for ; k+2 <= len(a); k += 2 {
			l0 = math.FMA(a[k], b[k], l0)
			l1 = math.FMA(a[k+1], b[k+1], l1)
		}
		s = l0 + l1
	case 4:
		var l [4]float64
		for ; k+4 <= len(a); k += 4 {
			for m := range 4 {
				l[m] = math.FMA(a[k+m], b[k+m], l[m])
			}
		}
		s = (l[0] + l[1]) + (l[2] + l[3])
	}
	for ; k < len(a); k++ {
		s = math.FMA(a[k], b[k], s)
	}
	return s
}

// obSyrkPath returns the number of partial sums (1, 2 or 4) in which
// OpenBLAS's dsyrk (numpy's row-major upper call, the column-major lower
// triangle to OpenBLAS) sums element (p, q), p ≥ q, of a dims×dims
// result: syrk_kernel.c computes 32-column diagonal blocks and the rows
// below each as separate kernel calls; the kernel splits a call's rows in
// 16s then 8, 4, 2, 1 and its columns in 12s then 10, 8, 6, 4, 2, 1, and
// only its 4-row (2 sums) and 2- or 1-row (4 sums) tails in 12-column
// blocks sum over k in more than one chain.
func obSyrkPath(dims, p, q int) int {
	const mn = 32 // GEMM_UNROLL_MN
	b := q / mn * mn
	nn := min(mn, dims-b)
	r0, m := b, nn // the kernel call holding row p: start, rows
	if p >= b+nn {
		r0, m = b+nn, dims-b-nn
	}
	rp := p - r0
	rs := 16 // row sub-block size
	if rp >= m&^15 {
		rs = 0
		start := m &^ 15
		for _, sz := range []int{8, 4, 2, 1} {
			if m-start >= sz {
				if rp < start+sz {
					rs = sz
					break
				}
				start += sz
			}
		}
	}
	cq := q - b
	cs := 0 // column sub-block size
	start, left := 0, nn
	for left > 11 {
		if cq < start+12 {
			cs = 12
		}
		start += 12
		left -= 12
	}
	if cs != 12 {
		return 1
	}
	switch rs {
	case 4:
		return 2
	case 2, 1:
		return 4
	}
	return 1
}

// obRot is OpenBLAS's drot (kernel/x86_64/drot.c, every path):
// x' = fma(c, x, s·y), y' = fma(c, y, −(s·x)), over n pairs at strides.
func obRot(n int, x []float64, incx int, y []float64, incy int, c, s float64) {
	for i := range n {
		xv, yv := x[i*incx], y[i*incy]
		x[i*incx] = math.FMA(c, xv, s*yv)
		y[i*incy] = math.FMA(c, yv, -(s * xv))
	}
}

// LAPACK's machine constants (dlamch) for float64.
const (
	lpSafmin = 0x1p-1022 // dlamch('S')
	lpUlp    = 0x1p-52   // dlamch('P'): eps·base
)

// fsign is Fortran's SIGN(a, b): |a| with the sign of b.
func fsign(a, b float64) float64 { return math.Copysign(a, b) }

// lpDlanv2 is LAPACK 3.11's dlanv2: the Schur factorisation of the real
// 2×2 [[a b] [c d]] in standard form; it returns the new a, b, c, d, the
// eigenvalues (rt1r, rt1i), (rt2r, rt2i) and the rotation (cs, sn).
func lpDlanv2(a, b, c, d float64) (na, nb, nc, nd, rt1r, rt1i, rt2r, rt2i, cs, sn float64) {
	const multpl = 4
	eps := lpUlp
	safmn2 := math.Pow(2, float64(int(math.Log(lpSafmin/eps)/math.Log(2)/2)))
	safmx2 := 1 / safmn2
	switch {
	case c == 0:
		cs, sn = 1, 0
	case b == 0:
		cs, sn = 0, 1
		a, d = d, a
		b = -c
		c = 0
	case a-d == 0 && fsign(1, b) != fsign(1, c):
		cs, sn = 1, 0
	default:
		temp := a - d
		p := 0.5 * temp
		bcmax := math.Max(math.Abs(b), math.Abs(c))
		bcmis := math.Min(math.Abs(b), math.Abs(c)) * fsign(1, b) * fsign(1, c)
		scale := math.Max(math.Abs(p), bcmax)
		z := float64((p/scale)*p) + float64((bcmax/scale)*bcmis)
		if z >= multpl*eps {
			z = p + fsign(math.Sqrt(scale)*math.Sqrt(z), p)
			a = d + z
			d = d - float64((bcmax/z)*bcmis)
			tau := lpDlapy2(c, z)
			cs = z / tau
			sn = c / tau
			b = b - c
			c = 0
		} else {
			sigma := b + c
			for count := 1; ; count++ {
				scale = math.Max(math.Abs(temp), math.Abs(sigma))
				if scale >= safmx2 {
					sigma *= safmn2
					temp *= safmn2
					if count <= 20 {
						continue
					}
				}
				if scale <= safmn2 {
					sigma *= safmx2
					temp *= safmx2
					if count <= 20 {
						continue
					}
				}
				break
			}
			p = 0.5 * temp
			tau := lpDlapy2(sigma, temp)
			cs = math.Sqrt(0.5 * (1 + math.Abs(sigma)/tau))
			sn = -(p / (tau * cs)) * fsign(1, sigma)
			aa := float64(a*cs) + float64(b*sn)
			bb := float64(-a*sn) + float64(b*cs)
			cc := float64(c*cs) + float64(d*sn)
			dd := float64(-c*sn) + float64(d*cs)
			a = float64(aa*cs) + float64(cc*sn)
			b = float64(bb*cs) + float64(dd*sn)
			c = float64(-aa*sn) + float64(cc*cs)
			d = float64(-bb*sn) + float64(dd*cs)
			temp = 0.5 * (a + d)
			a, d = temp, temp
			if c != 0 {
				if b != 0 {
					if fsign(1, b) == fsign(1, c) {
						sab := math.Sqrt(math.Abs(b))
						sac := math.Sqrt(math.Abs(c))
						p = fsign(sab*sac, c)
						tau = 1 / math.Sqrt(math.Abs(b+c))
						a = temp + p
						d = temp - p
						b = b - c
						c = 0
						cs1 := sab * tau
						sn1 := sac * tau
						temp = float64(cs*cs1) - float64(sn*sn1)
						sn = float64(cs*sn1) + float64(sn*cs1)
						cs = temp
					}
				} else {
					b = -c
					c = 0
					temp = cs
					cs = -sn
					sn = temp
				}
			}
		}
	}
	rt1r, rt2r = a, d
	if c != 0 {
		rt1i = math.Sqrt(math.Abs(b)) * math.Sqrt(math.Abs(c))
		rt2i = -rt1i
	}
	return a, b, c, d, rt1r, rt1i, rt2r, rt2i, cs, sn
}

// lpDlahqr is LAPACK 3.11's dlahqr with wantt and wantz (what dhseqr runs
// below 76 rows): the double-shift QR iteration on rows and columns
// ilo..ihi (1-based, as in LAPACK) of the n×n column-major upper
// Hessenberg h, accumulating into rows iloz..ihiz of z. It returns
// LAPACK's info: 0, or the index of the first unconverged eigenvalue.
func lpDlahqr(n, ilo, ihi int, h []float64, ldh int, wr, wi []float64, iloz, ihiz int, z []float64, ldz int) int {
	H := func(i, j int) *float64 { return &h[(i-1)+(j-1)*ldh] }
	Z := func(i, j int) *float64 { return &z[(i-1)+(j-1)*ldz] }
	if n == 0 {
		return 0
	}
	if ilo == ihi {
		wr[ilo-1] = *H(ilo, ilo)
		wi[ilo-1] = 0
		return 0
	}
	for j := ilo; j <= ihi-3; j++ {
		*H(j+2, j) = 0
		*H(j+3, j) = 0
	}
	if ilo <= ihi-2 {
		*H(ihi, ihi-2) = 0
	}
	nh := ihi - ilo + 1
	nz := ihiz - iloz + 1
	const dat1, dat2, kexsh = 3.0 / 4.0, -0.4375, 10
	safmin := lpSafmin
	ulp := lpUlp
	smlnum := safmin * (float64(nh) / ulp)
	i1, i2 := 1, n // wantt
	itmax := 30 * max(10, nh)
	kdefl := 0
	var v [3]float64
	i := ihi
	for i >= ilo {
		l := ilo
		converged := false
		for its := 0; its <= itmax; its++ {
			var k int
			for k = i; k >= l+1; k-- {
				if math.Abs(*H(k, k-1)) <= smlnum {
					break
				}
				tst := math.Abs(*H(k-1, k-1)) + math.Abs(*H(k, k))
				if tst == 0 {
					if k-2 >= ilo {
						tst += math.Abs(*H(k-1, k-2))
					}
					if k+1 <= ihi {
						tst += math.Abs(*H(k+1, k))
					}
				}
				if math.Abs(*H(k, k-1)) <= ulp*tst {
					ab := math.Max(math.Abs(*H(k, k-1)), math.Abs(*H(k-1, k)))
					ba := math.Min(math.Abs(*H(k, k-1)), math.Abs(*H(k-1, k)))
					aa := math.Max(math.Abs(*H(k, k)), math.Abs(*H(k-1, k-1)-*H(k, k)))
					bb := math.Min(math.Abs(*H(k, k)), math.Abs(*H(k-1, k-1)-*H(k, k)))
					s := aa + ab
					if ba*(ab/s) <= math.Max(smlnum, ulp*(bb*(aa/s))) {
						break
					}
				}
			}
			l = k
			if l > ilo {
				*H(l, l-1) = 0
			}
			if l >= i-1 {
				converged = true
				break
			}
			kdefl++
			var h11, h12, h21, h22 float64
			switch {
			case kdefl%(2*kexsh) == 0:
				s := math.Abs(*H(i, i-1)) + math.Abs(*H(i-1, i-2))
				h11 = float64(dat1*s) + *H(i, i)
				h12 = dat2 * s
				h21 = s
				h22 = h11
			case kdefl%kexsh == 0:
				s := math.Abs(*H(l+1, l)) + math.Abs(*H(l+2, l+1))
				h11 = float64(dat1*s) + *H(l, l)
				h12 = dat2 * s
				h21 = s
				h22 = h11
			default:
				h11 = *H(i-1, i-1)
				h21 = *H(i, i-1)
				h12 = *H(i-1, i)
				h22 = *H(i, i)
			}
			var rt1r, rt1i, rt2r, rt2i float64
			s := math.Abs(h11) + math.Abs(h12) + math.Abs(h21) + math.Abs(h22)
			if s != 0 {
				h11 /= s
				h21 /= s
				h12 /= s
				h22 /= s
				tr := (h11 + h22) / 2
				det := float64((h11-tr)*(h22-tr)) - float64(h12*h21)
				rtdisc := math.Sqrt(math.Abs(det))
				if det >= 0 {
					rt1r = tr * s
					rt2r = rt1r
					rt1i = rtdisc * s
					rt2i = -rt1i
				} else {
					rt1r = tr + rtdisc
					rt2r = tr - rtdisc
					if math.Abs(rt1r-h22) <= math.Abs(rt2r-h22) {
						rt1r *= s
						rt2r = rt1r
					} else {
						rt2r *= s
						rt1r = rt2r
					}
				}
			}
			var m int
			for m = i - 2; m >= l; m-- {
				h21s := *H(m+1, m)
				s = math.Abs(*H(m, m)-rt2r) + math.Abs(rt2i) + math.Abs(h21s)
				h21s = *H(m+1, m) / s
				v[0] = float64(h21s**H(m, m+1)) + float64((*H(m, m)-rt1r)*((*H(m, m)-rt2r)/s)) - float64(rt1i*(rt2i/s))
				v[1] = h21s * (*H(m, m) + *H(m+1, m+1) - rt1r - rt2r)
				v[2] = h21s * *H(m+2, m+1)
				s = math.Abs(v[0]) + math.Abs(v[1]) + math.Abs(v[2])
				v[0] /= s
				v[1] /= s
				v[2] /= s
				if m == l {
					break
				}
				if math.Abs(*H(m, m-1))*(math.Abs(v[1])+math.Abs(v[2])) <=
					ulp*math.Abs(v[0])*(math.Abs(*H(m-1, m-1))+math.Abs(*H(m, m))+math.Abs(*H(m+1, m+1))) {
					break
				}
			}
			for k := m; k <= i-1; k++ {
				nr := min(3, i-k+1)
				if k > m {
					for r := range nr {
						v[r] = *H(k+r, k-1)
					}
				}
				var t1 float64
				v[0], t1 = lpDlarfg(nr, v[0], v[1:nr])
				if k > m {
					*H(k, k-1) = v[0]
					*H(k+1, k-1) = 0
					if k < i-1 {
						*H(k+2, k-1) = 0
					}
				} else if m > l {
					*H(k, k-1) = *H(k, k-1) * (1 - t1)
				}
				v2 := v[1]
				t2 := t1 * v2
				if nr == 3 {
					v3 := v[2]
					t3 := t1 * v3
					for j := k; j <= i2; j++ {
						sum := *H(k, j) + float64(v2**H(k+1, j)) + float64(v3**H(k+2, j))
						*H(k, j) = *H(k, j) - float64(sum*t1)
						*H(k+1, j) = *H(k+1, j) - float64(sum*t2)
						*H(k+2, j) = *H(k+2, j) - float64(sum*t3)
					}
					for j := i1; j <= min(k+3, i); j++ {
						sum := *H(j, k) + float64(v2**H(j, k+1)) + float64(v3**H(j, k+2))
						*H(j, k) = *H(j, k) - float64(sum*t1)
						*H(j, k+1) = *H(j, k+1) - float64(sum*t2)
						*H(j, k+2) = *H(j, k+2) - float64(sum*t3)
					}
					for j := iloz; j <= ihiz; j++ {
						sum := *Z(j, k) + float64(v2**Z(j, k+1)) + float64(v3**Z(j, k+2))
						*Z(j, k) = *Z(j, k) - float64(sum*t1)
						*Z(j, k+1) = *Z(j, k+1) - float64(sum*t2)
						*Z(j, k+2) = *Z(j, k+2) - float64(sum*t3)
					}
				} else if nr == 2 {
					for j := k; j <= i2; j++ {
						sum := *H(k, j) + float64(v2**H(k+1, j))
						*H(k, j) = *H(k, j) - float64(sum*t1)
						*H(k+1, j) = *H(k+1, j) - float64(sum*t2)
					}
					for j := i1; j <= i; j++ {
						sum := *H(j, k) + float64(v2**H(j, k+1))
						*H(j, k) = *H(j, k) - float64(sum*t1)
						*H(j, k+1) = *H(j, k+1) - float64(sum*t2)
					}
					for j := iloz; j <= ihiz; j++ {
						sum := *Z(j, k) + float64(v2**Z(j, k+1))
						*Z(j, k) = *Z(j, k) - float64(sum*t1)
						*Z(j, k+1) = *Z(j, k+1) - float64(sum*t2)
					}
				}
			}
		}
		if !converged {
			return i
		}
		if l == i {
			wr[i-1] = *H(i, i)
			wi[i-1] = 0
		} else if l == i-1 {
			var cs, sn float64
			*H(i-1, i-1), *H(i-1, i), *H(i, i-1), *H(i, i), wr[i-2], wi[i-2], wr[i-1], wi[i-1], cs, sn =
				lpDlanv2(*H(i-1, i-1), *H(i-1, i), *H(i, i-1), *H(i, i))
			if i2 > i {
				obRot(i2-i, h[(i-2)+i*ldh:], ldh, h[(i-1)+i*ldh:], ldh, cs, sn)
			}
			obRot(i-i1-1, h[(i1-1)+(i-2)*ldh:], 1, h[(i1-1)+(i-1)*ldh:], 1, cs, sn)
			obRot(nz, z[(iloz-1)+(i-2)*ldz:], 1, z[(iloz-1)+(i-1)*ldz:], 1, cs, sn)
		}
		kdefl = 0
		i = l - 1
	}
	return 0
}
