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
	prog, err := os.ReadFile(filepath.Join("testdata", "images", "fruits_prog.jpg"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(damagedSize(prog, 0xC2, 30000, 30000))
	f.Add(damagedSize(prog, 0xC2, 4000, 4000))
	f.Add(damagedSize(prog[:len(prog)/8], 0xC2, 2000, 1500))
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
	f, ok := parseFrame(data)
	w, h := f.width, f.height
	if !ok || f.marker != 0xC0 {
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

// damagedSize returns a copy of data whose marker frame header declares
// w×h pixels.
func damagedSize(data []byte, marker byte, w, h int) []byte {
	bad := append([]byte(nil), data...)
	for i := 2; i+9 < len(bad); i++ {
		if bad[i] == 0xFF && bad[i+1] == marker {
			bad[i+5], bad[i+6], bad[i+7], bad[i+8] = byte(h>>8), byte(h), byte(w>>8), byte(w)
			break
		}
	}
	return bad
}

// A progressive JPEG's first scan codes the DC coefficient of every block
// of its components in at least one bit each: the undamaged files decode,
// and a header that declares more blocks than the file has bits for is
// refused before the image is allocated, naming the arithmetic.
func TestDecodeRefusesImpossibleProgressiveSize(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("built without cgo")
	}
	for _, c := range []struct {
		name     string
		dcBlocks int64
	}{
		// 512×480 4:2:0: 64×60 luma blocks and 32×30 for each chroma.
		{"fruits_prog.jpg", 64*60 + 2*32*30},
		// 640×480 4:4:4: 80×60 blocks for each of three components.
		{"Blender_Suzanne1.jpg", 3 * 80 * 60},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "images", c.name))
		if err != nil {
			t.Fatal(err)
		}
		f, ok := parseFrame(data)
		if !ok || f.marker != 0xC2 || !f.dcFirst || f.dcBlocks != c.dcBlocks {
			t.Fatalf("%s: frame %+v ok=%v, want a progressive frame whose first DC scan has %d blocks", c.name, f, ok, c.dcBlocks)
		}
		img, err := Decode(data, RGB)
		if err != nil || img.Width != f.width || img.Height != f.height {
			t.Fatalf("%s undamaged: %v", c.name, err)
		}
		// 8000×8000 in 4:2:0 needs 1.5 × 1,000,000 blocks: 187,500 bytes.
		bad := damagedSize(data, 0xC2, 8000, 8000)
		if _, err := Decode(bad, RGB); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "8000x8000") || !strings.Contains(err.Error(), "first progressive scan") {
			t.Fatalf("%s declaring 8000x8000: %v", c.name, err)
		}
	}
	// Just below the bound: a header of 640×480 on fruits_prog's 4:2:0
	// data passes the check (the decoder then judges the data).
	data, _ := os.ReadFile(filepath.Join("testdata", "images", "fruits_prog.jpg"))
	if err := checkDeclaredSize(damagedSize(data, 0xC2, 640, 480)); err != nil {
		t.Fatalf("640x480 within the bound refused: %v", err)
	}
	// The same 8000×8000 header on a file cut to its first 3000 bytes,
	// through ReadFile: the error names the file.
	p := filepath.Join(t.TempDir(), "cut.jpg")
	if err := os.WriteFile(p, damagedSize(data[:3000], 0xC2, 8000, 8000), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, BGR); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "re-download") {
		t.Fatalf("ReadFile of a damaged progressive header: %v", err)
	}
}

// A progressive frame whose first scan is not a DC scan (which ITU-T T.81
// forbids) gets the sequential bound instead of none.
func TestDecodeProgressiveACFirstGetsSequentialBound(t *testing.T) {
	// SOI; SOF2 of 30000×30000, one component 1×1; SOS of that component
	// with Ss=1, Se=63 (AC first); EOI.
	b := []byte{0xFF, 0xD8, 0xFF, 0xC2, 0x00, 0x0B, 0x08, 0x75, 0x30, 0x75, 0x30, 0x01, 0x01, 0x11, 0x00,
		0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x01, 0x3F, 0x00, 0xFF, 0xD9}
	f, ok := parseFrame(b)
	if !ok || f.dcFirst {
		t.Fatalf("frame %+v ok=%v, want a progressive frame with an AC first scan", f, ok)
	}
	if err := checkDeclaredSize(b); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "30000x30000") {
		t.Fatalf("AC-first 30000x30000: %v", err)
	}
}
