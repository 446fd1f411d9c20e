package parquetframe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// frameRow is a DataFrame row as pyarrow writes the columns this package
// reads: text, integer, float, nullable text and an integer list.
type frameRow struct {
	Text   string  `parquet:"text"`
	Int    int64   `parquet:"int"`
	Float  float64 `parquet:"float"`
	Maybe  *string `parquet:"maybe,optional"`
	Tokens []int32 `parquet:"tokens,list"`
	Small  int32   `parquet:"small"`
	Wide   []int64 `parquet:"wide,list"`
}

func frameBytes(t testing.TB, rows []frameRow) []byte {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[frameRow](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sampleRows() []frameRow {
	s := "here"
	return []frameRow{
		{Text: "a", Int: 1, Float: 0.5, Maybe: &s, Tokens: []int32{1, 2, 3}, Small: 7, Wide: []int64{9}},
		{Text: "", Int: -2, Float: -1, Tokens: nil, Small: -1, Wide: []int64{1 << 31}},
		{Text: "üñí", Int: 1 << 40, Float: 3, Maybe: &s, Tokens: []int32{0}, Small: 0, Wide: nil},
	}
}

func writeFile(t testing.TB, b []byte) string {
	p := filepath.Join(t.TempDir(), "f.parquet")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadsEachColumnKindRowByRow: every column kind reads back the rows
// written, nulls flagged, and a list id outside int32 is refused naming
// the row.
func TestReadsEachColumnKindRowByRow(t *testing.T) {
	p := writeFile(t, frameBytes(t, sampleRows()))
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Len() != 3 || !slices.Equal(f.Columns(), []string{"text", "int", "float", "maybe", "tokens", "small", "wide"}) {
		t.Fatalf("%d rows, columns %v", f.Len(), f.Columns())
	}
	if s, null, err := f.Strings("text"); err != nil || !slices.Equal(s, []string{"a", "", "üñí"}) || slices.Contains(null, true) {
		t.Errorf("text: %q %v %v", s, null, err)
	}
	if s, null, err := f.Strings("maybe"); err != nil || !slices.Equal(s, []string{"here", "", "here"}) || !slices.Equal(null, []bool{false, true, false}) {
		t.Errorf("maybe: %q %v %v", s, null, err)
	}
	if v, _, err := f.Ints("int"); err != nil || !slices.Equal(v, []int64{1, -2, 1 << 40}) {
		t.Errorf("int: %v %v", v, err)
	}
	if v, _, err := f.Ints("small"); err != nil || !slices.Equal(v, []int64{7, -1, 0}) {
		t.Errorf("small: %v %v", v, err)
	}
	if v, _, err := f.Floats("float"); err != nil || !slices.Equal(v, []float64{0.5, -1, 3}) {
		t.Errorf("float: %v %v", v, err)
	}
	l, err := f.IntLists("tokens")
	if err != nil || len(l) != 3 || !slices.Equal(l[0], []int32{1, 2, 3}) || len(l[1]) != 0 || !slices.Equal(l[2], []int32{0}) {
		t.Errorf("tokens: %v %v", l, err)
	}
	if _, err := f.IntLists("wide"); err == nil || !errors.Is(err, ErrFormat) {
		t.Errorf("wide (2^31 in row 1): err %v, want ErrFormat", err)
	}
	if _, _, err := f.Ints("text"); !errors.Is(err, ErrFormat) {
		t.Errorf("text read as ints: err %v, want ErrFormat", err)
	}
	if _, _, err := f.Strings("nope"); !errors.Is(err, ErrFormat) {
		t.Errorf("missing column: err %v, want ErrFormat", err)
	}
	if k := []string{f.Kind("text"), f.Kind("int"), f.Kind("float"), f.Kind("tokens"), f.Kind("nope")}; !slices.Equal(k, []string{"text", "int", "float", "", ""}) {
		t.Errorf("kinds %v", k)
	}
}

// TestOpenRefusesDamage: a truncated file, a lying footer length, a file
// that is not parquet and a folder are refused at Open with ErrFormat.
func TestOpenRefusesDamage(t *testing.T) {
	good := frameBytes(t, sampleRows())
	lying := slices.Clone(good)
	lying[len(lying)-8] = 0xff
	lying[len(lying)-7] = 0xff
	for name, b := range map[string][]byte{
		"truncated":   good[:len(good)-3],
		"footer lies": lying,
		"not parquet": []byte("hello, this is not a parquet file at all"),
		"magic only":  []byte("PAR1PAR1"),
	} {
		if _, err := Open(writeFile(t, b)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err %v, want ErrFormat", name, err)
		}
	}
	if _, err := Open(t.TempDir()); !errors.Is(err, ErrFormat) {
		t.Errorf("a folder: err %v, want ErrFormat", err)
	}
}

// withFooter returns file b with its footer's metadata changed by edit.
func withFooter(t *testing.T, b []byte, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	start := len(b) - 8 - n
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[start:len(b)-8], &md); err != nil {
		t.Fatal(err)
	}
	edit(&md)
	enc, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	out := append(slices.Clone(b[:start]), enc...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(enc)))
	return append(out, "PAR1"...)
}

// TestOpenRefusesRowCountsThePagesDoNotHold: a footer or row group that
// claims more (or fewer) rows than its pages hold is refused at Open
// naming the count, before any column allocates a slot per claimed row;
// the same file with its counts untouched opens.
func TestOpenRefusesRowCountsThePagesDoNotHold(t *testing.T) {
	good := frameBytes(t, sampleRows())
	same := withFooter(t, good, func(*format.FileMetaData) {})
	if f, err := Open(writeFile(t, same)); err != nil {
		t.Fatalf("re-encoded footer, counts untouched: %v", err)
	} else {
		f.Close()
	}
	for name, edit := range map[string]func(*format.FileMetaData){
		"footer claims 2^40 rows":    func(m *format.FileMetaData) { m.NumRows = 1 << 40 },
		"footer claims one row less": func(m *format.FileMetaData) { m.NumRows-- },
		"row group claims 2^40 rows": func(m *format.FileMetaData) { m.NumRows = 1 << 40; m.RowGroups[0].NumRows = 1 << 40 },
		"row group claims -1 rows":   func(m *format.FileMetaData) { m.NumRows = -1; m.RowGroups[0].NumRows = -1 },
	} {
		_, err := Open(writeFile(t, withFooter(t, good, edit)))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "rows") {
			t.Errorf("%s: err %v, want ErrFormat about the row count", name, err)
		}
	}
}

// FuzzOpen: any bytes as a parquet data set file either open and read
// column by column, each column as long as the file's row count, or are
// refused with an error: never a panic, and never an allocation sized by
// a count the file's data does not back.
func FuzzOpen(f *testing.F) {
	f.Add(frameBytes(f, sampleRows()))
	f.Add(frameBytes(f, sampleRows()[:1]))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := writeFile(t, b)
		pf, err := Open(p)
		if err != nil {
			return
		}
		defer pf.Close()
		for _, c := range pf.Columns() {
			if s, _, err := pf.Strings(c); err == nil && len(s) != pf.Len() {
				t.Fatalf("%s: %d strings, %d rows", c, len(s), pf.Len())
			}
			if s, _, err := pf.Ints(c); err == nil && len(s) != pf.Len() {
				t.Fatalf("%s: %d ints, %d rows", c, len(s), pf.Len())
			}
			if s, _, err := pf.Floats(c); err == nil && len(s) != pf.Len() {
				t.Fatalf("%s: %d floats, %d rows", c, len(s), pf.Len())
			}
			if s, err := pf.IntLists(c); err == nil && len(s) != pf.Len() {
				t.Fatalf("%s: %d lists, %d rows", c, len(s), pf.Len())
			}
			pf.Kind(c)
		}
	})
}
