package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess"
)

// Loader produces sample i of a data set, ready for the model (for example
// a preprocessed image). It runs outside the timed section and must be
// safe for concurrent use; the returned value belongs to the QSL.
type Loader[T any] func(ctx context.Context, i int) (T, error)

// QSLConfig describes an in-memory QSL.
type QSLConfig[T any] struct {
	// Total is the number of samples in the data set.
	Total int
	// Performance is how many samples fit in memory at once (the QSL's
	// performance sample count; mlperf.conf usually overrides it). Zero or
	// more than Total means Total.
	Performance int
	// Load produces one sample.
	Load Loader[T]
	// Workers is the number of samples loaded in parallel (< 1 means
	// runtime.GOMAXPROCS(0)).
	Workers int
	// Progress, if not nil, is called after each loaded sample with the
	// number loaded so far by this LoadSamples call and its total, from one
	// goroutine at a time.
	Progress func(done, total int)
	// Release, if not nil, is given each unloaded sample (for example to
	// return its buffer to a pool).
	Release func(T)
}

// QSL is an in-memory query sample library: LoadSamples loads the given
// samples with the configured Loader, in parallel, before the timed
// section; Sample reads a loaded one without locking.
//
// LoadSamples and UnloadSamples must not run concurrently with each other
// or with Sample calls for the samples they change; the loadgen guarantees
// this (it loads and unloads only between queries).
type QSL[T any] struct {
	cfg     QSLConfig[T]
	samples []T
	loaded  []bool
}

// NewQSL returns an empty QSL. cfg.Total must be positive and cfg.Load set.
func NewQSL[T any](cfg QSLConfig[T]) (*QSL[T], error) {
	if cfg.Total < 1 {
		return nil, fmt.Errorf("harness: QSL of %d samples; want at least 1", cfg.Total)
	}
	if cfg.Load == nil {
		return nil, errors.New("harness: QSL without a loader")
	}
	if cfg.Performance < 1 || cfg.Performance > cfg.Total {
		cfg.Performance = cfg.Total
	}
	if cfg.Workers < 1 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	return &QSL[T]{cfg: cfg, samples: make([]T, cfg.Total), loaded: make([]bool, cfg.Total)}, nil
}

// TotalSampleCount implements loadgen.QSL.
func (q *QSL[T]) TotalSampleCount() int { return q.cfg.Total }

// PerformanceSampleCount implements loadgen.QSL.
func (q *QSL[T]) PerformanceSampleCount() int { return q.cfg.Performance }

// Sample returns loaded sample i. It reports false for a sample that is
// not loaded or out of range.
func (q *QSL[T]) Sample(i loadgen.SampleIndex) (T, bool) {
	if i >= loadgen.SampleIndex(len(q.samples)) || !q.loaded[i] {
		var zero T
		return zero, false
	}
	return q.samples[i], true
}

// Loaded is the number of samples in memory.
func (q *QSL[T]) Loaded() int {
	n := 0
	for _, l := range q.loaded {
		if l {
			n++
		}
	}
	return n
}

// LoadSamples implements loadgen.QSL: it loads the samples of idx that are
// not loaded yet, Workers at a time. The first error stops the loading and
// is returned, naming the sample; samples loaded before it stay loaded.
func (q *QSL[T]) LoadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	var todo []int
	seen := make(map[loadgen.SampleIndex]bool, len(idx))
	for _, i := range idx {
		if i >= loadgen.SampleIndex(q.cfg.Total) {
			return fmt.Errorf("harness: load sample %d of a %d-sample QSL", i, q.cfg.Total)
		}
		if !q.loaded[i] && !seen[i] {
			seen[i] = true
			todo = append(todo, int(i))
		}
	}
	if len(todo) == 0 {
		return nil
	}
	slices.Sort(todo) // read files in data-set order
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		mu       sync.Mutex
		done     int
		firstErr error
		wg       sync.WaitGroup
	)
	workers := min(q.cfg.Workers, len(todo))
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(todo) || ctx.Err() != nil {
					return
				}
				i := todo[k]
				v, err := q.cfg.Load(ctx, i)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("harness: load sample %d: %w", i, err)
					}
					mu.Unlock()
					cancel()
					return
				}
				q.samples[i], q.loaded[i] = v, true
				done++
				if q.cfg.Progress != nil {
					q.cfg.Progress(done, len(todo))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("harness: loading samples: %w", err)
	}
	return nil
}

// UnloadSamples implements loadgen.QSL: it drops the samples of idx.
func (q *QSL[T]) UnloadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	var zero T
	for _, i := range idx {
		if i >= loadgen.SampleIndex(q.cfg.Total) || !q.loaded[i] {
			continue
		}
		if q.cfg.Release != nil {
			q.cfg.Release(q.samples[i])
		}
		q.samples[i], q.loaded[i] = zero, false
	}
	return nil
}

// NpyCache wraps load with an on-disk cache of float32 .npy files, as the
// reference's preprocessed cache: sample i lives at dir/<name(i)>.npy. A
// cached file is read instead of calling load (its shape must be shape,
// else it is an error naming the file and the fix); a missing one is
// computed with load and written (through a temporary file, so that a
// stopped run leaves no partial file). The returned Loader is safe for
// concurrent use if load is. It does not check what made the files: use
// OpenNpyCache for a folder the user names.
func NpyCache(dir string, name func(i int) string, shape []int, load Loader[[]float32]) Loader[[]float32] {
	return func(ctx context.Context, i int) ([]float32, error) {
		path := filepath.Join(dir, filepath.FromSlash(name(i))+".npy")
		got, data, err := preprocess.LoadNpy(path)
		switch {
		case err == nil:
			if !slices.Equal(got, shape) {
				return nil, fmt.Errorf("harness: cached sample %s has shape %v, want %v; delete the cache folder %s and run again", path, got, shape, dir)
			}
			return data, nil
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("harness: cached sample: %w (delete the file to recompute it)", err)
		}
		v, err := load(ctx, i)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("harness: sample cache: %w", err)
		}
		tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
		if err := preprocess.SaveNpy(tmp, shape, v); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("harness: sample cache: %w", err)
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("harness: sample cache: %w", err)
		}
		return v, nil
	}
}
