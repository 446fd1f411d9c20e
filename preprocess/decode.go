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
	if err := checkDeclaredSize(data); err != nil {
		return nil, err
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
// refused first.
//
// A progressive Huffman JPEG (SOF2) has a weaker bound, from its first
// scan: ITU-T T.81 (G.1.1.1.1) requires the DC coefficients to be sent
// before any AC coefficient, and the first DC scan codes every block of
// each of its components with a Huffman code of at least one bit. So the
// file holds at least that many bits (for one full-resolution component,
// w×h/512 bytes); one that does not is cut short or has a damaged header,
// and libjpeg would only find that after allocating the whole image and a
// coefficient buffer of two bytes per pixel and component. A progressive
// file whose first scan is not a DC scan breaks T.81 and gets the
// sequential bound. Arithmetic-coded frames (SOF9 to SOF11) can code a
// block in well under a bit and are left to the decoder and MaxPixels.
const (
	pixelsPerByte = 512
	minBytesSlack = 1 << 16
)

// checkDeclaredSize refuses a JPEG whose frame header declares more pixels
// than its bytes can code (see the bounds above). Files it cannot parse
// are left to the decoder, which reports them.
func checkDeclaredSize(data []byte) error {
	f, ok := parseFrame(data)
	if !ok {
		return nil
	}
	pixels := int64(f.width) * int64(f.height)
	switch {
	case f.marker == 0xC0 || f.marker == 0xC1 || (f.marker == 0xC2 && !f.dcFirst):
		if pixels > minBytesSlack+pixelsPerByte*int64(len(data)) {
			return fmt.Errorf("%w: the header declares %dx%d pixels, more than %d bytes of %s JPEG can hold; the file is cut short or its header is damaged: re-download or re-create it", ErrCorrupt, f.width, f.height, len(data), f.kind())
		}
	case f.marker == 0xC2:
		if need := (f.dcBlocks + 7) / 8; need > int64(len(data)) {
			return fmt.Errorf("%w: the header declares %dx%d pixels, whose first progressive scan (the DC coefficients of %d blocks, at least one bit each) needs at least %d bytes, and the file has %d; the file is cut short or its header is damaged: re-download or re-create it", ErrCorrupt, f.width, f.height, f.dcBlocks, need, len(data))
		}
	}
	return nil
}

// frame is what checkDeclaredSize needs of a JPEG's frame header and first
// scan header.
type frame struct {
	marker        byte // SOFn marker code
	width, height int
	// dcFirst reports that the first scan is a first DC scan (Ss = 0,
	// Ah = 0); dcBlocks is then the number of blocks it codes, counted
	// per component as ceil(component width/8) × ceil(component height/8)
	// (an interleaved scan codes at least that many, with MCU padding).
	dcFirst  bool
	dcBlocks int64
}

func (f frame) kind() string {
	if f.marker == 0xC2 {
		return "progressive"
	}
	return "baseline"
}

type frameComponent struct {
	id   byte
	h, v int
}

// parseFrame walks the markers of a JPEG to its frame header and, for a
// progressive frame, on to its first scan header. ok is false when the
// data has no frame header it can read (the decoder then reports the
// problem).
func parseFrame(data []byte) (f frame, ok bool) {
	var comps []frameComponent
	hmax, vmax := 1, 1
	i := 2
	for i+4 <= len(data) {
		if data[i] != 0xFF {
			return f, false
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
		if n < 2 || i+2+n > len(data) {
			return f, false
		}
		seg := data[i+4 : i+2+n]
		switch m {
		case 0xC0, 0xC1, 0xC2:
			if f.marker != 0 || len(seg) < 6 {
				return f, false
			}
			f.marker = m
			f.height = int(seg[1])<<8 | int(seg[2])
			f.width = int(seg[3])<<8 | int(seg[4])
			nc := int(seg[5])
			if f.width == 0 || f.height == 0 || nc == 0 || len(seg) < 6+3*nc {
				return f, false
			}
			if m != 0xC2 {
				return f, true
			}
			for k := 0; k < nc; k++ {
				c := frameComponent{id: seg[6+3*k], h: int(seg[7+3*k] >> 4), v: int(seg[7+3*k] & 15)}
				if c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 {
					return f, false
				}
				hmax, vmax = max(hmax, c.h), max(vmax, c.v)
				comps = append(comps, c)
			}
		case 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF:
			return f, false
		case 0xDA:
			if f.marker != 0xC2 || len(seg) < 1 {
				return f, false
			}
			ns := int(seg[0])
			if ns == 0 || len(seg) < 1+2*ns+3 {
				return f, false
			}
			ss, ah := seg[1+2*ns], seg[3+2*ns]>>4
			if ss != 0 || ah != 0 {
				return f, true // not a first DC scan
			}
			for k := 0; k < ns; k++ {
				id := seg[1+2*k]
				for _, c := range comps {
					if c.id == id {
						cw := (int64(f.width)*int64(c.h) + int64(hmax) - 1) / int64(hmax)
						ch := (int64(f.height)*int64(c.v) + int64(vmax) - 1) / int64(vmax)
						f.dcBlocks += ((cw + 7) / 8) * ((ch + 7) / 8)
						break
					}
				}
			}
			f.dcFirst = f.dcBlocks > 0
			return f, true
		}
		i += 2 + n
	}
	return f, f.marker == 0xC0 || f.marker == 0xC1
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
