package criteo

import (
	"archive/zip"
	"os"
	"strconv"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
)

// writeCompressedNpz writes an npz as numpy.savez_compressed does
// (deflated members), which the reference's loader refuses.
func writeCompressedNpz(t *testing.T, path string, rows int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for k := range NumSparse {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: strconv.Itoa(k) + ".npy", Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(preprocess.NpyHeaderBytes("<i4", []int{rows, MultiHot[k]}))
		w.Write(make([]byte, rows*MultiHot[k]*4))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
