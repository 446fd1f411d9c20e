package criteo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
)

func synth(t *testing.T, rows int) string {
	t.Helper()
	dir := t.TempDir()
	if err := Synth(dir, SynthConfig{Rows: rows, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSynthOpensWithRealShapes(t *testing.T) {
	dir := synth(t, 101)
	ds, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if ds.FileRows != 101 || ds.Rows != 51 {
		t.Errorf("rows %d (%d in use), want 101 (51: the first half rounded up)", ds.FileRows, ds.Rows)
	}
	if ds.MultiHot != MultiHot {
		t.Errorf("multi-hot sizes %v, want %v", ds.MultiHot, MultiHot)
	}
	// The views agree with a plain read of the files.
	_, dense, err := preprocess.LoadNpy(filepath.Join(dir, DenseFile))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 2*NumDense)
	ds.Dense(7, 9, got)
	for i, v := range got {
		if v != dense[7*NumDense+i] {
			t.Fatalf("dense[%d] = %v, file %v", 7*NumDense+i, v, dense[7*NumDense+i])
		}
	}
	for k := range NumSparse {
		ids := ds.IDs(k, 0, ds.Rows)
		if len(ids) != 4*ds.Rows*MultiHot[k] {
			t.Fatalf("feature %d: %d id bytes", k, len(ids))
		}
		for i := 0; i < len(ids); i += 4 {
			if v := int32(binary.LittleEndian.Uint32(ids[i:])); v < 0 || int(v) >= TableRows[k] {
				t.Fatalf("feature %d: id %d outside its table of %d rows", k, v, TableRows[k])
			}
		}
	}
	if l := ds.Label(5); l != 0 && l != 1 {
		t.Errorf("label %v", l)
	}
	whole, err := Open(dir, Options{WholeDay: true})
	if err != nil || whole.Rows != 101 {
		t.Errorf("WholeDay: %v rows, %v", whole, err)
	}
	whole.Close()
	// Same seed, same bytes.
	again := synth(t, 101)
	for _, f := range []string{DenseFile, LabelsFile, SparseFile} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(again, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two syntheses of one seed", f)
		}
	}
}

// TestOpenRejectsBadInputs covers the inputs the reference's loader
// asserts on, and a few it would misread.
func TestOpenRejectsBadInputs(t *testing.T) {
	npyOf := func(descr string, shape []int, n int) []byte {
		return append(preprocess.NpyHeaderBytes(descr, shape), make([]byte, n)...)
	}
	for name, tc := range map[string]struct {
		mutate func(dir string)
		want   string
	}{
		"compressed npz": {func(dir string) {
			writeCompressedNpz(t, filepath.Join(dir, SparseFile), 11)
		}, "compressed"},
		"float dense as int": {func(dir string) {
			os.WriteFile(filepath.Join(dir, DenseFile), npyOf("<i4", []int{11, 13}, 11*13*4), 0o644)
		}, "dtype \"<i4\", want \"<f4\""},
		"float64 labels": {func(dir string) {
			os.WriteFile(filepath.Join(dir, LabelsFile), npyOf("<f8", []int{11, 1}, 11*8), 0o644)
		}, "want \"<i4\""},
		"truncated dense": {func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, DenseFile))
			os.WriteFile(filepath.Join(dir, DenseFile), b[:len(b)-10], 0o644)
		}, "truncated"},
		"rows differ from labels": {func(dir string) {
			os.WriteFile(filepath.Join(dir, LabelsFile), npyOf("<i4", []int{12, 1}, 12*4), 0o644)
		}, "rows but"},
		"missing member": {func(dir string) {
			WriteNpz(filepath.Join(dir, SparseFile), [][]byte{npyOf("<i4", []int{11, 3}, 11*12)})
		}, "no member 1.npy"},
		"int64 ids": {func(dir string) {
			var m [][]byte
			for k := range NumSparse {
				m = append(m, npyOf("<i8", []int{11, MultiHot[k]}, 11*MultiHot[k]*8))
			}
			WriteNpz(filepath.Join(dir, SparseFile), m)
		}, "want \"<i4\""},
		"missing file": {func(dir string) { os.Remove(filepath.Join(dir, DenseFile)) }, "download_dataset.sh"},
	} {
		dir := synth(t, 11)
		tc.mutate(dir)
		ds, err := Open(dir, Options{})
		if err == nil {
			ds.Close()
			t.Errorf("%s: Open accepted it", name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q lacks %q", name, err, tc.want)
		}
		if name != "missing file" && !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v does not wrap ErrFormat", name, err)
		}
	}
}

func TestVerifyReportsMD5s(t *testing.T) {
	dir := synth(t, 11)
	var out bytes.Buffer
	if err := Verify(dir, DayRows, &out); err == nil || !strings.Contains(err.Error(), "holds 11 rows, want 178274637") {
		t.Errorf("Verify expecting the whole day: %v", err)
	}
	err := Verify(dir, 0, &out)
	if err == nil || !strings.Contains(err.Error(), "differ from the published MD5s") {
		t.Errorf("Verify of a synthetic set: %v", err)
	}
	sum, _ := FileMD5(filepath.Join(dir, LabelsFile))
	if !strings.Contains(out.String(), sum+"  "+LabelsFile+"  DIFFERS") {
		t.Errorf("report lacks the labels line:\n%s", out.String())
	}
}
