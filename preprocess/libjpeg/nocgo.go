//go:build !cgo

package libjpeg

// Available reports whether this build can decode JPEG files (false: built
// without cgo).
func Available() bool { return false }

// Decode always fails with ErrUnavailable in builds without cgo.
func Decode(data []byte, order Order, maxPixels int) (*Result, error) {
	return nil, ErrUnavailable
}
