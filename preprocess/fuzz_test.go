package preprocess

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// A baseline JPEG whose header declares more pixels than its bytes can
// code is refused before the image is allocated; the same file with its
// true size decodes.
func TestDecodeRefusesImpossibleSize(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("built without cgo")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "images", "fruits_tiny.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	w, h, ok := sequentialSize(data)
	if !ok {
		t.Fatal("fruits_tiny.jpg: no baseline frame header found")
	}
	img, err := Decode(data, RGB)
	if err != nil || img.Width != w || img.Height != h {
		t.Fatalf("undamaged: %v, %dx%d vs header %dx%d", err, img.Width, img.Height, w, h)
	}
	bad := append([]byte(nil), data...)
	for i := 2; i+9 < len(bad); i++ {
		if bad[i] == 0xFF && (bad[i+1] == 0xC0 || bad[i+1] == 0xC1) {
			bad[i+5], bad[i+6], bad[i+7], bad[i+8] = 0x75, 0x30, 0x75, 0x30 // 30000×30000
			break
		}
	}
	if _, err := Decode(bad, RGB); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "30000x30000") {
		t.Fatalf("damaged size: %v", err)
	}
}
