package resnet50

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

func TestQSLPreprocessesAndCaches(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
	data := filepath.Join(t.TempDir(), "data")
	if _, err := SynthDataset(data, 3); err != nil {
		t.Fatal(err)
	}
	// A second call finds the data set and leaves it alone.
	st, _ := os.Stat(filepath.Join(data, "val_map.txt"))
	if _, err := SynthDataset(data, 3); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(filepath.Join(data, "val_map.txt")); !st2.ModTime().Equal(st.ModTime()) {
		t.Fatal("synthetic data set rewritten")
	}
	cache := filepath.Join(t.TempDir(), "cache")
	cfg := DataConfig{Dir: data, CacheDir: cache, Workers: 2, Warn: io.Discard}
	ds, err := OpenDataset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 3 {
		t.Fatalf("%d samples, want 3", ds.Len())
	}
	for pass := range 2 { // the second pass reads the cache
		q, err := NewQSL(ds, cfg)
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
		if _, err := os.Stat(CachePath(cache, ds.Samples[0].Path)); err != nil {
			t.Fatalf("pass %d: %v", pass, err)
		}
		if _, err := os.Stat(CachePath(cache, ds.Samples[1].Path)); err == nil {
			t.Fatal("sample 1 cached without being loaded")
		}
		q.UnloadSamples(context.Background(), []loadgen.SampleIndex{0, 2})
	}
}

func TestQSLBadImage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "val_map.txt"), []byte("a.JPEG 1\nb.JPEG 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.JPEG"), []byte("\xff\xd8\xff\xe0 truncated"), 0o644)
	ds, err := OpenDataset(DataConfig{Dir: dir, Warn: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 1 {
		t.Fatalf("%d samples; the missing b.JPEG should be skipped", ds.Len())
	}
	q, err := NewQSL(ds, DataConfig{})
	if err != nil {
		t.Fatal(err)
	}
	err = q.LoadSamples(context.Background(), []loadgen.SampleIndex{0})
	if err == nil {
		t.Fatal("corrupt JPEG: no error")
	}
	t.Log(err)
	if _, err := OpenDataset(DataConfig{Dir: t.TempDir(), Warn: io.Discard}); err == nil {
		t.Fatal("no val_map.txt: no error")
	}
}
