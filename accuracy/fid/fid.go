package fid

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"

	"github.com/mlperf-go/inference/internal/pynum"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/cblas128"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// ErrSqrtm is returned by Sqrtm when the triangular recurrence meets a zero
// denominator with a non-zero numerator (scipy's "failed to find the matrix
// square root"); scipy then returns a matrix of NaN.
var ErrSqrtm = errors.New("failed to find the matrix square root")

// Matrix is a dense n×n row-major matrix: element (i, j) is at i*N+j.
type Matrix struct {
	N    int
	Data []float64
}

// CMatrix is a dense n×n row-major complex matrix.
type CMatrix struct {
	N    int
	Data []complex128
}

// Sqrtm is scipy.linalg.sqrtm(a) (scipy 1.10, the version the SDXL
// reference pins): the real Schur form T, Z of a (LAPACK dgees'
// pipeline: permutation balancing, Hessenberg reduction, QR iteration);
// when T has 2×2 blocks it is made complex triangular with scipy's
// rsf2csf Givens rotations; R, the upper-triangular square root of T, is
// built column by column with Higham's recurrence
// R[i,j] = (T[i,j] − Σ_{i<k<j} R[i,k]R[k,j]) / (R[i,i]+R[j,j]), in real
// arithmetic when T is real with a non-negative diagonal and in complex
// otherwise; the result is Z·R·Zᴴ. isComplex reports which arithmetic was
// used (numpy's iscomplexobj of the result). The recurrence is not blocked
// as scipy's is above 64 rows, so the last bits of large results differ.
// It returns ErrSqrtm where scipy returns NaN.
//
// Whether scipy returns NaN can hang on exact zeros in T, so for small
// matrices T and Z follow LAPACK 3.11 over OpenBLAS 0.3.21's Skylake-X /
// Cooper Lake kernels (the BLAS Debian's scipy loads on such a CPU)
// rounding for rounding (obkern.go): up to 75 rows all of dgees (equal to
// scipy.linalg.schur bit for bit), up to 96 the Hessenberg reduction,
// above that gonum's routines. rsf2csf, the recurrence and Z·R·Zᴴ are
// not bit-exact (scipy's use numpy's eigvals and zgemm).
func Sqrtm(a Matrix) (x CMatrix, isComplex bool, err error) {
	n := a.N
	if n <= 0 || len(a.Data) != n*n {
		return CMatrix{}, false, fmt.Errorf("accuracy: sqrtm: want a square matrix, have %d values for n=%d", len(a.Data), n)
	}
	for _, v := range a.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return CMatrix{}, false, fmt.Errorf("accuracy: sqrtm: the matrix has non-finite values (scipy: \"array must not contain infs or NaNs\")")
		}
	}
	t, z, err := realSchur(a)
	if err != nil {
		return CMatrix{}, false, err
	}
	triangular := true
	minDiag := math.Inf(1)
	for i := range n {
		if i > 0 && t[i*n+i-1] != 0 {
			triangular = false
		}
		minDiag = min(minDiag, t[i*n+i])
	}
	if triangular && minDiag >= 0 {
		r, err := sqrtmTriuReal(t, n)
		if err != nil {
			return CMatrix{}, false, err
		}
		// X = Z R Zᵀ
		zr := make([]float64, n*n)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, gen(z, n), gen(r, n), 0, gen(zr, n))
		xr := make([]float64, n*n)
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, gen(zr, n), gen(z, n), 0, gen(xr, n))
		x = CMatrix{N: n, Data: make([]complex128, n*n)}
		for i, v := range xr {
			x.Data[i] = complex(v, 0)
		}
		return x, false, nil
	}
	ct := make([]complex128, n*n)
	cz := make([]complex128, n*n)
	for i := range ct {
		ct[i] = complex(t[i], 0)
		cz[i] = complex(z[i], 0)
	}
	if !triangular {
		rsf2csf(ct, cz, n)
	}
	r, err := sqrtmTriuComplex(ct, n)
	if err != nil {
		return CMatrix{}, true, err
	}
	zr := make([]complex128, n*n)
	cblas128.Gemm(blas.NoTrans, blas.NoTrans, 1, cgen(cz, n), cgen(r, n), 0, cgen(zr, n))
	x = CMatrix{N: n, Data: make([]complex128, n*n)}
	cblas128.Gemm(blas.NoTrans, blas.ConjTrans, 1, cgen(zr, n), cgen(cz, n), 0, cgen(x.Data, n))
	return x, true, nil
}

func gen(d []float64, n int) blas64.General {
	return blas64.General{Rows: n, Cols: n, Stride: n, Data: d}
}

func cgen(d []complex128, n int) cblas128.General {
	return cblas128.General{Rows: n, Cols: n, Stride: n, Data: d}
}

// realSchur returns T and Z with a = Z T Zᵀ, T in standardised real Schur
// form, as LAPACK's dgees (jobvs='V', no sorting) computes them.
func realSchur(a Matrix) (t, z []float64, err error) {
	n := a.N
	impl := gonum.Implementation{}
	t = append([]float64(nil), a.Data...)
	if n == 1 {
		return t, []float64{1}, nil
	}
	scale := make([]float64, n)
	ilo, ihi := impl.Dgebal(lapack.Permute, n, t, n, scale)
	tau := make([]float64, n-1)
	work := make([]float64, n)
	wr, wi := make([]float64, n), make([]float64, n)
	if n <= faithfulHessenbergMax {
		// LAPACK's unblocked dgehd2 and dorg2r over OpenBLAS-order
		// kernels, in column-major storage (the transpose of ours).
		h := transposeSquare(t, n)
		lpDgehd2(n, ilo, ihi, h, tau)
		q := append([]float64(nil), h...)
		lpDorghr(n, ilo, ihi, q, tau)
		if n <= faithfulQRMax && lpDhseqr(n, ilo, ihi, h, q, wr, wi) {
			t, z = transposeSquare(h, n), transposeSquare(q, n)
			impl.Dgebak(lapack.Permute, lapack.EVRight, n, ilo, ihi, scale, n, z, n)
			return t, z, nil
		}
		t, z = transposeSquare(h, n), transposeSquare(q, n)
	} else {
		impl.Dgehrd(n, ilo, ihi, t, n, tau, work, -1)
		work = make([]float64, max(int(work[0]), n))
		impl.Dgehrd(n, ilo, ihi, t, n, tau, work, len(work))
		z = append([]float64(nil), t...)
		impl.Dorghr(n, ilo, ihi, z, n, tau, work, -1)
		if int(work[0]) > len(work) {
			work = make([]float64, int(work[0]))
		}
		impl.Dorghr(n, ilo, ihi, z, n, tau, work, len(work))
	}
	for i := range n { // Dhseqr wants a clean Hessenberg matrix
		for j := 0; j < i-1; j++ {
			t[i*n+j] = 0
		}
	}
	impl.Dhseqr(lapack.EigenvaluesAndSchur, lapack.SchurOrig, n, ilo, ihi, t, n, wr, wi, z, n, work, -1)
	if int(work[0]) > len(work) {
		work = make([]float64, int(work[0]))
	}
	if bad := impl.Dhseqr(lapack.EigenvaluesAndSchur, lapack.SchurOrig, n, ilo, ihi, t, n, wr, wi, z, n, work, len(work)); bad > 0 {
		return nil, nil, fmt.Errorf("accuracy: sqrtm: the Schur decomposition did not converge (%d eigenvalues)", bad)
	}
	impl.Dgebak(lapack.Permute, lapack.EVRight, n, ilo, ihi, scale, n, z, n)
	return t, z, nil
}

// lpDhseqr is LAPACK's dhseqr('S', 'V') for n at most faithfulQRMax,
// where it runs dlahqr: the real Schur form of the column-major
// Hessenberg h (0-based ilo, ihi from balancing), accumulated into q. It
// reports false, leaving h and q partly updated, where dlahqr does not
// converge (LAPACK then retries with dlaqr0, which this does not follow).
func lpDhseqr(n, ilo, ihi int, h, q, wr, wi []float64) bool {
	for i := 0; i < ilo; i++ {
		wr[i], wi[i] = h[i+i*n], 0
	}
	for i := ihi + 1; i < n; i++ {
		wr[i], wi[i] = h[i+i*n], 0
	}
	if ilo == ihi {
		wr[ilo], wi[ilo] = h[ilo+ilo*n], 0
		return true
	}
	if lpDlahqr(n, ilo+1, ihi+1, h, n, wr, wi, ilo+1, ihi+1, q, n) != 0 {
		return false
	}
	for j := range n { // dlaset('L') below the subdiagonal
		for i := j + 2; i < n; i++ {
			h[i+j*n] = 0
		}
	}
	return true
}

// faithfulHessenbergMax is the largest order for which realSchur
// reproduces LAPACK's Hessenberg reduction (dgehrd, dorghr) over
// OpenBLAS rounding for rounding: up to there dgehrd runs only its
// unblocked dgehd2 (its crossover, ilaenv's NX for DGEHRD, is 128),
// dorgqr only dorg2r, and every dgemv stays on one thread (OpenBLAS
// splits those of m·n ≥ 9216, changing their rounding).
const faithfulHessenbergMax = 96

// faithfulQRMax is the largest order for which dhseqr runs dlahqr (its
// NMIN, ilaenv's ISPEC 12, is 75), which lpDlahqr follows; above it
// LAPACK's dlaqr0 and gonum's Dhseqr differ in rounding.
const faithfulQRMax = 75

// transposeSquare returns the transpose of the n×n a.
func transposeSquare(a []float64, n int) []float64 {
	b := make([]float64, n*n)
	for i := range n {
		for j := range n {
			b[j*n+i] = a[i*n+j]
		}
	}
	return b
}

// rsf2csf turns a real Schur form into a complex triangular one with
// Givens rotations, as scipy.linalg.rsf2csf does.
func rsf2csf(t, z []complex128, n int) {
	const eps = 2.220446049250313e-16
	for m := n - 1; m > 0; m-- {
		sub := t[m*n+m-1]
		if cmplx.Abs(sub) > eps*(cmplx.Abs(t[(m-1)*n+m-1])+cmplx.Abs(t[m*n+m])) {
			a, b, c, d := t[(m-1)*n+m-1], t[(m-1)*n+m], sub, t[m*n+m]
			// Eigenvalue of the 2×2 block with the larger imaginary part
			// (LAPACK lists a conjugate pair that way), minus T[m,m].
			h := (a + d) / 2
			disc := cmplx.Sqrt((a-d)*(a-d)/4 + b*c)
			l1, l2 := h+disc, h-disc
			if imag(l2) > imag(l1) {
				l1 = l2
			}
			mu := l1 - d
			r := math.Sqrt(real(mu)*real(mu) + imag(mu)*imag(mu) + real(sub)*real(sub) + imag(sub)*imag(sub))
			cs := mu / complex(r, 0)
			sn := sub / complex(r, 0)
			g := [2][2]complex128{{cmplx.Conj(cs), sn}, {-sn, cs}}
			// rows m-1, m of T from column m-1: G·T
			for j := m - 1; j < n; j++ {
				x, y := t[(m-1)*n+j], t[m*n+j]
				t[(m-1)*n+j] = g[0][0]*x + g[0][1]*y
				t[m*n+j] = g[1][0]*x + g[1][1]*y
			}
			// columns m-1, m of T (rows 0..m) and of Z: ·Gᴴ
			gh := [2][2]complex128{{cmplx.Conj(g[0][0]), cmplx.Conj(g[1][0])}, {cmplx.Conj(g[0][1]), cmplx.Conj(g[1][1])}}
			for i := 0; i <= m; i++ {
				x, y := t[i*n+m-1], t[i*n+m]
				t[i*n+m-1] = x*gh[0][0] + y*gh[1][0]
				t[i*n+m] = x*gh[0][1] + y*gh[1][1]
			}
			for i := range n {
				x, y := z[i*n+m-1], z[i*n+m]
				z[i*n+m-1] = x*gh[0][0] + y*gh[1][0]
				z[i*n+m] = x*gh[0][1] + y*gh[1][1]
			}
		}
		t[m*n+m-1] = 0
	}
}

// sqrtmTriuReal is Higham's recurrence on a real upper-triangular t with
// a non-negative diagonal.
func sqrtmTriuReal(t []float64, n int) ([]float64, error) {
	r := make([]float64, n*n)
	for i := range n {
		r[i*n+i] = math.Sqrt(t[i*n+i])
	}
	for j := range n {
		for i := j - 1; i >= 0; i-- {
			s := 0.0
			for k := i + 1; k < j; k++ {
				s += r[i*n+k] * r[k*n+j]
			}
			denom := r[i*n+i] + r[j*n+j]
			num := t[i*n+j] - s
			switch {
			case denom != 0:
				r[i*n+j] = num / denom
			case num == 0:
				r[i*n+j] = 0
			default:
				return nil, fmt.Errorf("accuracy: sqrtm: %w", ErrSqrtm)
			}
		}
	}
	return r, nil
}

// sqrtmTriuComplex is Higham's recurrence in complex arithmetic.
func sqrtmTriuComplex(t []complex128, n int) ([]complex128, error) {
	r := make([]complex128, n*n)
	for i := range n {
		r[i*n+i] = cmplx.Sqrt(t[i*n+i])
	}
	for j := range n {
		for i := j - 1; i >= 0; i-- {
			var s complex128
			for k := i + 1; k < j; k++ {
				s += r[i*n+k] * r[k*n+j]
			}
			denom := r[i*n+i] + r[j*n+j]
			num := t[i*n+j] - s
			switch {
			case denom != 0:
				r[i*n+j] = num / denom
			case num == 0:
				r[i*n+j] = 0
			default:
				return nil, fmt.Errorf("accuracy: sqrtm: %w", ErrSqrtm)
			}
		}
	}
	return r, nil
}

// Info tells how FrechetDistance reached its value.
type Info struct {
	// Offset is true when sqrtm(Σ1Σ2) was not finite and the reference's
	// fallback ran: 1e-6·I added to both covariances (the reference prints
	// "fid calculation produces singular product; adding 1e-06 to
	// diagonal of cov estimates").
	Offset bool
	// Complex is true when the square root was complex; MaxImagDiag is
	// then the largest |imaginary part| on its diagonal (the reference
	// fails above 1e-3).
	Complex     bool
	MaxImagDiag float64
	TraceSqrt   float64 // trace of the real part of sqrtm(Σ1Σ2)
}

// Eps is the diagonal offset of the reference's singular-product
// fallback.
const Eps = 1e-6

// FrechetDistance is calculate_frechet_distance of the SDXL reference's
// tools/fid/fid_score.py (pytorch-fid's): ‖μ1−μ2‖² + Tr(Σ1) + Tr(Σ2) −
// 2·Tr(sqrtm(Σ1Σ2)), with the eps·I retry when the square root is not
// finite, small imaginary parts dropped and an error when a diagonal
// imaginary part exceeds 1e-3. Traces use numpy's pairwise summation.
// Up to 100 dimensions the product Σ1Σ2 is numpy's bit for bit (OpenBLAS's
// small-matrix dgemm kernel on Skylake-X), so together with MeanCov and
// Sqrtm the eps fallback is taken exactly where scipy takes it for such
// sizes on that BLAS; larger products use gonum's Gemm.
func FrechetDistance(mu1 []float64, sigma1 Matrix, mu2 []float64, sigma2 Matrix) (float64, Info, error) {
	var info Info
	n := len(mu1)
	if len(mu2) != n {
		return 0, info, fmt.Errorf("accuracy: fid: mean vectors of %d and %d values (\"Training and test mean vectors have different lengths\")", n, len(mu2))
	}
	if sigma1.N != n || sigma2.N != n || len(sigma1.Data) != n*n || len(sigma2.Data) != n*n {
		return 0, info, fmt.Errorf("accuracy: fid: covariances %d×%d and %d×%d for means of %d values", sigma1.N, sigma1.N, sigma2.N, sigma2.N, n)
	}
	for _, v := range [][]float64{mu1, mu2, sigma1.Data, sigma2.Data} {
		for _, f := range v {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return 0, info, fmt.Errorf("accuracy: fid: the statistics hold NaN or infinite values")
			}
		}
	}
	covmean, isC, err := Sqrtm(matMul(sigma1, sigma2))
	if errors.Is(err, ErrSqrtm) || (err == nil && !allFinite(covmean.Data)) {
		info.Offset = true
		s1, s2 := addDiag(sigma1, Eps), addDiag(sigma2, Eps)
		covmean, isC, err = Sqrtm(matMul(s1, s2))
	}
	if err != nil {
		return 0, info, fmt.Errorf("accuracy: fid: %w", err)
	}
	diag := make([]float64, n)
	if isC {
		info.Complex = true
		for i := range n {
			im := math.Abs(imag(covmean.Data[i*n+i]))
			if !(im <= 1e-3) {
				m := 0.0
				for _, c := range covmean.Data {
					m = max(m, math.Abs(imag(c)))
				}
				return 0, info, fmt.Errorf("accuracy: fid: imaginary component %v (sqrtm(Σ1Σ2) is not close to real)", m)
			}
			info.MaxImagDiag = max(info.MaxImagDiag, im)
		}
	}
	for i := range n {
		diag[i] = real(covmean.Data[i*n+i])
	}
	info.TraceSqrt = pynum.Sum(diag)
	d := 0.0
	for i := range n {
		e := mu1[i] - mu2[i]
		d += e * e
	}
	return d + trace(sigma1) + trace(sigma2) - 2*info.TraceSqrt, info, nil
}

func trace(a Matrix) float64 {
	d := make([]float64, a.N)
	for i := range d {
		d[i] = a.Data[i*a.N+i]
	}
	return pynum.Sum(d)
}

func allFinite(c []complex128) bool {
	for _, v := range c {
		if cmplx.IsNaN(v) || cmplx.IsInf(v) {
			return false
		}
	}
	return true
}

func addDiag(a Matrix, eps float64) Matrix {
	b := Matrix{N: a.N, Data: append([]float64(nil), a.Data...)}
	for i := range a.N {
		b.Data[i*a.N+i] += eps
	}
	return b
}

func matMul(a, b Matrix) Matrix {
	if a.N <= obSmallGemmMax {
		return Matrix{N: a.N, Data: obMatMul(a.Data, b.Data, a.N)}
	}
	c := Matrix{N: a.N, Data: make([]float64, a.N*a.N)}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, gen(a.Data, a.N), gen(b.Data, b.N), 0, gen(c.Data, c.N))
	return c
}

// MeanCov returns the per-column mean and the covariance of the rows×dims
// row-major feature matrix x, as np.mean(x, axis=0) and
// np.cov(x, rowvar=False) (ddof 1) compute them: column sums accumulated
// row by row, the mean a division, the covariance (X−μ)ᵀ(X−μ)·(1/(rows−1)).
// Up to 96 features the covariance is np.cov's bit for bit on OpenBLAS's
// Skylake-X dsyrk (obCov); above that it is gonum's Gemm, equal to the
// last bits or so. Values must be finite and rows at least 2.
func MeanCov(x []float64, rows, dims int) ([]float64, Matrix, error) {
	if rows < 2 || dims < 1 || len(x) != rows*dims {
		return nil, Matrix{}, fmt.Errorf("accuracy: fid: %d values for %d rows of %d features (need at least 2 rows)", len(x), rows, dims)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, Matrix{}, fmt.Errorf("accuracy: fid: feature %d of row %d is %v", i%dims, i/dims, v)
		}
	}
	mu := make([]float64, dims)
	for r := range rows {
		for j, v := range x[r*dims : (r+1)*dims] {
			mu[j] += v
		}
	}
	for j := range mu {
		mu[j] /= float64(rows)
	}
	xc := make([]float64, len(x))
	for r := range rows {
		for j := range dims {
			xc[r*dims+j] = x[r*dims+j] - mu[j]
		}
	}
	f := 1 / float64(rows-1)
	if dims <= obSyrkMaxDims {
		return mu, Matrix{N: dims, Data: obCov(xc, rows, dims, f)}, nil
	}
	cov := Matrix{N: dims, Data: make([]float64, dims*dims)}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1,
		blas64.General{Rows: rows, Cols: dims, Stride: dims, Data: xc},
		blas64.General{Rows: rows, Cols: dims, Stride: dims, Data: xc},
		0, gen(cov.Data, dims))
	for i := range cov.Data {
		cov.Data[i] *= f
	}
	return mu, cov, nil
}

// SDXLResult is what the SDXL accuracy script prints.
type SDXLResult struct {
	FID, CLIP float64
}

// String is accuracy_coco.py's line, e.g. "Accuracy Results:
// {'FID_SCORE': '23.48046692', 'CLIP_SCORE': '31.74981837'}", with the
// values as Python's str of a float64.
func (r SDXLResult) String() string {
	return fmt.Sprintf("Accuracy Results: {'FID_SCORE': '%s', 'CLIP_SCORE': '%s'}", pynum.FloatRepr(r.FID), pynum.FloatRepr(r.CLIP))
}
