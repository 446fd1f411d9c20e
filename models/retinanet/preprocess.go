package retinanet

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/openimages"
	"github.com/mlperf-go/inference/preprocess"
)

// preprocessFile reads the image file at path and returns the RetinaNet input
// the reference computes for it, bit for bit (pre_process_openimages_retinanet
// in vision/classification_and_detection/python/dataset.py of
// mlcommons/inference): cv2.imread (BGR, EXIF orientation applied),
// float32, BGR→RGB, cv2.resize to 800×800 with INTER_LINEAR on the float
// image (aspect ratio not kept), /255, HWC→CHW. The result has SampleLen
// values (shape SampleShape) and belongs to the caller. It is safe for
// concurrent use; errors name the file.
func preprocessFile(path string) ([]float32, error) {
	out := make([]float32, sampleLen)
	if err := preprocessInto(out, path); err != nil {
		return nil, err
	}
	return out, nil
}

// preprocessInto is Preprocess writing into dst (SampleLen values).
func preprocessInto(dst []float32, path string) error {
	img, err := preprocess.ReadFile(path, preprocess.RGB)
	if err != nil {
		return fmt.Errorf("retinanet: %w", err)
	}
	if err := preprocessImage(dst, img); err != nil {
		return fmt.Errorf("retinanet: %s: %w", path, err)
	}
	return nil
}

// preprocessImage runs the steps after decoding on an RGB image: float32,
// resize to 800×800 (INTER_LINEAR), /255, CHW into dst (SampleLen values).
func preprocessImage(dst []float32, rgb *preprocess.Image) error {
	if len(dst) != sampleLen {
		return fmt.Errorf("output buffer holds %d values, want %d", len(dst), sampleLen)
	}
	if rgb == nil || rgb.Channels != 3 {
		return fmt.Errorf("want a 3-channel RGB image")
	}
	r, err := preprocess.ResizeLinearF32(rgb.ToF32(), inputSize, inputSize)
	if err != nil {
		return err
	}
	return r.DivCHWInto(dst, 255)
}

// cachePath is where a preprocessed sample of the image file fileName
// goes under dir: dir/<fileName>.npy, the reference's preprocessed layout.
func cachePath(dir, fileName string) string {
	return filepath.Join(dir, filepath.FromSlash(fileName)+".npy")
}

// writeCache preprocesses every sample of ds into CachePath(dir, file
// name) as `mlperf dataset preprocess openimages` does. Existing files are
// kept; files are written through a temporary name. workers bounds the
// parallel work (< 1: all cores); progress, if set, is called after each
// sample from one goroutine at a time. The first error stops the work.
func writeCache(ctx context.Context, ds *openimages.Dataset, dir string, workers int, progress func(done, total int)) error {
	return preprocess.WriteNpyCache(ctx, preprocess.NpyCacheConfig{
		Total: ds.Len(), Shape: sampleShape, Name: "retinanet",
		Src:        ds.ImagePath,
		Out:        func(i int) string { return cachePath(dir, ds.GT.Images[i].FileName) },
		Preprocess: preprocessInto,
		Workers:    workers, Progress: progress,
	})
}
