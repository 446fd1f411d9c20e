package resnet50

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

func TestQSLPreprocessesAndCaches(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
	data := filepath.Join(t.TempDir(), "data")
	if _, err := synthDataset(data, 3); err != nil {
		t.Fatal(err)
	}
	// A second call finds the data set and leaves it alone.
	st, _ := os.Stat(filepath.Join(data, "val_map.txt"))
	if _, err := synthDataset(data, 3); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(filepath.Join(data, "val_map.txt")); !st2.ModTime().Equal(st.ModTime()) {
		t.Fatal("synthetic data set rewritten")
	}
	cache := filepath.Join(t.TempDir(), "cache")
	cfg := dataConfig{Dir: data, CacheDir: cache, Workers: 2, Warn: io.Discard}
	ds, err := openDataset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 3 {
		t.Fatalf("%d samples, want 3", ds.Len())
	}
	for pass := range 2 { // the second pass reads the cache
		q, err := newQSL(ds, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if q.TotalSampleCount() != 3 || q.PerformanceSampleCount() != 3 {
			t.Fatalf("counts %d %d", q.TotalSampleCount(), q.PerformanceSampleCount())
		}
		if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{2, 0}); err != nil {
			t.Fatal(err)
		}
		want, err := Preprocess(ds.ImagePath(2))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := q.Sample(2)
		if !ok || !slices.Equal(got, want) {
			t.Fatalf("pass %d: loaded sample differs from Preprocess", pass)
		}
		if _, err := os.Stat(cachePath(cache, ds.Samples[0].Path)); err != nil {
			t.Fatalf("pass %d: %v", pass, err)
		}
		if _, err := os.Stat(cachePath(cache, ds.Samples[1].Path)); err == nil {
			t.Fatal("sample 1 cached without being loaded")
		}
		q.UnloadSamples(context.Background(), []loadgen.SampleIndex{0, 2})
	}
}

func TestQSLBadImage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "val_map.txt"), []byte("a.JPEG 1\nb.JPEG 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.JPEG"), []byte("\xff\xd8\xff\xe0 truncated"), 0o644)
	ds, err := openDataset(dataConfig{Dir: dir, Warn: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 1 {
		t.Fatalf("%d samples; the missing b.JPEG should be skipped", ds.Len())
	}
	q, err := newQSL(ds, dataConfig{})
	if err != nil {
		t.Fatal(err)
	}
	err = q.LoadSamples(context.Background(), []loadgen.SampleIndex{0})
	if err == nil {
		t.Fatal("corrupt JPEG: no error")
	}
	t.Log(err)
	if _, err := openDataset(dataConfig{Dir: t.TempDir(), Warn: io.Discard}); err == nil {
		t.Fatal("no val_map.txt: no error")
	}
}

// TestCacheFingerprint: a fresh --cache is stamped; a cache made from
// another data set with the same file names is refused, stamped or not;
// a cache made by another tool (no stamp, our layout) is checked and used.
func TestCacheFingerprint(t *testing.T) {
	needDecoder(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := imagenet.Synth(a, imagenet.SynthConfig{N: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := imagenet.Synth(b, imagenet.SynthConfig{N: 2, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	open := func(data, cache string) (*bytes.Buffer, error) {
		var warn bytes.Buffer
		cfg := dataConfig{Dir: data, CacheDir: cache, Warn: &warn}
		ds, err := openDataset(cfg)
		if err != nil {
			t.Fatal(err)
		}
		q, err := newQSL(ds, cfg)
		if err == nil {
			err = q.LoadSamples(context.Background(), []loadgen.SampleIndex{0})
		}
		return &warn, err
	}
	cache := filepath.Join(dir, "cache")
	if _, err := open(a, cache); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cache, harness.CacheFingerprintFile)); err != nil {
		t.Fatalf("fresh cache not stamped: %v", err)
	}
	if _, err := open(a, cache); err != nil {
		t.Fatalf("same data set: %v", err)
	}
	_, err := open(b, cache)
	if !errors.Is(err, harness.ErrStaleCache) || !strings.Contains(err.Error(), cache) || !strings.Contains(err.Error(), "delete the folder or pass another --cache") {
		t.Fatalf("stale stamped cache: %v", err)
	}
	// Without the stamp (as a cache from another tool), the cached sample
	// itself gives the other data set away.
	os.Remove(filepath.Join(cache, harness.CacheFingerprintFile))
	if _, err := open(b, cache); !errors.Is(err, harness.ErrStaleCache) || !strings.Contains(err.Error(), "differs from the one computed") {
		t.Fatalf("stale unstamped cache: %v", err)
	}
	warn, err := open(a, cache)
	if err != nil || !strings.Contains(warn.String(), "1 cached samples match") {
		t.Fatalf("foreign cache of the right data set: %v, warned %q", err, warn)
	}
	// --cache naming a file.
	if _, err := open(a, filepath.Join(a, "val_map.txt")); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Fatalf("cache is a file: %v", err)
	}
}
