package dlrm

import (
	"bytes"
	"context"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/preprocess"
)

// TestScoreMatchesReferenceScript scores the logs of testdata (written by
// make_logs.py) and compares the whole output with what accuracy-dlrm.py
// printed on them (testdata/make_golden.sh), in both of its modes.
func TestScoreMatchesReferenceScript(t *testing.T) {
	for _, tc := range []struct {
		log, golden string
		extra       spec.Extra
	}{
		{"log_pairs.json", "golden_pairs.txt", nil},
		{"log_preds.json", "golden_preds.txt", spec.Extra{optDay23File: "testdata/day_23_head.tsv", optAggregateTrace: "testdata/trace_preds.txt"}},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", tc.golden))
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		_, err = benchmark.Accuracy(context.Background(), descriptor, &benchmark.AccuracyRequest{
			Log: filepath.Join("testdata", tc.log), Extra: tc.extra, Stderr: &stderr,
			CheckerID: "",
		}, &stdout)
		if err != nil {
			t.Fatalf("%s: %v", tc.log, err)
		}
		if stdout.String() != string(want) {
			t.Errorf("%s: printed\n%s\naccuracy-dlrm.py printed\n%s", tc.log, stdout.String(), want)
		}
	}
}

func TestScoreRejects(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "trace.txt")
	os.WriteFile(short, []byte("0, 1, 1\n"), 0o644)
	for name, tc := range map[string]struct {
		req  spec.ScoreRequest
		want string
	}{
		"day 23 without trace": {spec.ScoreRequest{Log: "testdata/log_preds.json", Extra: spec.Extra{optDay23File: "testdata/day_23_head.tsv"}}, "needs --aggregation-trace-file"},
		"trace too short":      {spec.ScoreRequest{Log: "testdata/log_preds.json", Extra: spec.Extra{optDay23File: "testdata/day_23_head.tsv", optAggregateTrace: short}}, "outside the 1 samples"},
		"odd dtype":            {spec.ScoreRequest{Log: "testdata/log_pairs.json", DType: "uint8"}, "float32, int32 or int64"},
		"pairs log as preds":   {spec.ScoreRequest{Log: "testdata/log_pairs.json", Extra: spec.Extra{optDay23File: "testdata/day_23_head.tsv", optAggregateTrace: "testdata/trace_preds.txt"}}, "qsl_idx"},
	} {
		_, err := driver{}.Score(context.Background(), &tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
}

// TestScoreRefusesRowCountsThatDisagreeWithTheLog: a trace that gives
// sample 7 one row more (or less) than its logged predictions makes more
// labels than predictions (or fewer); both are refused, naming both counts.
func TestScoreRefusesRowCountsThatDisagreeWithTheLog(t *testing.T) {
	b, err := os.ReadFile("testdata/trace_preds.txt")
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s, e, n int
		if _, err := fmt.Sscanf(l, "%d, %d, %d", &s, &e, &n); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, n)
	}
	total := 0
	for _, n := range sizes {
		total += n
	}
	for _, c := range []struct {
		delta int
		want  string
	}{
		{+1, "holds %d predictions but its samples cover %d rows"},
		{-1, "holds %d predictions but its samples cover %d rows"},
	} {
		var tr strings.Builder
		start := 0
		for i, n := range sizes {
			if i == 7 {
				n += c.delta
			}
			fmt.Fprintf(&tr, "%d, %d, %d\n", start, start+n, n)
			start += n
		}
		path := filepath.Join(t.TempDir(), "trace.txt")
		os.WriteFile(path, []byte(tr.String()), 0o644)
		req := spec.ScoreRequest{Log: "testdata/log_preds.json", Extra: spec.Extra{optDay23File: "testdata/day_23_head.tsv", optAggregateTrace: path}}
		_, err := driver{}.Score(context.Background(), &req)
		// The log holds the predictions of every sample once; the trace
		// says delta rows more or less.
		preds := total
		if want := fmt.Sprintf(c.want, preds, preds+c.delta); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("sample 7 with %+d rows: %v, want %q", c.delta, err, want)
		}
	}
}

// TestReadDay23Labels: the first field of the first n lines, through a
// line longer than the reader's 1 MiB buffer and a last line without a
// newline; a label that is not an integer names its line; fewer lines than
// n give what there is.
func TestReadDay23Labels(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 3<<20)
	p := filepath.Join(dir, "day23.tsv")
	os.WriteFile(p, []byte("1\ta\n0\t"+long+"\n1\tb\n0"), 0o644)
	for _, c := range []struct {
		n    int
		want []float32
	}{{2, []float32{1, 0}}, {3, []float32{1, 0, 1}}, {4, []float32{1, 0, 1, 0}}, {9, []float32{1, 0, 1, 0}}} {
		got, err := readDay23Labels(p, c.n)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("first %d labels: %v, %v; want %v", c.n, got, err, c.want)
		}
	}
	bad := filepath.Join(dir, "bad.tsv")
	os.WriteFile(bad, []byte("1\ta\nyes\tb\n"), 0o644)
	if _, err := readDay23Labels(bad, 2); err == nil || !strings.Contains(err.Error(), `line 2: label "yes" is not an integer`) {
		t.Errorf("non-integer label: %v", err)
	}
	if _, err := readDay23Labels(filepath.Join(dir, "none.tsv"), 1); err == nil || !strings.Contains(err.Error(), "--day-23-file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestScoreWarnsOfATraceLongerThanTheLog: one trace sample more than the
// log has is the reference's warning (on a nil Stderr, nothing), and the
// score is the same.
func TestScoreWarnsOfATraceLongerThanTheLog(t *testing.T) {
	b, _ := os.ReadFile("testdata/trace_preds.txt")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var s, e, n int
	fmt.Sscanf(lines[len(lines)-1], "%d, %d, %d", &s, &e, &n)
	tr := filepath.Join(t.TempDir(), "trace.txt")
	os.WriteFile(tr, []byte(strings.Join(lines, "\n")+fmt.Sprintf("\n%d, %d, 1\n", e, e+1)), 0o644)
	extra := spec.Extra{optDay23File: "testdata/day_23_head.tsv", optAggregateTrace: tr}
	var warn bytes.Buffer
	sc, err := driver{}.Score(context.Background(), &spec.ScoreRequest{Log: "testdata/log_preds.json", Extra: extra, Stderr: &warn})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Warning: number of samples in trace file (%d) does not match number of samples (%d) in loadgen accuracy log!\n", len(lines)+1, len(lines))
	if warn.String() != want {
		t.Errorf("stderr %q, want %q", warn.String(), want)
	}
	quiet, err := driver{}.Score(context.Background(), &spec.ScoreRequest{Log: "testdata/log_preds.json", Extra: extra})
	if err != nil || !slices.Equal(quiet.Lines, sc.Lines) {
		t.Errorf("nil Stderr: %+v, %v; want %v", quiet, err, sc.Lines)
	}
}

// TestTableWriterCountsValues: a 2×3 table takes exactly 6 values, read
// back as written; one too many is refused, one missing fails Close; a
// table in a missing folder cannot be created.
func TestTableWriterCountsValues(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.npy")
	w, err := createTable(p, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]float32{5, 6, 7}); err == nil || !strings.Contains(err.Error(), "1 values past the table's end") {
		t.Errorf("7th value: %v", err)
	}
	if err := w.Write([]float32{5, 6}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	shape, v, err := preprocess.LoadNpy(p)
	if err != nil || !slices.Equal(shape, []int{2, 3}) || !slices.Equal(v, []float32{1, 2, 3, 4, 5, 6}) {
		t.Errorf("table read back: %v %v %v", shape, v, err)
	}
	short, _ := createTable(filepath.Join(dir, "s.npy"), 2, 3)
	short.Write([]float32{1, 2, 3, 4, 5})
	if err := short.Close(); err == nil || !strings.Contains(err.Error(), "1 values missing") {
		t.Errorf("5 of 6 values: %v", err)
	}
	if _, err := createTable(filepath.Join(dir, "none", "t.npy"), 1, 1); err == nil {
		t.Error("a table in a missing folder: no error")
	}
}
