package criteo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
		"Fortran-order dense": {func(dir string) {
			h := bytes.Replace(preprocess.NpyHeaderBytes("<f4", []int{11, 13}), []byte("False"), []byte("True "), 1)
			os.WriteFile(filepath.Join(dir, DenseFile), append(h, make([]byte, 11*13*4)...), 0o644)
		}, "criteo: bad data set file: day_23_dense.npy: Fortran order; want a C-order array"},
		"labels of two columns": {func(dir string) {
			os.WriteFile(filepath.Join(dir, LabelsFile), npyOf("<i4", []int{11, 2}, 11*8), 0o644)
		}, "day_23_labels.npy: shape [11 2], want (N, 1)"},
		"labels of three axes": {func(dir string) {
			os.WriteFile(filepath.Join(dir, LabelsFile), npyOf("<i4", []int{11, 1, 1}, 11*4), 0o644)
		}, "shape [11 1 1], want (N, 1)"},
		"labels as a scalar": {func(dir string) {
			os.WriteFile(filepath.Join(dir, LabelsFile), npyOf("<i4", []int{}, 4), 0o644)
		}, "shape [], want (N, 1)"},
		"dense of 12 columns": {func(dir string) {
			os.WriteFile(filepath.Join(dir, DenseFile), npyOf("<f4", []int{11, 12}, 11*12*4), 0o644)
		}, "day_23_dense.npy: shape [11 12], want (N, 13)"},
		"fewer labels than dense rows": {func(dir string) {
			os.WriteFile(filepath.Join(dir, LabelsFile), npyOf("<i4", []int{10, 1}, 10*4), 0o644)
		}, "day_23_dense.npy has 11 rows but day_23_labels.npy has 10"},
		"sparse member of fewer rows": {func(dir string) { writeSparse(t, dir, 3, 10, MultiHot[3]) }, "day_23_sparse_multi_hot.npz:3.npy has 10 rows but day_23_labels.npy has 11"},
		"sparse member of more rows":  {func(dir string) { writeSparse(t, dir, 25, 12, MultiHot[25]) }, "day_23_sparse_multi_hot.npz:25.npy has 12 rows but day_23_labels.npy has 11"},
		"sparse member of no ids":     {func(dir string) { writeSparse(t, dir, 0, 11, 0) }, "0.npy: shape [11 0], want (N, multi-hot size)"},
		"no rows": {func(dir string) {
			os.WriteFile(filepath.Join(dir, LabelsFile), npyOf("<i4", []int{0, 1}, 0), 0o644)
			os.WriteFile(filepath.Join(dir, DenseFile), npyOf("<f4", []int{0, 13}, 0), 0o644)
			var m [][]byte
			for k := range NumSparse {
				m = append(m, npyOf("<i4", []int{0, MultiHot[k]}, 0))
			}
			WriteNpz(filepath.Join(dir, SparseFile), m)
		}, "no rows"},
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

// writeSparse rewrites the sparse .npz of dir with member k of rows×width
// int32 zeros, the others of 11 rows and their real widths.
func writeSparse(t *testing.T, dir string, k, rows, width int) {
	t.Helper()
	var m [][]byte
	for j := range NumSparse {
		r, w := 11, MultiHot[j]
		if j == k {
			r, w = rows, width
		}
		m = append(m, append(preprocess.NpyHeaderBytes("<i4", []int{r, w}), make([]byte, r*w*4)...))
	}
	if err := WriteNpz(filepath.Join(dir, SparseFile), m); err != nil {
		t.Fatal(err)
	}
}

// TestOpenUsesTheFirstHalfRoundedUp: 11 rows in the files, 6 in use (the
// reference's ceil(N/2)); 11 with WholeDay; one row gives one.
func TestOpenUsesTheFirstHalfRoundedUp(t *testing.T) {
	for _, c := range []struct {
		rows  int
		whole bool
		want  int
	}{{11, false, 6}, {11, true, 11}, {1, false, 1}, {12, false, 6}} {
		ds, err := Open(synth(t, c.rows), Options{WholeDay: c.whole})
		if err != nil {
			t.Fatal(err)
		}
		if ds.FileRows != c.rows || ds.Rows != c.want {
			t.Errorf("%d rows, WholeDay %v: FileRows %d Rows %d, want %d %d", c.rows, c.whole, ds.FileRows, ds.Rows, c.rows, c.want)
		}
		ds.Close()
	}
}

// TestVerifyPassesPublishedSums: a data set whose files have the published
// MD5s verifies (the sums of a synthetic set stand in for them here).
func TestVerifyPassesPublishedSums(t *testing.T) {
	dir := synth(t, 11)
	saved := MD5
	defer func() { MD5 = saved }()
	MD5 = map[string]string{}
	for _, n := range []string{DenseFile, LabelsFile, SparseFile} {
		s, err := FileMD5(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		MD5[n] = s
	}
	var out bytes.Buffer
	if err := Verify(dir, 11, &out); err != nil || strings.Count(out.String(), "  OK\n") != 3 {
		t.Errorf("Verify: %v\n%s", err, out.String())
	}
}

func TestMapFaults(t *testing.T) {
	dir := t.TempDir()
	if _, err := Map(dir); err == nil {
		t.Error("Map of a folder: no error")
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	m, err := Map(empty)
	if err != nil || m.Data == nil || len(m.Data) != 0 {
		t.Errorf("Map of an empty file: %v, %v", m, err)
	}
	if err := m.Close(); err != nil {
		t.Error(err)
	}
	if _, err := Map(filepath.Join(dir, "none")); err == nil {
		t.Error("Map of a missing file: no error")
	}
}

func TestNpyViewRefusesHeadersAndHugeShapes(t *testing.T) {
	if _, _, err := npyView([]byte("not an npy file at all"), "x.npy", "<f4"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "x.npy") {
		t.Errorf("garbage: %v", err)
	}
	huge := preprocess.NpyHeaderBytes("<f4", []int{1 << 40, 1 << 40})
	if _, _, err := npyView(huge, "h.npy", "<f4"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("2^80 elements: %v", err)
	}
	ok := append(preprocess.NpyHeaderBytes("<f4", []int{2, 3}), make([]byte, 24)...)
	if shape, data, err := npyView(ok, "ok.npy", "<f4"); err != nil || !slices.Equal(shape, []int{2, 3}) || len(data) != 24 {
		t.Errorf("2×3 float32: %v, %d bytes, %v", shape, len(data), err)
	}
	if _, _, err := npyView(ok[:len(ok)-1], "ok.npy", "<f4"); err == nil || !strings.Contains(err.Error(), "needs 24 data bytes, the file holds 23") {
		t.Errorf("one byte short: %v", err)
	}
}

// TestTablesAsTheReference: the table sizes are the reference's
// num_embeddings_per_feature (mlcommons/inference
// recommendation/dlrm_v2/pytorch/python/main.py) and the multi-hot sizes
// its make_fake_criteo.sh's --num-multihot-features, in feature order.
func TestTablesAsTheReference(t *testing.T) {
	rows := [NumSparse]int{40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10, 2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36}
	hot := "3,2,1,2,6,1,1,1,1,7,3,8,1,6,9,5,1,1,1,12,100,27,10,3,1,1"
	if TableRows != rows {
		t.Errorf("TableRows %v,\nreference %v", TableRows, rows)
	}
	var got []string
	for _, m := range MultiHot {
		got = append(got, strconv.Itoa(m))
	}
	if s := strings.Join(got, ","); s != hot {
		t.Errorf("MultiHot %s, reference %s", s, hot)
	}
	if ValidationRows != (DayRows+1)/2 {
		t.Errorf("ValidationRows %d, want ceil(%d/2)", ValidationRows, DayRows)
	}
}

// TestSynthWritesRowsIdsInRangeAndTheDefaultSize: Synth of one row writes
// one row; 0 rows means SynthRows; every id is inside its table.
func TestSynthWritesRowsIdsInRangeAndTheDefaultSize(t *testing.T) {
	for _, c := range []struct{ rows, want int }{{1, 1}, {2, 2}} {
		ds, err := Open(synth(t, c.rows), Options{WholeDay: true})
		if err != nil {
			t.Fatal(err)
		}
		if ds.FileRows != c.want {
			t.Errorf("Synth of %d rows wrote %d", c.rows, ds.FileRows)
		}
		for k := range NumSparse {
			ids := ds.IDs(k, 0, ds.FileRows)
			for i := 0; i+4 <= len(ids); i += 4 {
				if id := int32(binary.LittleEndian.Uint32(ids[i:])); id < 0 || int(id) >= TableRows[k] {
					t.Errorf("feature %d: id %d outside [0, %d)", k, id, TableRows[k])
				}
			}
		}
		ds.Close()
	}
	dir := t.TempDir()
	if err := Synth(dir, SynthConfig{Rows: 0, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	ds, err := Open(dir, Options{WholeDay: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if ds.FileRows != SynthRows {
		t.Errorf("Synth of 0 rows wrote %d, want SynthRows %d", ds.FileRows, SynthRows)
	}
}

// TestCheckRowsBounds: a label of 2, a sparse id equal to its table's size
// or negative, and a NaN or infinite dense feature are refused naming the
// row; the largest id and rows before the bad one pass.
func TestCheckRowsBounds(t *testing.T) {
	le := binary.LittleEndian
	check := func(dir string, s, e int) error {
		t.Helper()
		ds, err := Open(dir, Options{WholeDay: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		return ds.CheckRows(s, e)
	}
	if err := check(synth(t, 11), 0, 11); err != nil {
		t.Fatalf("synthetic rows: %v", err)
	}
	// Labels: row 3 is 2.
	dir := synth(t, 11)
	lab := make([]byte, 11*4)
	le.PutUint32(lab[3*4:], 2)
	os.WriteFile(filepath.Join(dir, LabelsFile), append(preprocess.NpyHeaderBytes("<i4", []int{11, 1}), lab...), 0o644)
	if err := check(dir, 0, 11); err == nil || !strings.Contains(err.Error(), "row 3: label 2, want 0 or 1") {
		t.Errorf("label 2: %v", err)
	}
	if err := check(dir, 0, 3); err != nil {
		t.Errorf("rows 0..2 before the bad label: %v", err)
	}
	// Feature 5's table has 3 rows: ids 2 pass, 3 and -1 do not.
	for _, c := range []struct {
		id   int32
		want string
	}{{2, ""}, {3, "row 4: sparse feature 5 id 3 is outside its table of 3 rows"}, {-1, "row 4: sparse feature 5 id -1"}} {
		dir := synth(t, 11)
		var m [][]byte
		for k := range NumSparse {
			ids := make([]byte, 11*MultiHot[k]*4)
			if k == 5 {
				le.PutUint32(ids[4*MultiHot[k]*4:], uint32(c.id))
			}
			m = append(m, append(preprocess.NpyHeaderBytes("<i4", []int{11, MultiHot[k]}), ids...))
		}
		if err := WriteNpz(filepath.Join(dir, SparseFile), m); err != nil {
			t.Fatal(err)
		}
		err := check(dir, 0, 11)
		if (c.want == "" && err != nil) || (c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want))) {
			t.Errorf("id %d: %v, want %q", c.id, err, c.want)
		}
	}
	// Dense: NaN, then +Inf, at row 1 feature 4.
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
		dir := synth(t, 11)
		dense := make([]byte, 11*NumDense*4)
		le.PutUint32(dense[4*(1*NumDense+4):], math.Float32bits(v))
		os.WriteFile(filepath.Join(dir, DenseFile), append(preprocess.NpyHeaderBytes("<f4", []int{11, NumDense}), dense...), 0o644)
		if err := check(dir, 0, 11); err == nil || !strings.Contains(err.Error(), "row 1: dense feature 4 is") {
			t.Errorf("dense %v: %v", v, err)
		}
	}
}

// TestCloseTwice: closing a data set twice is harmless.
func TestCloseTwice(t *testing.T) {
	ds, err := Open(synth(t, 11), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ds.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
