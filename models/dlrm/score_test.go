package dlrm

import (
	"bytes"
	"context"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
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
