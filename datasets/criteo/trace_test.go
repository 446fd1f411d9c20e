package criteo

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
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
