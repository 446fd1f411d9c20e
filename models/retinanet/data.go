package retinanet

// A run's samples: the OpenImages data set (or the synthetic one) and its
// in-memory QSL with the optional preprocessed-sample cache.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/mlperf-go/inference/datasets/openimages"
	"github.com/mlperf-go/inference/harness"
)

// synthMu serialises the writing of the synthetic data set.
var synthMu sync.Mutex

// loadData resolves --data (a folder or "synthetic") and loads it.
func loadData(data string, count int, annotations, cacheDir string, warn io.Writer) (*openimages.Dataset, error) {
	dir := data
	if data == "synthetic" {
		dir = filepath.Join(cacheDir, "openimages-synthetic")
		synthMu.Lock()
		ds, err := openimages.Load(dir, openimages.Options{Warn: io.Discard})
		if err != nil || ds.Len() != synthSamples || len(ds.Missing) > 0 {
			fmt.Fprintf(warn, "retinanet: writing the synthetic OpenImages data set (%d images) into %s\n", synthSamples, dir)
			err = openimages.Synth(dir, openimages.SynthConfig{N: synthSamples, Seed: synthSeed})
		}
		synthMu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("retinanet: %w", err)
		}
		annotations = ""
	}
	ds, err := openimages.Load(dir, openimages.Options{Annotations: annotations, Count: count, Warn: warn})
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	return ds, nil
}

// cachePreprocessing describes Preprocess in the fingerprint of a sample
// cache (harness.CacheStamp); change it whenever cached samples would
// change.
var cachePreprocessing = fmt.Sprintf("retinanet openimages resize v1 float32%v", sampleShape)

// openCache binds dir as ds's sample cache (harness.OpenNpyCache: a cache
// made from another data set or preprocessing is refused) and wraps load
// in it. warn receives the note on a cache made by another tool (nil:
// os.Stderr).
func openCache(ds *openimages.Dataset, dir string, load harness.Loader[[]float32], warn io.Writer) (harness.Loader[[]float32], error) {
	src, err := harness.SourceFingerprint(ds.Annotations, nil)
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	l, err := harness.OpenNpyCache(context.Background(), harness.NpyCacheConfig{
		Dir: dir, Name: func(i int) string { return ds.GT.Images[i].FileName },
		Stamp: harness.CacheStamp{Preprocessing: cachePreprocessing, Source: src, SourceName: ds.Annotations},
		Total: ds.Len(), Shape: sampleShape, Load: load, Warn: warn,
	})
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	return l, nil
}

// newQSL returns an in-memory QSL over ds whose LoadSamples preprocesses
// the images (Preprocess) or reads them from cacheDir ("" for none; see
// openCache, which notes a cache made by another tool on warn).
func newQSL(ds *openimages.Dataset, cacheDir string, workers int, warn io.Writer) (*harness.QSL[[]float32], error) {
	load, release := harness.PooledFloat32(sampleLen, func(_ context.Context, buf []float32, i int) error {
		return preprocessInto(buf, ds.ImagePath(i))
	})
	if cacheDir != "" {
		var err error
		if load, err = openCache(ds, cacheDir, load, warn); err != nil {
			return nil, err
		}
	}
	q, err := harness.NewQSL(harness.QSLConfig[[]float32]{
		Total:       ds.Len(),
		Performance: min(ds.Len(), performanceSampleCount),
		Load:        load,
		Workers:     workers,
		Release:     release,
	})
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	return q, nil
}
