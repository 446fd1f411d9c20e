package preprocess

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// FuzzExifOrientation: any APP1 payload gives an orientation in 1..8 and
// never panics.
func FuzzExifOrientation(f *testing.F) {
	f.Add([]byte("Exif\x00\x00II*\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x06\x00\x00\x00"))
	f.Add([]byte("Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x03\x00\x00"))
	f.Add([]byte("Exif\x00\x00II*\x00\xff\xff\xff\xff"))
	f.Add([]byte("http://ns.adobe.com/xap/1.0/\x00"))
	f.Fuzz(func(t *testing.T, app1 []byte) {
		if o := exifOrientation(app1); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}

// FuzzDecode: damaged JPEG data gives an image or an error, never a panic
// or a crash in libjpeg.
func FuzzDecode(f *testing.F) {
	if !libjpeg.Available() {
		f.Skip("built without cgo")
	}
	for _, name := range []string{"HappyFish.jpg", "fish_exif6.jpg", "fruits_tiny.jpg"} {
		data, err := os.ReadFile(filepath.Join("testdata", "images", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
		bad := append([]byte(nil), data...)
		for i := len(bad) / 3; i < len(bad)/3+40 && i < len(bad); i++ {
			bad[i] ^= 0x5a
		}
		f.Add(bad)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := Decode(data, BGR)
		if err == nil && (img.Channels != 3 || len(img.Pix) != img.Width*img.Height*3) {
			t.Fatalf("bad image %dx%dx%d with %d bytes", img.Width, img.Height, img.Channels, len(img.Pix))
		}
	})
}
