package resnet50

// A run's samples: the ImageNet data set (or the synthetic one) and its
// in-memory QSL with the optional preprocessed-sample cache.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/harness"
)

// dataConfig says where a run's samples come from.
type dataConfig struct {
	// Dir is the data set folder (val_map.txt and the images).
	Dir string
	// ListFile overrides Dir/val_map.txt.
	ListFile string
	// Count, if positive, uses only the first Count listed images.
	Count int
	// CacheDir, if set, keeps preprocessed samples as
	// CacheDir/<image path>.npy: existing files are read instead of
	// decoding the image (the reference's --cache_dir / preprocessed
	// data set, and what `mlperf dataset preprocess imagenet` writes),
	// missing ones are written.
	CacheDir string
	// Workers is the number of images preprocessed in parallel while
	// samples load (< 1: all cores).
	Workers int
	// Progress, if not nil, reports loading progress (see
	// harness.QSLConfig.Progress).
	Progress func(done, total int)
	// Warn receives warnings about missing images (nil: os.Stderr).
	Warn io.Writer
}

// openDataset reads the data set's image list (see imagenet.Load).
func openDataset(cfg dataConfig) (*imagenet.Dataset, error) {
	ds, err := imagenet.Load(cfg.Dir, imagenet.Options{ListFile: cfg.ListFile, Count: cfg.Count, Warn: cfg.Warn})
	if err != nil {
		return nil, fmt.Errorf("resnet50: %w", err)
	}
	return ds, nil
}

// synthDataset writes the synthetic data set (SynthSamples generated
// JPEGs and val_map.txt, see imagenet.Synth) into dir unless it is there
// already, and returns dir.
func synthDataset(dir string, n int) (string, error) {
	if n < 1 {
		n = synthSamples
	}
	if ds, err := imagenet.Load(dir, imagenet.Options{Warn: io.Discard}); err == nil && ds.Len() == n && len(ds.Missing) == 0 {
		return dir, nil
	}
	if err := imagenet.Synth(dir, imagenet.SynthConfig{N: n, Seed: synthSeed}); err != nil {
		return "", fmt.Errorf("resnet50: %w", err)
	}
	return dir, nil
}

// newQSL returns an in-memory QSL over ds: LoadSamples preprocesses the
// requested images (in parallel, untimed) with Preprocess, or reads them
// from cfg.CacheDir. Unloaded samples' buffers are reused.
func newQSL(ds *imagenet.Dataset, cfg dataConfig) (*harness.QSL[[]float32], error) {
	load, release := harness.PooledFloat32(SampleLen, func(_ context.Context, buf []float32, i int) error {
		return preprocessInto(buf, ds.ImagePath(i))
	})
	if cfg.CacheDir != "" {
		var err error
		if load, err = openCache(ds, cfg, load); err != nil {
			return nil, err
		}
	}
	q, err := harness.NewQSL(harness.QSLConfig[[]float32]{
		Total:       ds.Len(),
		Performance: min(ds.Len(), performanceSampleCount),
		Load:        load,
		Workers:     cfg.Workers,
		Progress:    cfg.Progress,
		Release:     release,
	})
	if err != nil {
		return nil, fmt.Errorf("resnet50: %w", err)
	}
	return q, nil
}

// cachePreprocessing describes Preprocess in the fingerprint of a sample
// cache (harness.CacheStamp); change it whenever cached samples would
// change.
var cachePreprocessing = fmt.Sprintf("resnet50 pre_process_vgg v1 float32%v", sampleShape)

// openCache binds cfg.CacheDir as ds's sample cache (harness.OpenNpyCache:
// a cache made from another data set or preprocessing is refused) and
// wraps load in it.
func openCache(ds *imagenet.Dataset, cfg dataConfig, load harness.Loader[[]float32]) (harness.Loader[[]float32], error) {
	list := cfg.ListFile
	if list == "" {
		list = filepath.Join(ds.Dir, imagenet.ValMapName)
	}
	src, err := harness.SourceFingerprint(list, nil)
	if err != nil {
		return nil, fmt.Errorf("resnet50: %w", err)
	}
	l, err := harness.OpenNpyCache(context.Background(), harness.NpyCacheConfig{
		Dir: cfg.CacheDir, Name: func(i int) string { return ds.Samples[i].Path },
		Stamp: harness.CacheStamp{Preprocessing: cachePreprocessing, Source: src, SourceName: list},
		Total: ds.Len(), Shape: sampleShape, Load: load, Warn: cfg.Warn,
	})
	if err != nil {
		return nil, fmt.Errorf("resnet50: %w", err)
	}
	return l, nil
}

// defaultCacheDir is where `mlperf dataset preprocess imagenet` writes the
// preprocessed samples of a data set folder unless told otherwise: beside
// the images, as the reference's --use_preprocessed_dataset expects.
func defaultCacheDir(dataDir string) string { return filepath.Clean(dataDir) }

// dataDir resolves --data: "synthetic" is SynthSamples generated JPEGs,
// written once into the cache folder.
func dataDir(data, cacheDir string, stderr io.Writer) (string, error) {
	if data != "synthetic" {
		return data, nil
	}
	dir := filepath.Join(cacheDir, fmt.Sprintf("imagenet-synthetic-%d", synthSamples))
	fmt.Fprintf(stderr, "resnet50: synthetic data set (%d generated JPEGs) in %s\n", synthSamples, dir)
	return synthDataset(dir, synthSamples)
}
