package pickle

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/go_written.pkl")

// description is what testdata/make_pickles.py says pandas holds.
type description struct {
	Rows    int
	Columns []struct {
		Name   string
		Dtype  string
		Values []json.RawMessage
	}
}

func loadDescriptions(t *testing.T) map[string]description {
	b, err := os.ReadFile("testdata/pickles.json")
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]description
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// cellJSON renders a cell as make_pickles.py's describe() does.
func cellJSON(v any) (string, error) {
	switch x := v.(type) {
	case *NDArray:
		ints, err := x.Int64s()
		if err != nil {
			return "", err
		}
		kind := map[string]string{"i4": "int32", "i8": "int64", "u2": "uint16"}[x.Dtype.Kind]
		b, _ := json.Marshal(map[string]any{"ndarray": kind, "values": ints})
		return string(b), nil
	case *List:
		var items []any
		for i := range x.Len() {
			items = append(items, x.At(i))
		}
		if items == nil {
			items = []any{}
		}
		b, _ := json.Marshal(items)
		return string(b), nil
	case float64:
		if math.IsNaN(x) {
			return `"NaN"`, nil
		}
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func compact(t *testing.T, raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func checkFrame(t *testing.T, name string, f *DataFrame, want description) {
	t.Helper()
	if f.Rows != want.Rows || len(f.Columns) != len(want.Columns) {
		t.Fatalf("%s: %d rows, %d columns; want %d, %d", name, f.Rows, len(f.Columns), want.Rows, len(want.Columns))
	}
	for i, wc := range want.Columns {
		c := f.Columns[i]
		if c.Name != wc.Name || c.Dtype() != wc.Dtype {
			t.Fatalf("%s: column %d is %q %s, want %q %s", name, i, c.Name, c.Dtype(), wc.Name, wc.Dtype)
		}
		for r := range f.Rows {
			var v any
			if c.Array != nil {
				var err error
				if v, err = c.Array.Value(r); err != nil {
					t.Fatal(err)
				}
				if fl, ok := v.(float64); ok && fl == math.Trunc(fl) && !math.IsInf(fl, 0) && math.Abs(fl) < 1e15 {
					v = json.Number(fmt.Sprintf("%.1f", fl))
				}
			} else {
				v = c.Objects[r]
			}
			got, err := cellJSON(v)
			if err != nil {
				t.Fatal(err)
			}
			if w := compact(t, wc.Values[r]); got != w && !(strings.HasSuffix(got, ".0") && strings.TrimSuffix(got, ".0") == w) {
				t.Errorf("%s: %s[%d] = %s, want %s", name, c.Name, r, got, w)
			}
		}
	}
}

// TestReadDataFrameMatchesPandas reads the pickles pandas wrote (protocols
// 5, 4 and 2; blocks placed by slices and by arrays; numpy arrays in
// cells; float, bool and Fortran-ordered int blocks; an Int64Index) and
// compares every cell with what pandas holds.
func TestReadDataFrameMatchesPandas(t *testing.T) {
	want := loadDescriptions(t)
	if len(want) < 6 {
		t.Fatalf("%d goldens", len(want))
	}
	for name, w := range want {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := ReadDataFrame(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkFrame(t, name, f, w)
	}
}

func TestColumnAccessors(t *testing.T) {
	b, err := os.ReadFile("testdata/frame_mixed.pkl")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadDataFrame(b)
	if err != nil {
		t.Fatal(err)
	}
	col := func(n string) *Column {
		c, ok := f.Column(n)
		if !ok {
			t.Fatalf("no column %q in %v", n, f.Names())
		}
		return c
	}
	if s, err := col("dataset").Strings(); err != nil || strings.Join(s, ",") != "GSM8K,OpenOrca,MBXP,OpenOrca" {
		t.Fatalf("dataset %q %v", s, err)
	}
	if n, err := col("moved").Int64s(); err != nil || fmt.Sprint(n) != "[4 2 1500 300]" {
		t.Fatalf("moved %v %v", n, err)
	}
	if l, err := col("tok_ref_output").IntLists(); err != nil || fmt.Sprint(l) != "[[415 907] [-1 70000 1099511627776] [] [5]]" {
		t.Fatalf("tok_ref_output %v %v", l, err)
	}
	if l, err := col("arrays").IntLists(); err != nil || fmt.Sprint(l) != "[[1 2] [3] [] [7 8 9]]" {
		t.Fatalf("arrays %v %v", l, err)
	}
	// Wrong kinds are errors naming the column and the row.
	if _, err := col("gt_output").Strings(); err == nil || !strings.Contains(err.Error(), `"gt_output" row 3 holds None`) {
		t.Errorf("gt_output with a None: %v", err)
	}
	if _, err := col("score").Int64s(); !errors.Is(err, ErrPickle) {
		t.Errorf("float column as ints: %v", err)
	}
	if _, err := col("dataset").IntLists(); err == nil || !strings.Contains(err.Error(), "holds a str") {
		t.Errorf("strings as int lists: %v", err)
	}
	if _, err := col("moved").Strings(); err == nil {
		t.Errorf("ints as strings: no error")
	}
	if _, ok := f.Column("nope"); ok {
		t.Error("found a missing column")
	}
}

// TestOtherPicklesAreRefused: a pickle of something else, a truncated
// one, and one that would run code, each with its own clear error.
func TestOtherPicklesAreRefused(t *testing.T) {
	for file, msg := range map[string]string{"series.pkl": "pandas.core.series.Series, not a pandas DataFrame", "dict.pkl": "a dict, not a pandas DataFrame"} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadDataFrame(b); !errors.Is(err, ErrPickle) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", file, err, msg)
		}
	}
	b, err := os.ReadFile("testdata/frame_p5.pkl")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 2, 50, len(b) / 2, len(b) - 1} {
		if _, err := ReadDataFrame(b[:n]); !errors.Is(err, ErrPickle) {
			t.Errorf("cut at %d bytes: %v", n, err)
		}
	}
	for _, evil := range [][]byte{
		[]byte("cos\nsystem\n(S'true'\ntR."),
		[]byte("\x80\x04\x8c\x02os\x94\x8c\x06system\x94\x93\x8c\x04true\x85R."),
		[]byte("\x80\x04\x8c\x08builtins\x8c\x04eval\x93\x8c\x011\x85R."),
	} {
		if _, err := ReadDataFrame(evil); !errors.Is(err, ErrPickle) || !strings.Contains(err.Error(), "which a data set pickle does not") {
			t.Errorf("%q: %v", evil, err)
		}
	}
	if _, err := Unpickle([]byte("\x80\x06N."), nil); err == nil || !strings.Contains(err.Error(), "protocol 6") {
		t.Errorf("protocol 6: %v", err)
	}
	if _, err := Unpickle([]byte("\x80\x05\x97."), nil); err == nil || !strings.Contains(err.Error(), "out-of-band") {
		t.Errorf("out-of-band buffer: %v", err)
	}
	// A huge declared length is refused without allocating it.
	if _, err := Unpickle([]byte("\x80\x05\x8d\xff\xff\xff\xff\xff\xff\xff\x7f"), nil); !errors.Is(err, ErrPickle) {
		t.Errorf("huge string: %v", err)
	}
}

// writeFrame is the frame TestWriteDataFrame writes.
func writeFrame() []WriteColumn {
	return []WriteColumn{
		{Name: "dataset", Cells: []any{"GSM8K", "OpenOrca", "MBXP"}},
		{Name: "tok_input_len", Ints: []int64{3, 1500, -5}},
		{Name: "id", Cells: []any{"train.1", "cot.2", "cpp_f"}},
		{Name: "tok_input", Cells: []any{[]int64{1, 733, 16289}, make([]int64, 1500), []int64{-1, 1 << 40, 70000}}},
		{Name: "gt_output", Cells: []any{"14000", "日本語 é", nil}},
		{Name: "mixed", Cells: []any{int64(7), 2.5, "x"}},
		{Name: "tok_ref_output_len", Ints: []int64{0, 1, 1 << 33}},
	}
}

// TestWriteDataFrame: the writer's bytes are those of
// testdata/go_written.pkl, which pandas reads as testdata/go_written.json
// says (make_pickles.py --read), and this package reads them back.
func TestWriteDataFrame(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteDataFrame(&buf, writeFrame()); err != nil {
		t.Fatal(err)
	}
	if *update {
		os.WriteFile("testdata/go_written.pkl", buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile("testdata/go_written.pkl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatal("WriteDataFrame's bytes differ from testdata/go_written.pkl (the file pandas read): run with -update and redo go_written.json")
	}
	b, err := os.ReadFile("testdata/go_written.json")
	if err != nil {
		t.Fatal(err)
	}
	var d description
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	f, err := ReadDataFrame(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	checkFrame(t, "go_written.pkl", f, d)
	if d.Columns[1].Dtype != "<i8" || d.Columns[3].Dtype != "|O" {
		t.Fatalf("pandas sees dtypes %s and %s", d.Columns[1].Dtype, d.Columns[3].Dtype)
	}
}

func TestWriteDataFrameRefusesBadColumns(t *testing.T) {
	for _, cols := range [][]WriteColumn{
		nil,
		{{Name: "a", Ints: []int64{1}}, {Name: "b", Cells: []any{"x", "y"}}},
		{{Name: "a", Cells: []any{[]string{"x"}}}},
	} {
		if err := WriteDataFrame(&bytes.Buffer{}, cols); err == nil {
			t.Errorf("%v: no error", cols)
		}
	}
}

func FuzzReadDataFrame(f *testing.F) {
	for _, p := range []string{"frame_p5.pkl", "frame_p2.pkl", "frame_mixed.pkl", "frame_fortran_p4.pkl", "series.pkl"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadDataFrame(b) // must not panic or hang
	})
}
