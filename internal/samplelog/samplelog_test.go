package samplelog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// RecordLoads numbers the load sets from 0 and the samples within each,
// and passes every call on; the folder of the log is made.
func TestRecordLoadsRowsPerSet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "qsl.csv")
	f, err := Create(path, LoadHeader)
	if err != nil {
		t.Fatal(err)
	}
	mem := &loadgentest.MemQSL{Total: 8, Performance: 8}
	q := RecordLoads(mem, f)
	ctx := context.Background()
	if err := q.LoadSamples(ctx, []loadgen.SampleIndex{5, 2}); err != nil {
		t.Fatal(err)
	}
	if err := q.LoadSamples(ctx, []loadgen.SampleIndex{7}); err != nil {
		t.Fatal(err)
	}
	if q.TotalSampleCount() != 8 {
		t.Errorf("TotalSampleCount %d, want the wrapped QSL's 8", q.TotalSampleCount())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, path), "set,position,sample_index\n0,0,5\n0,1,2\n1,0,7\n"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
}

// RecordIssues writes one row per sample: the query, its position in
// the query, the sample index and the scheduled time.
func TestRecordIssuesRowPerSample(t *testing.T) {
	path := filepath.Join(t.TempDir(), "issue.csv")
	f, err := Create(path, IssueHeader)
	if err != nil {
		t.Fatal(err)
	}
	hook := RecordIssues(f)
	hook(0, 0, []loadgen.Sample{{Index: 3}})
	hook(1, 1500000, []loadgen.Sample{{Index: 9}, {Index: 4}})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, path), "query,position,sample_index,scheduled_ns\n0,0,3,0\n1,0,9,1500000\n1,1,4,1500000\n"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
}

// A log that cannot be made, or whose rows cannot be written, is an
// error naming the file.
func TestCreateAndCloseErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Create(filepath.Join(file, "x.csv"), LoadHeader); err == nil {
		t.Error("a log under a file: no error")
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full to fill")
	}
	f, err := Create("/dev/full", LoadHeader)
	if err != nil {
		t.Skipf("cannot open /dev/full: %v", err)
	}
	if err := f.Close(); err == nil || !strings.Contains(err.Error(), "writing /dev/full") || !strings.Contains(err.Error(), "is the disk full?") {
		t.Errorf("full device: %v", err)
	}
}
