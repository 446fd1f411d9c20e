package preprocess

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// ChannelOrder is the channel order Decode produces for colour output.
type ChannelOrder int

const (
	// BGR is OpenCV's channel order, what cv2.imread returns.
	BGR ChannelOrder = iota
	// RGB is BGR with the first and third channels swapped, what
	// cv2.cvtColor(img, cv2.COLOR_BGR2RGB) returns. Decoding straight to RGB
	// costs nothing extra.
	RGB
)

// MaxPixels bounds width×height of decoded images, like OpenCV's
// CV_IO_MAX_IMAGE_PIXELS default (2^30).
const MaxPixels = 1 << 30

var (
	// ErrCorrupt is wrapped by decoding errors caused by damaged or
	// truncated files.
	ErrCorrupt = libjpeg.ErrCorrupt
	// ErrUnsupported is wrapped by errors about files that are not JPEG.
	ErrUnsupported = errors.New("unsupported image format")
	// ErrNoDecoder is wrapped by every Decode error in builds without cgo.
	ErrNoDecoder = libjpeg.ErrUnavailable
)

// Decode decodes a JPEG file into a 3-channel 8-bit image exactly as
// cv2.imread(path, cv2.IMREAD_COLOR) does with OpenCV 4.x on
// libjpeg-turbo: accurate integer IDCT, fancy upsampling, grayscale
// expanded to three equal channels, CMYK converted with OpenCV's formula,
// and the EXIF orientation (first APP1 marker, IFD0 tag 0x0112) applied
// with OpenCV's flips and transposes.
//
// Unlike cv2.imread, a file whose entropy-coded data is damaged or cut
// short is an error (wrapping ErrCorrupt), not a partly grey image. Non-JPEG
// data is an error wrapping ErrUnsupported. Decode is safe for concurrent
// use; the caller owns the result.
func Decode(data []byte, order ChannelOrder) (*Image, error) {
	img, err := decode(data, order)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %w", err)
	}
	return img, nil
}

// ReadFile reads and decodes the JPEG file at path like Decode. Errors name
// the file.
func ReadFile(path string, order ChannelOrder) (*Image, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %w", err)
	}
	img, err := decode(data, order)
	if err != nil {
		return nil, fmt.Errorf("preprocess: decode %s: %w", path, err)
	}
	return img, nil
}

func decode(data []byte, order ChannelOrder) (*Image, error) {
	if len(data) < 3 || data[0] != 0xFF || data[1] != 0xD8 {
		return nil, fmt.Errorf("%w: %s, only JPEG is supported", ErrUnsupported, sniff(data))
	}
	if w, h, ok := sequentialSize(data); ok && int64(w)*int64(h) > minBytesSlack+pixelsPerByte*int64(len(data)) {
		return nil, fmt.Errorf("%w: the header declares %dx%d pixels, more than %d bytes of baseline JPEG can hold; the file is cut short or its header is damaged", ErrCorrupt, w, h, len(data))
	}
	lo := libjpeg.BGR
	if order == RGB {
		lo = libjpeg.RGB
	}
	res, err := libjpeg.Decode(data, lo, MaxPixels)
	if err != nil {
		return nil, err
	}
	img := &Image{Width: res.Width, Height: res.Height, Channels: res.Channels, Pix: res.Pix}
	if res.Channels == 4 {
		img = cmykToBGR(img, order)
	}
	if o := exifOrientation(res.APP1); o != 1 {
		img = applyOrientation(img, o)
	}
	return img, nil
}

// A sequential Huffman JPEG (SOF0, SOF1) codes every 8×8 block of its
// full-resolution component with at least two bits (a DC code and an
// end-of-block code, each at least one bit), so w×h pixels need at least
// w×h/256 bytes (a black 4000×4000 grey image with optimised Huffman
// tables, from OpenCV, takes 255 pixels a byte). A header declaring twice
// that is damaged; decoding it would allocate the whole image (up to
// MaxPixels×3 bytes) before libjpeg finds the data missing, so it is
// refused first. Progressive and arithmetic JPEGs have no such bound and
// are left to the decoder.
const (
	pixelsPerByte = 512
	minBytesSlack = 1 << 16
)

// sequentialSize walks the markers of a JPEG up to its frame header and
// returns the declared size when the frame is sequential Huffman.
func sequentialSize(data []byte) (w, h int, ok bool) {
	i := 2
	for i+4 <= len(data) {
		if data[i] != 0xFF {
			return 0, 0, false
		}
		m := data[i+1]
		if m == 0xFF { // fill byte
			i++
			continue
		}
		if m == 0x01 || (m >= 0xD0 && m <= 0xD7) { // no length
			i += 2
			continue
		}
		n := int(data[i+2])<<8 | int(data[i+3])
		if n < 2 {
			return 0, 0, false
		}
		switch m {
		case 0xC0, 0xC1:
			if i+9 > len(data) {
				return 0, 0, false
			}
			h = int(data[i+5])<<8 | int(data[i+6])
			w = int(data[i+7])<<8 | int(data[i+8])
			return w, h, w > 0 && h > 0
		case 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF, 0xDA:
			return 0, 0, false
		}
		i += 2 + n
	}
	return 0, 0, false
}

func sniff(data []byte) string {
	switch {
	case len(data) == 0:
		return "empty file"
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "PNG data"
	case bytes.HasPrefix(data, []byte("GIF8")):
		return "GIF data"
	case bytes.HasPrefix(data, []byte("BM")):
		return "BMP data"
	case len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return "WebP data"
	}
	return "not a JPEG file (no SOI marker)"
}

// cmykToBGR converts libjpeg's 4-channel CMYK output to 3 channels with
// OpenCV's icvCvt_CMYK2BGR_8u_C4C3R arithmetic.
func cmykToBGR(m *Image, order ChannelOrder) *Image {
	out := NewImage(m.Width, m.Height, 3)
	p, q := m.Pix, out.Pix
	for i, j := 0, 0; i+3 < len(p); i, j = i+4, j+3 {
		k := int(p[i+3])
		c := k - ((255 - int(p[i])) * k >> 8)
		mg := k - ((255 - int(p[i+1])) * k >> 8)
		y := k - ((255 - int(p[i+2])) * k >> 8)
		if order == RGB {
			q[j], q[j+1], q[j+2] = uint8(c), uint8(mg), uint8(y)
		} else {
			q[j], q[j+1], q[j+2] = uint8(y), uint8(mg), uint8(c)
		}
	}
	return out
}
