package badinput

import (
	"testing"

	"github.com/mlperf-go/inference/preprocess"
)

// hardeningCases are the cases added after the first table: progressive
// JPEG headers, paths of the wrong kind, and the commands that serve and
// reach remote models.
func hardeningCases() []badCase {
	return []badCase{
		{name: "jpeg: progressive header declares 30000x30000 in a few bytes", want: "first progressive scan", run: func(t *testing.T) error {
			// SOI; SOF2 of 30000×30000, one component; SOS of its first DC
			// scan; a few bytes of data; EOI.
			b := []byte{0xFF, 0xD8, 0xFF, 0xC2, 0x00, 0x0B, 0x08, 0x75, 0x30, 0x75, 0x30, 0x01, 0x01, 0x11, 0x00,
				0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0xFF, 0xD9}
			_, err := preprocess.Decode(b, preprocess.RGB)
			return err
		}},
	}
}
