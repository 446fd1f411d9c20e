package fid

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/mlperf-go/inference/preprocess"
)

// blasIndex is testdata/blas/index.json (make_blas_golden.py).
type blasIndex struct {
	BLAS       string   `json:"blas"`
	Gemm       []string `json:"gemm"`
	Cov        []string `json:"cov"`
	Hessenberg []struct {
		Name     string `json:"name"`
		Ilo, Ihi int
	} `json:"hessenberg"`
}

func loadBLASGolden(t *testing.T) blasIndex {
	t.Helper()
	b, err := os.ReadFile("testdata/blas/index.json")
	if err != nil {
		t.Fatal(err)
	}
	var ix blasIndex
	if err := json.Unmarshal(b, &ix); err != nil {
		t.Fatal(err)
	}
	if len(ix.Gemm) == 0 || len(ix.Cov) == 0 || len(ix.Hessenberg) == 0 {
		t.Fatal("empty BLAS golden index")
	}
	return ix
}

// blasNpy returns the float64 array in testdata/blas/name.npy and its
// shape.
func blasNpy(t *testing.T, name string) ([]float64, []int) {
	t.Helper()
	a, err := preprocess.LoadNpyArray(filepath.Join("testdata/blas", name+".npy"))
	if err != nil {
		t.Fatal(err)
	}
	return a.Float64s(), a.Shape
}

// sameBits reports the first index where got and want differ in any bit,
// or -1.
func sameBits(got, want []float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			return i
		}
	}
	return -1
}

// TestOpenBLASProductGolden: numpy's a.dot(b) bit for bit, including the
// lane-reduced last columns of the small dgemm kernel.
func TestOpenBLASProductGolden(t *testing.T) {
	ix := loadBLASGolden(t)
	for _, name := range ix.Gemm {
		a, sh := blasNpy(t, name+"_a")
		b, _ := blasNpy(t, name+"_b")
		c, _ := blasNpy(t, name+"_c")
		n := sh[0]
		got := matMul(Matrix{N: n, Data: a}, Matrix{N: n, Data: b}).Data
		if i := sameBits(got, c); i >= 0 {
			t.Errorf("%s: element (%d,%d) %x, numpy %x (%s)", name, i/n, i%n, got[i], c[i], ix.BLAS)
		}
	}
}

// TestOpenBLASCovGolden: MeanCov's covariance is np.cov's bit for bit
// (dsyrk's K split above 384 rows included).
func TestOpenBLASCovGolden(t *testing.T) {
	ix := loadBLASGolden(t)
	for _, name := range ix.Cov {
		x, sh := blasNpy(t, name+"_x")
		c, _ := blasNpy(t, name+"_c")
		_, cov, err := MeanCov(x, sh[0], sh[1])
		if err != nil {
			t.Fatal(err)
		}
		if i := sameBits(cov.Data, c); i >= 0 {
			t.Errorf("%s: element %d %x, numpy %x (%s)", name, i, cov.Data[i], c[i], ix.BLAS)
		}
	}
}

// TestOpenBLASHessenbergGolden: permutation balancing, dgehd2 and dorghr
// give scipy.linalg.lapack's dgebal/dgehrd/dorghr bits.
func TestOpenBLASHessenbergGolden(t *testing.T) {
	ix := loadBLASGolden(t)
	for _, c := range ix.Hessenberg {
		a, sh := blasNpy(t, c.Name+"_a")
		wantBal, _ := blasNpy(t, c.Name+"_bal")
		wantH, _ := blasNpy(t, c.Name+"_h")
		wantTau, _ := blasNpy(t, c.Name+"_tau")
		wantQ, _ := blasNpy(t, c.Name+"_q")
		n := sh[0]
		if n > faithfulHessenbergMax {
			t.Fatalf("%s: n=%d is past the faithful path", c.Name, n)
		}
		bal := append([]float64(nil), a...)
		ilo, ihi := gonum.Implementation{}.Dgebal(lapack.Permute, n, bal, n, make([]float64, n))
		if ilo != c.Ilo || ihi != c.Ihi {
			t.Fatalf("%s: ilo, ihi %d, %d; LAPACK %d, %d", c.Name, ilo, ihi, c.Ilo, c.Ihi)
		}
		if i := sameBits(bal, wantBal); i >= 0 {
			t.Fatalf("%s: balanced element %d differs", c.Name, i)
		}
		h := transposeSquare(bal, n)
		tau := make([]float64, n-1)
		lpDgehd2(n, ilo, ihi, h, tau)
		if i := sameBits(tau, wantTau[:n-1]); i >= 0 {
			t.Errorf("%s: tau[%d] %x, LAPACK %x (%s)", c.Name, i, tau[i], wantTau[i], ix.BLAS)
		}
		if i := sameBits(transposeSquare(h, n), wantH); i >= 0 {
			t.Errorf("%s: H(%d,%d) differs (%s)", c.Name, i/n, i%n, ix.BLAS)
		}
		lpDorghr(n, ilo, ihi, h, tau)
		if i := sameBits(transposeSquare(h, n), wantQ); i >= 0 {
			t.Errorf("%s: Q(%d,%d) differs (%s)", c.Name, i/n, i%n, ix.BLAS)
		}
	}
}

// TestOpenBLASSchurGolden: realSchur gives scipy.linalg.schur's T and Z
// bit for bit (dgees: the above, then dlahqr, then dgebak).
func TestOpenBLASSchurGolden(t *testing.T) {
	ix := loadBLASGolden(t)
	for _, c := range ix.Hessenberg {
		a, sh := blasNpy(t, c.Name+"_a")
		wantT, _ := blasNpy(t, c.Name+"_t")
		wantZ, _ := blasNpy(t, c.Name+"_z")
		n := sh[0]
		if n > faithfulQRMax {
			t.Fatalf("%s: n=%d is past the faithful path", c.Name, n)
		}
		gotT, gotZ, err := realSchur(Matrix{N: n, Data: a})
		if err != nil {
			t.Fatal(err)
		}
		if i := sameBits(gotT, wantT); i >= 0 {
			t.Errorf("%s: T(%d,%d) %x, scipy %x (%s)", c.Name, i/n, i%n, gotT[i], wantT[i], ix.BLAS)
		}
		if i := sameBits(gotZ, wantZ); i >= 0 {
			t.Errorf("%s: Z(%d,%d) %x, scipy %x (%s)", c.Name, i/n, i%n, gotZ[i], wantZ[i], ix.BLAS)
		}
	}
}
