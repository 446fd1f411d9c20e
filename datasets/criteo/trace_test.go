package criteo

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestQuantileTraceMatchesNumpy checks QuantileTrace and NumpyRandint
// against testdata/trace_golden.txt, written by numpy's legacy generator
// (testdata/make_golden.py) running the reference's aggregation loop.
func TestQuantileTraceMatchesNumpy(t *testing.T) {
	f, err := os.Open("testdata/trace_golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var tr *Trace
	var r *NumpyRandint
	j, checked := 0, 0
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "rows "):
			var rows, seed, samples int
			if _, err := fmt.Sscanf(line, "rows %d seed %d samples %d", &rows, &seed, &samples); err != nil {
				t.Fatal(err)
			}
			if tr, err = QuantileTrace(rows, DistQuantile, uint32(seed)); err != nil {
				t.Fatal(err)
			}
			if tr.Len() != samples {
				t.Errorf("rows %d seed %d: %d samples, numpy %d", rows, seed, tr.Len(), samples)
			}
			if tr.Offsets[tr.Len()] != rows {
				t.Errorf("rows %d: trace ends at %d", rows, tr.Offsets[tr.Len()])
			}
			j = 0
		case strings.HasPrefix(line, "last "):
			s, e := tr.Rows(tr.Len() - 1)
			if got := fmt.Sprintf("last %d, %d, %d", s, e, e-s); got != line {
				t.Errorf("%s, numpy %s", got, line)
			}
		case strings.HasPrefix(line, "randint "):
			// The golden's draws of every bound follow each other on one
			// generator seeded 2024.
			if r == nil {
				r = NewNumpyRandint(2024)
			}
			fs := strings.Fields(line)
			high, _ := strconv.Atoi(fs[1])
			for i, w := range fs[2:] {
				if got := strconv.Itoa(r.Intn(high)); got != w {
					t.Fatalf("randint(0, %d) draw %d = %s, numpy %s", high, i, got, w)
				}
			}
			checked++
		default:
			s, e := tr.Rows(j)
			if got := fmt.Sprintf("%d, %d, %d", s, e, e-s); got != line {
				t.Fatalf("sample %d: %s, numpy %s", j, got, line)
			}
			j++
		}
	}
	if checked == 0 {
		t.Fatal("golden has no randint lines")
	}
}

func TestTraceFileRoundTrip(t *testing.T) {
	tr, err := FixedTrace(10, 4)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), TraceFile)
	if err := WriteTrace(p, tr); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if want := "0, 4, 4\n4, 8, 4\n8, 10, 2\n"; string(b) != want {
		t.Errorf("trace file %q, want %q", b, want)
	}
	back, err := ReadTrace(p)
	if err != nil || fmt.Sprint(back.Offsets) != fmt.Sprint(tr.Offsets) {
		t.Errorf("ReadTrace = %v, %v; want %v", back, err, tr.Offsets)
	}
	q := filepath.Join(t.TempDir(), "dist_quantile.txt")
	os.WriteFile(q, []byte("100, 100, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 300, 300, 400, 500, 600, 700\n"), 0o644)
	if got, err := ReadQuantile(q); err != nil || fmt.Sprint(got) != fmt.Sprint(DistQuantile) {
		t.Errorf("ReadQuantile = %v, %v", got, err)
	}
	os.WriteFile(q, []byte("100, x\n"), 0o644)
	if _, err := ReadQuantile(q); err == nil {
		t.Error("ReadQuantile accepted a non-number")
	}
	if _, err := FixedTrace(10, 0); err == nil {
		t.Error("FixedTrace accepted 0 rows per sample")
	}
}

func TestTraceBoundsAndErrors(t *testing.T) {
	tr, _ := FixedTrace(10, 3) // [0 3 6 9 10]
	if tr.Len() != 4 || !slices.Equal(tr.Offsets, []int{0, 3, 6, 9, 10}) {
		t.Fatalf("FixedTrace(10, 3) = %v", tr.Offsets)
	}
	for _, c := range []struct{ n, want int }{{0, 4}, {-1, 4}, {5, 4}, {4, 4}, {3, 3}, {1, 1}} {
		tr, _ := FixedTrace(10, 3)
		tr.Truncate(c.n)
		if tr.Len() != c.want {
			t.Errorf("Truncate(%d) of 4 samples: %d, want %d", c.n, tr.Len(), c.want)
		}
	}
	for _, c := range []struct {
		rows int
		q    []int
		want string
	}{
		{0, []int{1}, "aggregation of 0 rows"},
		{5, nil, "empty aggregation quantile"},
		{5, []int{2, 0}, "aggregation quantile holds 0"},
	} {
		if _, err := QuantileTrace(c.rows, c.q, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("QuantileTrace(%d, %v): %v, want %q", c.rows, c.q, err, c.want)
		}
	}
	// One row is a trace of one sample.
	if tr, err := QuantileTrace(1, []int{5}, 1); err != nil || !slices.Equal(tr.Offsets, []int{0, 1}) {
		t.Errorf("QuantileTrace(1, [5]) = %v, %v", tr, err)
	}
	// One row, quantile of ones: one sample per row.
	if tr, err := QuantileTrace(3, []int{1}, 1); err != nil || !slices.Equal(tr.Offsets, []int{0, 1, 2, 3}) {
		t.Errorf("QuantileTrace(3, [1]) = %v, %v", tr, err)
	}
	for _, c := range []struct{ rows, k int }{{0, 1}, {1, 0}} {
		if _, err := FixedTrace(c.rows, c.k); err == nil {
			t.Errorf("FixedTrace(%d, %d) accepted", c.rows, c.k)
		}
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"empty": "\n", "zero": "3, 0\n", "word": "3, x\n"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		if _, err := ReadQuantile(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("quantile file %q: %v", text, err)
		}
	}
	p := filepath.Join(dir, "ok")
	os.WriteFile(p, []byte(" 3, 5,\n7\n"), 0o644)
	if q, err := ReadQuantile(p); err != nil || !slices.Equal(q, []int{3, 5}) {
		t.Errorf("ReadQuantile = %v, %v; want [3 5] (the first line only)", q, err)
	}
}

// TestReadTraceRefuses: a line without three fields, a size that is not a
// non-negative integer, a line past the scanner's limit and a missing file
// are errors naming the file (and the line).
func TestReadTraceRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ text, want string }{
		"short":    {"0, 1, 1\n1, 2\n", "line 2"},
		"word":     {"0, 1, x\n", `line 1: size "x"`},
		"negative": {"0, 1, -1\n", `line 1: size "-1"`},
		"long":     {"0, 1, " + strings.Repeat("1", 70000) + "\n", "token too long"},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(c.text), 0o644)
		if _, err := ReadTrace(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := ReadTrace(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "aggregation trace") {
		t.Errorf("missing: %v", err)
	}
	tr, _ := FixedTrace(5, 2)
	if err := WriteTrace(filepath.Join(dir, "short", "t.txt"), tr); err == nil {
		t.Error("WriteTrace under a file: no error")
	}
	if _, err := FileMD5(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "none: no such file") {
		t.Errorf("FileMD5 of a missing file: %v", err)
	}
	if _, err := FileMD5(dir); err == nil {
		t.Error("FileMD5 of a folder: no error")
	}
}

// TestWriteTraceText: the file is "start, end, size" lines in decimal, as
// the reference's trace file.
func TestWriteTraceText(t *testing.T) {
	tr := &Trace{Offsets: []int{0, 12, 130, 131}}
	p := filepath.Join(t.TempDir(), "trace.txt")
	if err := WriteTrace(p, tr); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "0, 12, 12\n12, 130, 118\n130, 131, 1\n" {
		t.Errorf("trace file %q", b)
	}
}
