package benchmark

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// LoadBatches loads the first batches' samples, cycles a short set to
// fill a batch, and unloads what it loaded.
func TestLoadBatches(t *testing.T) {
	for _, tc := range []struct {
		total, batch, most int
		want               [][]loadgen.SampleIndex
	}{
		{10, 3, 2, [][]loadgen.SampleIndex{{0, 1, 2}, {3, 4, 5}}},
		{2, 3, 8, [][]loadgen.SampleIndex{{0, 1, 0}}},
		{7, 2, 8, [][]loadgen.SampleIndex{{0, 1}, {2, 3}, {4, 5}}},
	} {
		q := &loadgentest.MemQSL{Total: tc.total, Performance: tc.total}
		got, unload, err := LoadBatches(context.Background(), q, tc.batch, tc.most, func(i loadgen.SampleIndex) (loadgen.SampleIndex, bool) { return i, true })
		if err != nil {
			t.Fatal(err)
		}
		unload()
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("total %d batch %d: %v, want %v", tc.total, tc.batch, got, tc.want)
		}
	}
	q := &loadgentest.MemQSL{Total: 4, Performance: 4}
	if _, _, err := LoadBatches(context.Background(), q, 2, 1, func(loadgen.SampleIndex) (int, bool) { return 0, false }); err == nil {
		t.Error("a sample missing after LoadSamples gave no error")
	}
}

func TestFileInAndCheckBatch(t *testing.T) {
	dir := t.TempDir()
	if got := FileIn(dir, "x.json"); got != filepath.Join(dir, "x.json") {
		t.Errorf("folder: %s", got)
	}
	f := filepath.Join(dir, "y.json")
	os.WriteFile(f, nil, 0o644)
	if got := FileIn(f, "x.json"); got != f {
		t.Errorf("file: %s", got)
	}
	env := &Env{Options: Options{Batch: 8}, Benchmark: &Benchmark{Name: "b"}}
	if err := env.CheckBatch(0); err != nil {
		t.Errorf("dynamic batch: %v", err)
	}
	if err := env.CheckBatch(4); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--batch 4") {
		t.Errorf("fixed batch 4 under --batch 8: %v", err)
	}
}

func TestParseFlagsAndCheck(t *testing.T) {
	fs := flag.NewFlagSet("run x", flag.ContinueOnError)
	fs.Int("n", 0, "")
	var out bytes.Buffer
	if err := ParseFlags(fs, []string{"-n", "x"}, &out); !errors.Is(err, ErrUsage) {
		t.Errorf("bad value: %v", err)
	}
	if err := ParseFlags(fs, []string{"extra"}, &out); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `"extra"`) {
		t.Errorf("positional argument: %v", err)
	}
	if err := ParseFlags(fs, []string{"-h"}, &out); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "usage: mlperf run x") {
		t.Errorf("-h: %v, %q", err, out.String())
	}
	// A benchmark's Check runs in Validate, before anything is built.
	b := echo(new(int))
	b.Check = func(o *Options) error { return UsageError("bad %s", o.Extra["k"]) }
	o := Options{Scenario: loadgen.Offline, Model: "synthetic", Data: "d", Backend: "cpu", Extra: Extra{"k": "v"}}
	if err := o.Validate(b); err == nil || err.Error() != "bad v" {
		t.Errorf("Check not applied: %v", err)
	}
}
