package retinanet

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/openimages"
	"github.com/mlperf-go/inference/preprocess"
)

// Preprocess reads the image file at path and returns the RetinaNet input
// the reference computes for it, bit for bit (pre_process_openimages_retinanet
// in vision/classification_and_detection/python/dataset.py of
// mlcommons/inference): cv2.imread (BGR, EXIF orientation applied),
// float32, BGR→RGB, cv2.resize to 800×800 with INTER_LINEAR on the float
// image (aspect ratio not kept), /255, HWC→CHW. The result has SampleLen
// values (shape SampleShape) and belongs to the caller. It is safe for
// concurrent use; errors name the file.
func Preprocess(path string) ([]float32, error) {
	out := make([]float32, SampleLen)
	if err := PreprocessInto(out, path); err != nil {
		return nil, err
	}
	return out, nil
}

// PreprocessInto is Preprocess writing into dst (SampleLen values).
func PreprocessInto(dst []float32, path string) error {
	img, err := preprocess.ReadFile(path, preprocess.RGB)
	if err != nil {
		return fmt.Errorf("retinanet: %w", err)
	}
	if err := PreprocessImage(dst, img); err != nil {
		return fmt.Errorf("retinanet: %s: %w", path, err)
	}
	return nil
}

// PreprocessImage runs the steps after decoding on an RGB image: float32,
// resize to 800×800 (INTER_LINEAR), /255, CHW into dst (SampleLen values).
func PreprocessImage(dst []float32, rgb *preprocess.Image) error {
	if len(dst) != SampleLen {
		return fmt.Errorf("output buffer holds %d values, want %d", len(dst), SampleLen)
	}
	if rgb == nil || rgb.Channels != 3 {
		return fmt.Errorf("want a 3-channel RGB image")
	}
	r, err := preprocess.ResizeLinearF32(rgb.ToF32(), InputSize, InputSize)
	if err != nil {
		return err
	}
	return r.DivCHWInto(dst, 255)
}

// CachePath is where a preprocessed sample of the image file fileName
// goes under dir: dir/<fileName>.npy, the reference's preprocessed layout.
func CachePath(dir, fileName string) string {
	return filepath.Join(dir, filepath.FromSlash(fileName)+".npy")
}

// WriteCache preprocesses every sample of ds into CachePath(dir, file
// name) as `mlperf dataset preprocess openimages` does. Existing files are
// kept; files are written through a temporary name. workers bounds the
// parallel work (< 1: all cores); progress, if set, is called after each
// sample from one goroutine at a time. The first error stops the work.
func WriteCache(ctx context.Context, ds *openimages.Dataset, dir string, workers int, progress func(done, total int)) error {
	return preprocess.WriteNpyCache(ctx, preprocess.NpyCacheConfig{
		Total: ds.Len(), Shape: SampleShape, Name: "retinanet",
		Src:        ds.ImagePath,
		Out:        func(i int) string { return CachePath(dir, ds.GT.Images[i].FileName) },
		Preprocess: PreprocessInto,
		Workers:    workers, Progress: progress,
	})
}
