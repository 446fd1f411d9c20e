package resnet50

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/preprocess"
)

// Reference preprocessing constants (pre_process_vgg in the MLPerf
// reference's python/dataset.py).
const (
	// inputSize is the side of the square network input.
	inputSize = 224
	// resizeShort is the short side after the aspect-preserving resize:
	// int(100 × 224 / 87.5).
	resizeShort = 256
	// SampleLen is the number of float32 values of one preprocessed sample
	// (3 × 224 × 224, NCHW without the batch dimension).
	SampleLen = 3 * inputSize * inputSize
)

// means are the per-channel means subtracted in RGB order.
var means = [3]float32{123.68, 116.78, 103.94}

// sampleShape is the shape of one preprocessed sample, as stored in the
// reference's .npy cache.
var sampleShape = []int{3, inputSize, inputSize}

// resizeDims returns the size the reference resizes a w×h image to before
// the centre crop: the short side becomes 256 and the other side
// int(256 × long / short), computed in float64 and truncated as Python's
// int() does. Square images become 256×256.
func resizeDims(w, h int) (nw, nh int) {
	if h > w {
		return resizeShort, int(float64(resizeShort*h) / float64(w))
	}
	return int(float64(resizeShort*w) / float64(h)), resizeShort
}

// Preprocess reads the image file at path and returns the ResNet50 input
// the reference computes for it, bit for bit: cv2.imread (BGR, EXIF
// orientation applied), BGR→RGB, short side to 256 with cv2.INTER_AREA,
// centre crop 224×224, float32 minus Means, HWC→CHW. The result has
// SampleLen values (shape SampleShape) and belongs to the caller.
//
// Preprocess is safe for concurrent use. Errors name the file.
func Preprocess(path string) ([]float32, error) {
	out := make([]float32, SampleLen)
	if err := preprocessInto(out, path); err != nil {
		return nil, err
	}
	return out, nil
}

// preprocessInto is Preprocess writing into dst, which must hold SampleLen
// values.
func preprocessInto(dst []float32, path string) error {
	img, err := preprocess.ReadFile(path, preprocess.RGB)
	if err != nil {
		return fmt.Errorf("resnet50: %w", err)
	}
	if err := preprocessImage(dst, img); err != nil {
		return fmt.Errorf("resnet50: %s: %w", path, err)
	}
	return nil
}

// preprocessImage runs the steps after decoding on an RGB image (what
// cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB) returns): resize,
// crop, mean subtraction and CHW layout into dst (SampleLen values).
func preprocessImage(dst []float32, rgb *preprocess.Image) error {
	if len(dst) != SampleLen {
		return fmt.Errorf("resnet50: output buffer holds %d values, want %d", len(dst), SampleLen)
	}
	if rgb == nil || rgb.Channels != 3 {
		return fmt.Errorf("resnet50: want a 3-channel RGB image")
	}
	w, h := resizeDims(rgb.Width, rgb.Height)
	// Only the centre window of the resized image is computed; its values
	// are those of resizing the whole image and cropping.
	crop, err := preprocess.ResizeAreaCrop(rgb, w, h, (w-inputSize)/2, (h-inputSize)/2, inputSize, inputSize)
	if err != nil {
		return fmt.Errorf("resnet50: %w", err)
	}
	return preprocess.NormalizeCHWInto(dst, crop, means[:], nil)
}

// cachePath returns where the preprocessed cache keeps the sample of an
// image listed as imagePath (relative, as in val_map.txt): dir/<imagePath>.npy,
// the layout of the reference's --cache_dir and --use_preprocessed_dataset.
func cachePath(dir, imagePath string) string {
	return filepath.Join(dir, filepath.FromSlash(imagePath)+".npy")
}

// loadCached reads one cached sample (a float32 .npy of shape SampleShape)
// into dst (SampleLen values). A file of another shape or dtype is an
// error naming it.
func loadCached(dst []float32, path string) error {
	if len(dst) != SampleLen {
		return fmt.Errorf("resnet50: output buffer holds %d values, want %d", len(dst), SampleLen)
	}
	shape, data, err := preprocess.LoadNpy(path)
	if err != nil {
		return fmt.Errorf("resnet50: %w", err)
	}
	if len(shape) != 3 || shape[0] != 3 || shape[1] != inputSize || shape[2] != inputSize {
		return fmt.Errorf("resnet50: %s: cached sample has shape %v, want %v (NCHW); delete the cache and preprocess again", path, shape, sampleShape)
	}
	copy(dst, data)
	return nil
}

// writeCache preprocesses every sample of ds into dir/<image path>.npy
// (CachePath), as the reference's preprocessed cache and `mlperf dataset
// preprocess imagenet` do. Files that already exist are kept. workers
// goroutines run in parallel (< 1 means runtime.GOMAXPROCS(0)); progress,
// if not nil, is called after each sample with the number done (from one
// goroutine at a time). The first error stops the work and is returned;
// files are written through a temporary name, so a stopped run leaves no
// partial .npy behind.
func writeCache(ctx context.Context, ds *imagenet.Dataset, dir string, workers int, progress func(done, total int)) error {
	return preprocess.WriteNpyCache(ctx, preprocess.NpyCacheConfig{
		Total: ds.Len(), Shape: sampleShape, Name: "resnet50",
		Src:        ds.ImagePath,
		Out:        func(i int) string { return cachePath(dir, ds.Samples[i].Path) },
		Preprocess: preprocessInto,
		Workers:    workers, Progress: progress,
	})
}
