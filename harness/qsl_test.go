package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess"
)

var _ loadgen.QSL = (*QSL[int])(nil)

func TestQSLLoadUnload(t *testing.T) {
	var calls atomic.Int64
	var released []int
	q, err := NewQSL(QSLConfig[int]{
		Total:       10,
		Performance: 4,
		Workers:     3,
		Load: func(_ context.Context, i int) (int, error) {
			calls.Add(1)
			return i * i, nil
		},
		Release: func(v int) { released = append(released, v) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if q.TotalSampleCount() != 10 || q.PerformanceSampleCount() != 4 {
		t.Fatalf("counts %d/%d", q.TotalSampleCount(), q.PerformanceSampleCount())
	}
	if _, ok := q.Sample(2); ok {
		t.Fatal("sample 2 reported loaded before LoadSamples")
	}
	ctx := context.Background()
	if err := q.LoadSamples(ctx, []loadgen.SampleIndex{2, 5, 2, 7}); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Fatalf("loader called %d times, want 3 (duplicates load once)", calls.Load())
	}
	for _, i := range []loadgen.SampleIndex{2, 5, 7} {
		if v, ok := q.Sample(i); !ok || v != int(i*i) {
			t.Fatalf("sample %d = %d, %v", i, v, ok)
		}
	}
	if _, ok := q.Sample(3); ok {
		t.Fatal("sample 3 loaded")
	}
	if _, ok := q.Sample(99); ok {
		t.Fatal("sample 99 out of range reported loaded")
	}
	// Loading again what is loaded costs nothing.
	if err := q.LoadSamples(ctx, []loadgen.SampleIndex{5}); err != nil || calls.Load() != 3 {
		t.Fatalf("reload: err %v, calls %d", err, calls.Load())
	}
	if err := q.UnloadSamples(ctx, []loadgen.SampleIndex{5, 3}); err != nil {
		t.Fatal(err)
	}
	if _, ok := q.Sample(5); ok || q.Loaded() != 2 || len(released) != 1 || released[0] != 25 {
		t.Fatalf("after unload: loaded %d, released %v", q.Loaded(), released)
	}
}

func TestQSLConfigErrors(t *testing.T) {
	load := func(context.Context, int) (int, error) { return 0, nil }
	for name, cfg := range map[string]QSLConfig[int]{
		"empty":     {Total: 0, Load: load},
		"no loader": {Total: 3},
	} {
		if _, err := NewQSL(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	q, err := NewQSL(QSLConfig[int]{Total: 3, Performance: 10, Load: load})
	if err != nil || q.PerformanceSampleCount() != 3 {
		t.Fatalf("performance count above total: %v, %d", err, q.PerformanceSampleCount())
	}
	if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{3}); err == nil {
		t.Fatal("loading an index past the end: no error")
	}
}

func TestQSLLoadErrorNamesSample(t *testing.T) {
	bad := errors.New("corrupt image")
	q, _ := NewQSL(QSLConfig[int]{
		Total: 50, Workers: 4,
		Load: func(_ context.Context, i int) (int, error) {
			if i == 17 {
				return 0, bad
			}
			return i, nil
		},
	})
	idx := make([]loadgen.SampleIndex, 50)
	for i := range idx {
		idx[i] = loadgen.SampleIndex(i)
	}
	err := q.LoadSamples(context.Background(), idx)
	if !errors.Is(err, bad) || !strings.Contains(err.Error(), "sample 17") {
		t.Fatalf("err %v", err)
	}
}

func TestNpyCache(t *testing.T) {
	dir := t.TempDir()
	shape := []int{2, 3}
	var calls atomic.Int64
	load := func(_ context.Context, i int) ([]float32, error) {
		calls.Add(1)
		if i == 9 {
			return nil, errors.New("no such image")
		}
		v := make([]float32, 6)
		for k := range v {
			v[k] = float32(i*10 + k)
		}
		return v, nil
	}
	name := func(i int) string { return fmt.Sprintf("val/img%d.JPEG", i) }
	cached := NpyCache(dir, name, shape, load)
	ctx := context.Background()
	for pass := range 2 {
		v, err := cached(ctx, 4)
		if err != nil {
			t.Fatal(err)
		}
		if v[5] != 45 {
			t.Fatalf("pass %d: %v", pass, v)
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("loader called %d times, want 1 (second read from cache)", calls.Load())
	}
	if _, err := os.Stat(filepath.Join(dir, "val", "img4.JPEG.npy")); err != nil {
		t.Fatal(err)
	}
	// A failed load is the loader's error and writes nothing.
	if _, err := cached(ctx, 9); err == nil || err.Error() != "no such image" {
		t.Fatalf("failed load: %v, want the loader's error", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "val")); len(ents) != 1 {
		t.Fatalf("cache holds %d files, want 1", len(ents))
	}
	// A cached file of the wrong shape is an error naming it.
	if err := preprocess.SaveNpy(filepath.Join(dir, "val", "img5.JPEG.npy"), []int{6}, make([]float32, 6)); err != nil {
		t.Fatal(err)
	}
	if _, err := cached(ctx, 5); err == nil || !strings.Contains(err.Error(), "img5.JPEG.npy") {
		t.Fatalf("wrong shape: err %v", err)
	}
	// A truncated cached file is an error, not a panic.
	if err := os.WriteFile(filepath.Join(dir, "val", "img6.JPEG.npy"), []byte("\x93NUMPY\x01\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cached(ctx, 6); err == nil {
		t.Fatal("truncated cache file: no error")
	}
}

// TestQSLBoundsOnBothSides puts each bound of NewQSL, LoadSamples and
// UnloadSamples just inside and just outside.
func TestQSLBoundsOnBothSides(t *testing.T) {
	var calls atomic.Int64
	load := func(_ context.Context, i int) (int, error) { calls.Add(1); return 100 + i, nil }
	// Total: 1 is the smallest QSL, 0 is refused.
	if _, err := NewQSL(QSLConfig[int]{Total: 0, Load: load}); err == nil || !strings.Contains(err.Error(), "QSL of 0 samples") {
		t.Fatalf("Total 0: err %v", err)
	}
	one, err := NewQSL(QSLConfig[int]{Total: 1, Load: load})
	if err != nil {
		t.Fatalf("Total 1: %v", err)
	}
	// Performance: 0 and Total+1 mean Total; 1 and Total are kept.
	for _, c := range []struct{ perf, want int }{{0, 5}, {-1, 5}, {1, 1}, {5, 5}, {6, 5}} {
		q, err := NewQSL(QSLConfig[int]{Total: 5, Performance: c.perf, Load: load})
		if err != nil || q.PerformanceSampleCount() != c.want {
			t.Errorf("Performance %d: count %d (err %v), want %d", c.perf, q.PerformanceSampleCount(), err, c.want)
		}
	}
	// One new sample is loaded (not mistaken for nothing to do).
	ctx := context.Background()
	if err := one.LoadSamples(ctx, []loadgen.SampleIndex{0}); err != nil {
		t.Fatal(err)
	}
	if v, ok := one.Sample(0); !ok || v != 100 || calls.Load() != 1 {
		t.Fatalf("one sample: %d %v after %d loads, want 100 true after 1", v, ok, calls.Load())
	}
	// The last index loads, the next one is refused, naming both numbers.
	q, _ := NewQSL(QSLConfig[int]{Total: 3, Load: load})
	if err := q.LoadSamples(ctx, []loadgen.SampleIndex{2}); err != nil {
		t.Fatalf("last index: %v", err)
	}
	if err := q.LoadSamples(ctx, []loadgen.SampleIndex{3}); err == nil || !strings.Contains(err.Error(), "load sample 3 of a 3-sample QSL") {
		t.Fatalf("index = Total: err %v", err)
	}
	// Nothing to load is no work, even under a cancelled context.
	dead, cancel := context.WithCancel(ctx)
	cancel()
	if err := q.LoadSamples(dead, []loadgen.SampleIndex{2}); err != nil {
		t.Fatalf("loading a loaded sample under a cancelled context: %v", err)
	}
	// Unloading an index past the end is ignored, and the last one unloads.
	if err := q.UnloadSamples(ctx, []loadgen.SampleIndex{3, 2}); err != nil {
		t.Fatal(err)
	}
	if _, ok := q.Sample(2); ok || q.Loaded() != 0 {
		t.Fatalf("after unloading 2: loaded %d", q.Loaded())
	}
}

// TestNpyCacheWriteFaults: a sample whose cache folder cannot be made, or
// whose temporary file cannot be written, is an error naming the cache,
// and no sample file is left.
func TestNpyCacheWriteFaults(t *testing.T) {
	dir := t.TempDir()
	// "gone" is a link to nothing: reading through it finds no file, making
	// the folder fails.
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "gone")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	load := func(_ context.Context, i int) ([]float32, error) { return []float32{float32(i)}, nil }
	cached := NpyCache(dir, func(i int) string { return fmt.Sprintf("gone/s%d", i) }, []int{1}, load)
	if _, err := cached(context.Background(), 1); err == nil || !strings.HasPrefix(err.Error(), "harness: sample cache: mkdir ") {
		t.Errorf("folder behind a dangling link: %v, want the mkdir error", err)
	}
	// The temporary file's name is taken by a folder.
	cached = NpyCache(dir, func(i int) string { return fmt.Sprintf("s%d", i) }, []int{1}, load)
	path := filepath.Join(dir, "s2.npy")
	if err := os.Mkdir(fmt.Sprintf("%s.%d.tmp", path, os.Getpid()), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := cached(context.Background(), 2); err == nil || !strings.HasPrefix(err.Error(), "harness: sample cache: ") {
		t.Errorf("temporary file blocked: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a sample file was left: %v", err)
	}
}
