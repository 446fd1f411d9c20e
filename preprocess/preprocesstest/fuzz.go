// Package preprocesstest holds test helpers shared by the image
// benchmarks' preprocessing tests.
package preprocesstest

import (
	"bytes"
	stdimage "image"
	"image/jpeg"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// FuzzJPEG drives a benchmark's JPEG entry point: any bytes decoded as
// its QSL decodes a val image (preprocess.Decode, RGB) and preprocessed
// with preprocessImage into a sampleLen-value sample, which must then
// hold finite values; an error is fine, a panic or a hang is not.
// Extreme aspect ratios are seeded. It skips without the cgo JPEG
// decoder.
func FuzzJPEG(f *testing.F, sampleLen int, preprocessImage func(dst []float32, rgb *preprocess.Image) error) {
	if !libjpeg.Available() {
		f.Skip("built without cgo: no JPEG decoder")
	}
	_, here, _, _ := runtime.Caller(0)
	images := filepath.Join(filepath.Dir(here), "..", "testdata", "images")
	for _, name := range []string{"fruits_tiny.jpg", "blox.jpg", "fish_exif6.jpg"} {
		data, err := os.ReadFile(filepath.Join(images, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)*2/3])
	}
	for _, r := range []stdimage.Rectangle{stdimage.Rect(0, 0, 1, 1), stdimage.Rect(0, 0, 1, 700), stdimage.Rect(0, 0, 700, 1)} {
		var b bytes.Buffer
		jpeg.Encode(&b, stdimage.NewGray(r), nil)
		f.Add(b.Bytes())
	}
	dst := make([]float32, sampleLen)
	f.Fuzz(func(t *testing.T, data []byte) {
		// A header may declare up to preprocess.MaxPixels (OpenCV's
		// limit, 3 GiB decoded); keep the fuzzer's own runs small.
		if c, err := jpeg.DecodeConfig(bytes.NewReader(data)); err == nil && c.Width*c.Height > 1<<22 {
			return
		}
		img, err := preprocess.Decode(data, preprocess.RGB)
		if err != nil {
			return
		}
		if err := preprocessImage(dst, img); err != nil {
			return
		}
		for i, v := range dst {
			if v != v || v > 1e6 || v < -1e6 {
				t.Fatalf("value %d is %v", i, v)
			}
		}
	})
}
