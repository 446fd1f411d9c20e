package yolo

// A run's samples: the COCO safe data set (or the synthetic one) and its
// in-memory QSL of letterboxed images.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/mlperf-go/inference/datasets/coco2017"
	"github.com/mlperf-go/inference/harness"
)

// synthMu serialises the writing of the synthetic data set.
var synthMu sync.Mutex

// loadData resolves --data (a folder or "synthetic") and loads it.
func loadData(data string, count int, annotations, cacheDir string, warn io.Writer) (*coco2017.Dataset, error) {
	dir := data
	if data == "synthetic" {
		dir = filepath.Join(cacheDir, "coco2017-synthetic")
		synthMu.Lock()
		ds, err := coco2017.Load(dir, coco2017.Options{Warn: io.Discard})
		if err != nil || ds.Len() != synthSamples || len(ds.Missing) > 0 {
			fmt.Fprintf(warn, "yolo: writing the synthetic COCO safe data set (%d images) into %s\n", synthSamples, dir)
			err = coco2017.Synth(dir, coco2017.SynthConfig{N: synthSamples, Seed: synthSeed})
		}
		synthMu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("yolo: %w", err)
		}
		annotations = ""
	}
	ds, err := coco2017.Load(dir, coco2017.Options{Annotations: annotations, Count: count, Warn: warn})
	if err != nil {
		return nil, fmt.Errorf("yolo: %w", err)
	}
	return ds, nil
}

// newQSL returns an in-memory QSL over ds whose LoadSamples decodes and
// letterboxes the images (preprocessInto) into pooled buffers.
func newQSL(ds *coco2017.Dataset, workers int) (*harness.QSL[sample], error) {
	pool := sync.Pool{New: func() any { return make([]float32, sampleLen) }}
	q, err := harness.NewQSL(harness.QSLConfig[sample]{
		Total:       ds.Len(),
		Performance: min(ds.Len(), performanceSampleCount),
		Load: func(_ context.Context, i int) (sample, error) {
			buf := pool.Get().([]float32)
			w, h, err := preprocessInto(buf, ds.ImagePath(i))
			if err != nil {
				pool.Put(buf)
				return sample{}, err
			}
			return sample{Input: buf, Width: w, Height: h}, nil
		},
		Workers: workers,
		Release: func(s sample) { pool.Put(s.Input) },
	})
	if err != nil {
		return nil, fmt.Errorf("yolo: %w", err)
	}
	return q, nil
}
