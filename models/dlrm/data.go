package dlrm

// A run's samples: the Criteo day (or the synthetic one), the aggregation
// trace the options ask for, and the QSL over both.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/loadgen"
)

// syntheticDataArg writes (once) the synthetic data set of rows rows under
// cacheDir and returns its folder.
func syntheticDataArg(cacheDir string, rows int) (string, error) {
	if rows < 1 {
		rows = criteo.SynthRows
	}
	dir := filepath.Join(cacheDir, fmt.Sprintf("criteo-synthetic-%d", rows))
	if _, err := os.Stat(filepath.Join(dir, criteo.SparseFile)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("dlrm: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, ".criteo-synthetic-*")
	if err != nil {
		return "", fmt.Errorf("dlrm: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := criteo.Synth(tmp, criteo.SynthConfig{Rows: rows, Seed: 1}); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, criteo.SparseFile)); serr == nil {
			return dir, nil
		}
		return "", fmt.Errorf("dlrm: %w", err)
	}
	return dir, nil
}

// intOpt reads an integer option ("" is def).
func intOpt(x spec.Extra, name string, def int) (int, error) {
	v := x[name]
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("dlrm: --%s %q: want a non-negative integer", name, v)
	}
	return n, nil
}

// traceFor builds the aggregation trace a run's options ask for over rows
// rows: --samples-to-aggregate-fix K, else the quantile (the built-in
// dist_quantile.txt or --samples-to-aggregate-quantile-file) with
// --numpy-rand-seed.
func traceFor(x spec.Extra, rows int) (*criteo.Trace, error) {
	fix, err := intOpt(x, optAggregateFix, 0)
	if err != nil {
		return nil, err
	}
	if fix > 0 {
		return criteo.FixedTrace(rows, fix)
	}
	q := criteo.DistQuantile
	if p := x[optQuantileFile]; p != "" {
		if q, err = criteo.ReadQuantile(p); err != nil {
			return nil, err
		}
	}
	seed, err := intOpt(x, optNumpySeed, criteo.DefaultNumpySeed)
	if err != nil {
		return nil, err
	}
	if seed > 1<<32-1 {
		return nil, fmt.Errorf("dlrm: --%s %d: numpy seeds are below 2^32", optNumpySeed, seed)
	}
	return criteo.QuantileTrace(rows, q, uint32(seed))
}

// qsl is the DLRMv2 query sample library: sample j is the rows of the
// trace's aggregated sample j, read in place from the memory-mapped data
// set. LoadSamples reads their pages in (untimed); nothing is copied.
type qsl struct {
	ds    *criteo.Dataset
	trace *criteo.Trace
	sink  atomic.Uint32
}

// TotalSampleCount implements loadgen.QSL.
func (q *qsl) TotalSampleCount() int { return q.trace.Len() }

// PerformanceSampleCount implements loadgen.QSL.
func (q *qsl) PerformanceSampleCount() int { return min(q.trace.Len(), performanceSampleCount) }

// LoadSamples implements loadgen.QSL.
func (q *qsl) LoadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	var x byte
	for n, i := range idx {
		if int(i) >= q.trace.Len() {
			return fmt.Errorf("dlrm: load sample %d of %d", i, q.trace.Len())
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		s, e := q.trace.Rows(int(i))
		if err := q.ds.CheckRows(s, e); err != nil {
			return fmt.Errorf("dlrm: sample %d: %w", i, err)
		}
		x ^= q.ds.Touch(s, e)
	}
	q.sink.Add(uint32(x))
	return nil
}

// UnloadSamples implements loadgen.QSL (the pages stay to the OS).
func (q *qsl) UnloadSamples(context.Context, []loadgen.SampleIndex) error { return nil }
