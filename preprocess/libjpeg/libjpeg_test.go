package libjpeg

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readImage(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "images", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDecode(t *testing.T) {
	if !Available() {
		data := readImage(t, "HappyFish.jpg")
		if _, err := Decode(data, BGR, 0); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("without cgo: %v", err)
		}
		t.Skip("built without cgo")
	}
	for _, tc := range []struct {
		name            string
		w, h, cn, comps int
		app1, warning   bool
	}{
		{"HappyFish.jpg", 259, 194, 3, 3, false, false},
		{"left01.jpg", 640, 480, 3, 1, false, false},
		{"fruits_cmyk.jpg", 512, 480, 4, 4, false, false},
		{"fish_exif6.jpg", 259, 194, 3, 3, true, false}, // orientation is applied by the caller
		{"fish_extraneous.jpg", 259, 194, 3, 3, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bgr, err := Decode(readImage(t, tc.name), BGR, 0)
			if err != nil {
				t.Fatal(err)
			}
			if bgr.Width != tc.w || bgr.Height != tc.h || bgr.Channels != tc.cn || bgr.Components != tc.comps ||
				len(bgr.Pix) != tc.w*tc.h*tc.cn {
				t.Fatalf("got %dx%dx%d (%d components, %d bytes)", bgr.Width, bgr.Height, bgr.Channels, bgr.Components, len(bgr.Pix))
			}
			if (bgr.APP1 != nil) != tc.app1 || (tc.app1 && !strings.HasPrefix(string(bgr.APP1), "Exif\x00\x00")) {
				t.Errorf("APP1 %q", bgr.APP1)
			}
			if (bgr.Warning != "") != tc.warning {
				t.Errorf("warning %q", bgr.Warning)
			}
			if tc.cn != 3 {
				return
			}
			rgb, err := Decode(readImage(t, tc.name), RGB, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(bgr.Pix); i += 3 {
				if bgr.Pix[i] != rgb.Pix[i+2] || bgr.Pix[i+1] != rgb.Pix[i+1] || bgr.Pix[i+2] != rgb.Pix[i] {
					t.Fatalf("pixel %d: BGR %v, RGB %v", i/3, bgr.Pix[i:i+3], rgb.Pix[i:i+3])
				}
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	if !Available() {
		t.Skip("built without cgo")
	}
	full := readImage(t, "HappyFish.jpg")
	for _, tc := range []struct {
		name string
		data []byte
		max  int
		want error
	}{
		{"empty", nil, 0, ErrCorrupt},
		{"not jpeg", []byte("GIF89a....."), 0, ErrCorrupt},
		{"header cut", full[:150], 0, ErrCorrupt},
		{"data cut", full[:len(full)/2], 0, ErrCorrupt},
		{"too large", full, 1000, ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.data, BGR, tc.max)
			if !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), "libjpeg: ") {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}
