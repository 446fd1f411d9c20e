package retinanet

import (
	"bytes"
	stdimage "image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// FuzzPreprocessJPEG drives the JPEG entry point of the QSL: the bytes of
// a val image (any bytes) decoded as PreprocessInto decodes a file
// (preprocess.Decode, RGB) and preprocessed with PreprocessImage. It must
// fill the sample with finite values or return an error, never panic or
// hang, extreme aspect ratios included.
func FuzzPreprocessJPEG(f *testing.F) {
	if !libjpeg.Available() {
		f.Skip("built without cgo: no JPEG decoder")
	}
	for _, name := range []string{"fruits_tiny.jpg", "blox.jpg", "fish_exif6.jpg"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "preprocess", "testdata", "images", name))
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
	dst := make([]float32, SampleLen)
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
		if err := PreprocessImage(dst, img); err != nil {
			return
		}
		for i, v := range dst {
			if v != v || v > 1e6 || v < -1e6 {
				t.Fatalf("value %d is %v", i, v)
			}
		}
	})
}
