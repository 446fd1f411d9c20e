package yolo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// The letterbox geometry equals LetterBox's (Python round, half to even)
// on every golden size, auto on and off, including sizes that scale to
// under a pixel, which are refused.
func TestLetterboxGeometryMatchesUltralytics(t *testing.T) {
	g := loadGolden(t)
	if len(g.Geometry) < 200 {
		t.Fatalf("only %d geometry goldens", len(g.Geometry))
	}
	for _, c := range g.Geometry {
		lb, err := newLetterbox(c.W, c.H, inputSize, c.Auto)
		if c.Error {
			if err == nil {
				t.Errorf("%dx%d auto=%v: no error, want one (scales to under a pixel)", c.W, c.H, c.Auto)
			}
			continue
		}
		if err != nil {
			t.Errorf("%dx%d auto=%v: %v", c.W, c.H, c.Auto, err)
			continue
		}
		got := [6]int{lb.NewW, lb.NewH, lb.Top, lb.Bottom, lb.Left, lb.Right}
		want := [6]int{c.NewW, c.NewH, c.Top, c.Bottom, c.Left, c.Right}
		if got != want {
			t.Errorf("%dx%d auto=%v: new %dx%d pads t%d b%d l%d r%d, want new %dx%d pads t%d b%d l%d r%d",
				c.W, c.H, c.Auto, got[0], got[1], got[2], got[3], got[4], got[5], want[0], want[1], want[2], want[3], want[4], want[5])
		}
		if !c.Auto && (lb.OutW != inputSize || lb.OutH != inputSize) {
			t.Errorf("%dx%d: output %dx%d, want %d square", c.W, c.H, lb.OutW, lb.OutH, inputSize)
		}
	}
}

// The letterboxed image and the network input are bit for bit what
// OpenCV 4.6 and the predictor's arithmetic give, on real photos of odd
// sizes, upscaled and downscaled, unresized, grey, CMYK, progressive and
// EXIF-rotated.
func TestLetterboxImagesMatchOpenCV(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("JPEG decoding needs cgo")
	}
	g := loadGolden(t)
	checkedEntry := false
	for _, c := range g.Images {
		path := filepath.Join("..", "..", filepath.FromSlash(c.File))
		rgb, err := preprocess.ReadFile(path, preprocess.RGB)
		if err != nil {
			t.Fatal(err)
		}
		if rgb.Width != c.Width || rgb.Height != c.Height {
			t.Errorf("%s: decoded %dx%d, OpenCV %dx%d", c.File, rgb.Width, rgb.Height, c.Width, c.Height)
			continue
		}
		lb, err := newLetterbox(rgb.Width, rgb.Height, inputSize, c.Auto)
		if err != nil {
			t.Fatal(err)
		}
		if lb.OutW != c.OutW || lb.OutH != c.OutH {
			t.Errorf("%s auto=%v: output %dx%d, want %dx%d", c.File, c.Auto, lb.OutW, lb.OutH, c.OutW, c.OutH)
			continue
		}
		boxed, err := lb.apply(rgb)
		if err != nil {
			t.Fatal(err)
		}
		in := make([]float32, 3*lb.OutW*lb.OutH)
		chw(in, boxed)
		if got := float32sSHA(in); got != c.Input {
			t.Errorf("%s auto=%v: network input differs from the predictor's", c.File, c.Auto)
		}
		boxed.SwapRB() // OpenCV's BGR, as the golden hashes it
		if got := sha256Hex(boxed.Pix); got != c.Letterboxed {
			t.Errorf("%s auto=%v: letterboxed image differs from OpenCV's", c.File, c.Auto)
		}
		// The QSL's entry point, once: file to network input.
		if !c.Auto && !checkedEntry {
			checkedEntry = true
			dst := make([]float32, sampleLen)
			w, h, err := preprocessInto(dst, path)
			if err != nil || w != c.Width || h != c.Height || float32sSHA(dst) != c.Input {
				t.Errorf("%s: PreprocessInto gives %dx%d, %v, input equal %v", c.File, w, h, err, float32sSHA(dst) == c.Input)
			}
		}
	}
}

// Files that are not readable JPEGs end in errors naming the file: a
// truncated JPEG (OpenCV would return it with a grey lower part), a PNG,
// an empty file, a missing one.
func TestPreprocessBadFiles(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("JPEG decoding needs cgo")
	}
	good, err := os.ReadFile("testdata/images/eagle.jpg")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string][]byte{
		"truncated.jpg": good[:len(good)/2],
		"png.jpg":       []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
		"empty.jpg":     nil,
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := make([]float32, sampleLen)
	for _, name := range []string{"truncated.jpg", "png.jpg", "empty.jpg", "missing.jpg"} {
		p := filepath.Join(dir, name)
		_, _, err := preprocessInto(dst, p)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
	_, _, err = preprocessInto(dst, filepath.Join(dir, "truncated.jpg"))
	if !errors.Is(err, preprocess.ErrCorrupt) {
		t.Errorf("truncated JPEG: %v, want ErrCorrupt", err)
	}
}

// apply and chwInto refuse an image other than the one the geometry was
// computed for, and a wrong-sized buffer.
func TestLetterboxRefusesMismatch(t *testing.T) {
	lb, err := newLetterbox(100, 50, inputSize, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lb.apply(preprocess.NewImage(50, 100, 3)); err == nil {
		t.Error("apply on a 50x100 image with a 100x50 letterbox: no error")
	}
	if _, err := lb.apply(preprocess.NewImage(100, 50, 1)); err == nil {
		t.Error("apply on a 1-channel image: no error")
	}
	if err := lb.chwInto(make([]float32, sampleLen-1), preprocess.NewImage(100, 50, 3)); err == nil {
		t.Error("CHWInto with a short buffer: no error")
	}
	if _, err := newLetterbox(0, 5, inputSize, false); err == nil {
		t.Error("a 0x5 image: no error")
	}
}
