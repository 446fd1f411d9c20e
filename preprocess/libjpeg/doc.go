// Package libjpeg decodes JPEG files with the system libjpeg-turbo (through
// its libjpeg API, cgo), configured exactly as OpenCV's cv2.imread
// (IMREAD_COLOR) configures it: default accurate integer IDCT (JDCT_ISLOW),
// fancy (triangle-filter) chroma upsampling, 3-component output in BGR
// order, and 4-component (CMYK/YCCK) files decoded to CMYK.
//
// Why a binding and not a pure-Go decoder: the MLPerf reference decodes
// with cv2.imread, i.e. with libjpeg-turbo itself. Calling the same library
// with the same settings gives bit-identical pixels by construction, for
// every JPEG variant (baseline, progressive, arithmetic, restart markers,
// odd sampling factors, CMYK), at libjpeg-turbo's SIMD speed. A Go
// reimplementation would have to reproduce jidctint.c, jdsample.c and
// jdcolor.c (and their SIMD twins) bit for bit and would still be slower.
// Go's image/jpeg is not an option: it differs by tens of LSB on
// chroma-subsampled photos.
//
// This is the only cgo package of preprocess/. Built without cgo
// (CGO_ENABLED=0) it compiles to a stub whose Decode returns
// ErrUnavailable, so everything above it still builds. The C library comes
// from Debian's libjpeg62-turbo-dev (scripts/setup.d/15-libjpeg-turbo.sh).
//
// Damaged data: libjpeg-turbo reports corrupt entropy-coded data and
// truncated files only as warnings and fills the rest of the image in;
// OpenCV returns that image. Decode instead fails with ErrCorrupt (file
// cut short, premature end of a data segment, bad Huffman or arithmetic
// code, lost restart marker), so a damaged file is never scored silently.
// Warnings that leave the pixels well defined (extraneous bytes before a
// marker, unknown JFIF revision, unknown Adobe transform, inconsistent
// progression, non-sequential scan parameters) are tolerated and reported
// in Result.Warning; the pixels are then those OpenCV returns.
package libjpeg

import "errors"

// Order is the channel order of 3-component output.
type Order int

const (
	// BGR is OpenCV's order (what cv2.imread returns).
	BGR Order = iota
	// RGB swaps the first and third channels.
	RGB
)

// Result is a decoded image.
type Result struct {
	Width, Height int
	// Channels is 3 (in the requested Order) or 4 (CMYK as stored in the
	// file, for 4-component JPEGs; Adobe inverted CMYK is not undone, as in
	// OpenCV).
	Channels int
	// Components is the number of components in the file (1, 3 or 4).
	Components int
	// Pix holds Height rows of Width*Channels bytes. The caller owns it.
	Pix []byte
	// APP1 is a copy of the payload of the first APP1 marker (EXIF or XMP),
	// nil if the file has none.
	APP1 []byte
	// Warning is the text of the first tolerated libjpeg warning, if any.
	Warning string
}

var (
	// ErrUnavailable is returned by Decode in builds without cgo.
	ErrUnavailable = errors.New("libjpeg: JPEG decoding needs cgo and libjpeg-turbo; build with CGO_ENABLED=1 after `make setup` (Debian package libjpeg62-turbo-dev)")
	// ErrCorrupt wraps every error caused by the file's content.
	ErrCorrupt = errors.New("corrupt or truncated JPEG")
	// ErrTooLarge is returned when the image exceeds the pixel limit.
	ErrTooLarge = errors.New("image too large")
)
