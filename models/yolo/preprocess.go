package yolo

import (
	"fmt"
	"math"

	"github.com/mlperf-go/inference/preprocess"
)

// padValue is the grey Ultralytics' LetterBox pads with (padding_value).
const padValue = 114

// maxStride is the network's largest stride, which LetterBox pads to in its
// minimum-rectangle (auto) mode.
const maxStride = 32

// letterbox is how one image is fitted into the network input: scaled by
// Gain to NewW×NewH, then padded by Left, Top, Right and Bottom pixels of
// padValue grey to OutW×OutH. It is a value; the zero value is not
// meaningful (see newLetterbox).
type letterbox struct {
	SrcW, SrcH    int     // decoded image size
	Gain          float64 // min(OutH/SrcH, OutW/SrcW) (LetterBox's r)
	NewW, NewH    int     // scaled size (new_unpad)
	Left, Top     int     // padding before the image
	Right, Bottom int     // padding after it
	OutW, OutH    int     // network input size
	Resized       bool    // whether cv2.resize runs (NewW×NewH ≠ SrcW×SrcH)
}

// newLetterbox computes the geometry of Ultralytics' LetterBox
// (ultralytics/data/augment.py) for a srcW×srcH image and a size×size
// target, with scaleup on and the image centred, as the predictor uses it:
//
//	r = min(size/h, size/w)                    (float64)
//	new_unpad = round(w·r), round(h·r)          (Python round: half to even)
//	dw, dh = size − new_w, size − new_h;  auto: dw, dh = dw mod 32, dh mod 32
//	dw, dh = dw/2, dh/2
//	top, bottom = round(dh − 0.1), round(dh + 0.1); left, right likewise
//
// auto is LetterBox's minimum-rectangle mode, which the predictor turns on
// only for PyTorch weights and dynamic exports
// (ultralytics/engine/predictor.py pre_transform); a fixed 640×640 ONNX
// export runs with auto off, so that every input is size×size. An image
// that would scale to less than one pixel on a side is an error (OpenCV's
// resize asserts on it).
func newLetterbox(srcW, srcH, size int, auto bool) (letterbox, error) {
	if srcW <= 0 || srcH <= 0 || size <= 0 {
		return letterbox{}, fmt.Errorf("yolo: letterbox of a %dx%d image to %d", srcW, srcH, size)
	}
	r := math.Min(float64(size)/float64(srcH), float64(size)/float64(srcW))
	lb := letterbox{SrcW: srcW, SrcH: srcH, Gain: r,
		NewW: int(math.RoundToEven(float64(srcW) * r)), NewH: int(math.RoundToEven(float64(srcH) * r))}
	if lb.NewW < 1 || lb.NewH < 1 {
		return letterbox{}, fmt.Errorf("yolo: a %dx%d image scales to %dx%d at gain %g, under one pixel: it cannot be letterboxed (OpenCV refuses the resize too)", srcW, srcH, lb.NewW, lb.NewH, r)
	}
	dw, dh := size-lb.NewW, size-lb.NewH
	if auto {
		dw, dh = dw%maxStride, dh%maxStride // both ≥ 0: the scaled image fits
	}
	hw, hh := float64(dw)/2, float64(dh)/2
	lb.Top, lb.Bottom = int(math.RoundToEven(hh-0.1)), int(math.RoundToEven(hh+0.1))
	lb.Left, lb.Right = int(math.RoundToEven(hw-0.1)), int(math.RoundToEven(hw+0.1))
	lb.OutW, lb.OutH = lb.Left+lb.NewW+lb.Right, lb.Top+lb.NewH+lb.Bottom
	lb.Resized = lb.NewW != srcW || lb.NewH != srcH
	return lb, nil
}

// apply returns the letterboxed uint8 image of m (any channel order, 3
// channels): cv2.resize INTER_LINEAR to NewW×NewH when Resized, then
// cv2.copyMakeBorder with the constant padValue.
func (lb letterbox) apply(m *preprocess.Image) (*preprocess.Image, error) {
	if m == nil || m.Channels != 3 || m.Width != lb.SrcW || m.Height != lb.SrcH {
		return nil, fmt.Errorf("yolo: letterbox for %dx%d applied to another image", lb.SrcW, lb.SrcH)
	}
	src := m
	if lb.Resized {
		var err error
		if src, err = preprocess.ResizeLinear(m, lb.NewW, lb.NewH); err != nil {
			return nil, fmt.Errorf("yolo: %w", err)
		}
	}
	out := preprocess.NewImage(lb.OutW, lb.OutH, 3)
	for i := range out.Pix {
		out.Pix[i] = padValue
	}
	row := lb.NewW * 3
	for y := range lb.NewH {
		copy(out.Pix[((lb.Top+y)*lb.OutW+lb.Left)*3:], src.Pix[y*row:(y+1)*row])
	}
	return out, nil
}

// chwInto writes the letterboxed image lb.apply(rgb) as the network input:
// channels-first float32 in [0, 1], each value v/255 rounded to float32 as
// the predictor's im.float() / 255 computes it. rgb must be in RGB order
// (the predictor flips OpenCV's BGR); dst must hold 3·OutW·OutH values.
func (lb letterbox) chwInto(dst []float32, rgb *preprocess.Image) error {
	if len(dst) != 3*lb.OutW*lb.OutH {
		return fmt.Errorf("yolo: input buffer of %d values, want %d (3×%d×%d)", len(dst), 3*lb.OutW*lb.OutH, lb.OutH, lb.OutW)
	}
	img, err := lb.apply(rgb)
	if err != nil {
		return err
	}
	chw(dst, img)
	return nil
}

// chw writes a letterboxed RGB image as channels-first v/255 float32.
func chw(dst []float32, img *preprocess.Image) {
	var lut [256]float32
	for v := range lut {
		lut[v] = float32(v) / 255
	}
	plane := img.Width * img.Height
	for i := range plane {
		p := img.Pix[3*i : 3*i+3]
		dst[i] = lut[p[0]]
		dst[plane+i] = lut[p[1]]
		dst[2*plane+i] = lut[p[2]]
	}
}

// sample is one preprocessed image: the network input and the decoded
// image's size, which the boxes are scaled back to and normalised by.
type sample struct {
	// Input is 3×inputSize×inputSize float32, RGB, CHW, in [0, 1].
	Input []float32
	// Width and Height are the decoded image's (results.orig_shape).
	Width, Height int
}

// preprocessInto reads the JPEG at path as Ultralytics' predictor does
// (cv2.imdecode with IMREAD_COLOR: libjpeg-turbo, grey expanded to three
// channels, CMYK converted, EXIF orientation applied; see
// preprocess.ReadFile) and writes its letterboxed inputSize×inputSize
// input into dst (sampleLen values). It returns the decoded size. Errors
// name the file; a truncated or corrupt JPEG is an error (OpenCV would
// return the image with its missing part grey).
func preprocessInto(dst []float32, path string) (w, h int, err error) {
	img, err := preprocess.ReadFile(path, preprocess.RGB)
	if err != nil {
		return 0, 0, fmt.Errorf("yolo: %w", err)
	}
	if err := preprocessImage(dst, img); err != nil {
		return 0, 0, fmt.Errorf("yolo: %s: %w", path, err)
	}
	return img.Width, img.Height, nil
}

// preprocessImage letterboxes a decoded RGB image to inputSize×inputSize
// (auto off, as for a fixed-size ONNX model) into dst (sampleLen values).
func preprocessImage(dst []float32, rgb *preprocess.Image) error {
	if rgb == nil || rgb.Channels != 3 {
		return fmt.Errorf("want a 3-channel RGB image")
	}
	lb, err := newLetterbox(rgb.Width, rgb.Height, inputSize, false)
	if err != nil {
		return err
	}
	return lb.chwInto(dst, rgb)
}
