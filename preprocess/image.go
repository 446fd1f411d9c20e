package preprocess

import (
	"errors"
	"fmt"
)

// ErrBadImage is wrapped by errors about inconsistent image arguments.
var ErrBadImage = errors.New("preprocess: bad image")

// Image is an 8-bit image stored row-major with interleaved channels (HWC),
// like an OpenCV CV_8UC(n) Mat with no padding: pixel (x, y) channel c is
// Pix[(y*Width+x)*Channels+c]. Channel order is whatever produced it
// (Decode gives BGR like cv2.imread unless asked for RGB).
type Image struct {
	Width, Height, Channels int
	Pix                     []uint8
}

// NewImage allocates a zeroed w×h image with cn channels.
func NewImage(w, h, cn int) *Image {
	return &Image{Width: w, Height: h, Channels: cn, Pix: make([]uint8, w*h*cn)}
}

// Stride is the number of bytes per row.
func (m *Image) Stride() int { return m.Width * m.Channels }

func (m *Image) check() error {
	if m == nil {
		return fmt.Errorf("%w: nil image", ErrBadImage)
	}
	if m.Width <= 0 || m.Height <= 0 || m.Channels <= 0 || len(m.Pix) != m.Width*m.Height*m.Channels {
		return fmt.Errorf("%w: %dx%dx%d with %d bytes", ErrBadImage, m.Width, m.Height, m.Channels, len(m.Pix))
	}
	return nil
}

// ImageF32 is a float32 image in the same HWC layout as Image.
type ImageF32 struct {
	Width, Height, Channels int
	Pix                     []float32
}

// NewImageF32 allocates a zeroed w×h float32 image with cn channels.
func NewImageF32(w, h, cn int) *ImageF32 {
	return &ImageF32{Width: w, Height: h, Channels: cn, Pix: make([]float32, w*h*cn)}
}

func (m *ImageF32) check() error {
	if m == nil {
		return fmt.Errorf("%w: nil image", ErrBadImage)
	}
	if m.Width <= 0 || m.Height <= 0 || m.Channels <= 0 || len(m.Pix) != m.Width*m.Height*m.Channels {
		return fmt.Errorf("%w: %dx%dx%d with %d values", ErrBadImage, m.Width, m.Height, m.Channels, len(m.Pix))
	}
	return nil
}

// ToF32 converts the image to float32 (values 0..255), like
// img.astype(np.float32).
func (m *Image) ToF32() *ImageF32 {
	out := NewImageF32(m.Width, m.Height, m.Channels)
	for i, v := range m.Pix {
		out.Pix[i] = float32(v)
	}
	return out
}

// SwapRB swaps the first and third channel of every pixel in place
// (cv2.COLOR_BGR2RGB and COLOR_RGB2BGR). Images with fewer than 3 channels
// are left alone.
func (m *Image) SwapRB() {
	if m.Channels < 3 {
		return
	}
	cn := m.Channels
	p := m.Pix
	for i := 0; i+2 < len(p); i += cn {
		p[i], p[i+2] = p[i+2], p[i]
	}
}

// SwapRB swaps the first and third channel of every pixel in place.
func (m *ImageF32) SwapRB() {
	if m.Channels < 3 {
		return
	}
	cn := m.Channels
	p := m.Pix
	for i := 0; i+2 < len(p); i += cn {
		p[i], p[i+2] = p[i+2], p[i]
	}
}

// CenterCrop returns the centred w×h window of m as the reference's
// center_crop does: left = int((W-w)/2), top = int((H-h)/2). The result is
// a copy.
func CenterCrop(m *Image, w, h int) (*Image, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if w <= 0 || h <= 0 || w > m.Width || h > m.Height {
		return nil, fmt.Errorf("%w: cannot crop %dx%d out of %dx%d", ErrBadImage, w, h, m.Width, m.Height)
	}
	return Crop(m, (m.Width-w)/2, (m.Height-h)/2, w, h)
}

// Crop returns a copy of the w×h window whose top-left corner is (x, y).
func Crop(m *Image, x, y, w, h int) (*Image, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if x < 0 || y < 0 || w <= 0 || h <= 0 || x+w > m.Width || y+h > m.Height {
		return nil, fmt.Errorf("%w: window %dx%d at (%d,%d) outside %dx%d", ErrBadImage, w, h, x, y, m.Width, m.Height)
	}
	cn := m.Channels
	out := NewImage(w, h, cn)
	for r := 0; r < h; r++ {
		src := m.Pix[((y+r)*m.Width+x)*cn:]
		copy(out.Pix[r*w*cn:(r+1)*w*cn], src[:w*cn])
	}
	return out, nil
}

// NormalizeCHWInto writes m as planar CHW float32 into dst:
// dst[c*H*W + y*W + x] = (float32(pixel) - mean[c]) / std[c], each step
// rounded to float32 as NumPy does on float32 arrays. std may be nil (no
// division, as in the ResNet50 reference). len(dst) must be W*H*C and
// len(mean) (and len(std)) C.
func NormalizeCHWInto(dst []float32, m *Image, mean, std []float32) error {
	if err := m.check(); err != nil {
		return err
	}
	cn, plane := m.Channels, m.Width*m.Height
	if len(dst) != plane*cn || len(mean) != cn || (std != nil && len(std) != cn) {
		return fmt.Errorf("%w: CHW output of %d values, %d means, %d stds for a %dx%dx%d image",
			ErrBadImage, len(dst), len(mean), len(std), m.Width, m.Height, cn)
	}
	for c := 0; c < cn; c++ {
		out := dst[c*plane : (c+1)*plane]
		mu := mean[c]
		if std == nil {
			for i := range out {
				out[i] = float32(m.Pix[i*cn+c]) - mu
			}
			continue
		}
		sd := std[c]
		for i := range out {
			out[i] = (float32(m.Pix[i*cn+c]) - mu) / sd
		}
	}
	return nil
}

// DivCHWInto writes m as planar CHW into dst (len W*H*C), each value divided
// by div in float32, like img /= 255. on a float32 NumPy array followed by
// img.transpose([2, 0, 1]).
func (m *ImageF32) DivCHWInto(dst []float32, div float32) error {
	if err := m.check(); err != nil {
		return err
	}
	cn, plane := m.Channels, m.Width*m.Height
	if len(dst) != plane*cn {
		return fmt.Errorf("%w: CHW output of %d values for a %dx%dx%d image", ErrBadImage, len(dst), m.Width, m.Height, cn)
	}
	for c := 0; c < cn; c++ {
		out := dst[c*plane : (c+1)*plane]
		for i := range out {
			out[i] = m.Pix[i*cn+c] / div
		}
	}
	return nil
}
