package preprocess

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// golden mirrors testdata/golden.json, written by testdata/gen_golden.py
// with OpenCV.
type golden struct {
	OpenCV string `json:"opencv"`
	Images map[string]struct {
		Width     int    `json:"width"`
		Height    int    `json:"height"`
		ImreadBGR string `json:"imread_bgr"`
		ResNet50  string `json:"resnet50"`
		RetinaNet string `json:"retinanet"`
	} `json:"images"`
	Resize []struct {
		Src    string `json:"src"`
		W      int    `json:"w"`
		H      int    `json:"h"`
		Area   string `json:"area"`
		Linear string `json:"linear"`
	} `json:"resize"`
	SweepSrc  string `json:"sweep_src"`
	SweepArea []struct {
		W, H, DW, DH int
		Area         string `json:"area"`
	} `json:"sweep_area"`
	SweepLinearF32 []struct {
		W, H, DW, DH int
		Linear       string `json:"linear"`
	} `json:"sweep_linear_f32"`
	ResizeF32 []struct {
		Src    string `json:"src"`
		W      int    `json:"w"`
		H      int    `json:"h"`
		Linear string `json:"linear"`
	} `json:"resize_f32"`
}

func loadGolden(t testing.TB) *golden {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func needDecoder(t testing.TB) {
	t.Helper()
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
}

func sumU8(p []uint8) string {
	s := sha256.Sum256(p)
	return hex.EncodeToString(s[:])
}

func sumF32(p []float32) string {
	b := make([]byte, 4*len(p))
	for i, v := range p {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

var (
	decodedMu sync.Mutex
	decoded   = map[string]*Image{}
)

// source returns a golden source image: a decoded photo (BGR) or a raw
// uint8 array from testdata/resize named rand<i>_<w>x<h>x<cn>.bin.
func source(t testing.TB, name string) *Image {
	t.Helper()
	decodedMu.Lock()
	defer decodedMu.Unlock()
	if m, ok := decoded[name]; ok {
		return m
	}
	var m *Image
	if filepath.Dir(name) == "resize" {
		var i, w, h, cn int
		if _, err := fmt.Sscanf(filepath.Base(name), "rand%d_%dx%dx%d.bin", &i, &w, &h, &cn); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pix, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		m = &Image{Width: w, Height: h, Channels: cn, Pix: pix}
	} else {
		needDecoder(t)
		var err error
		m, err = ReadFile(filepath.Join("testdata", "images", name), BGR)
		if err != nil {
			t.Fatal(err)
		}
	}
	decoded[name] = m
	return m
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TestDecodeMatchesImread: every pixel of every golden photo equals
// cv2.imread's (max difference 0), for baseline, progressive, restart
// markers, 4:2:0, 4:2:2, 4:4:4, grayscale, CMYK and all EXIF orientations.
func TestDecodeMatchesImread(t *testing.T) {
	needDecoder(t)
	g := loadGolden(t)
	for _, name := range sortedNames(g.Images) {
		want := g.Images[name]
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "images", name)
			bgr, err := ReadFile(path, BGR)
			if err != nil {
				t.Fatal(err)
			}
			if bgr.Width != want.Width || bgr.Height != want.Height || bgr.Channels != 3 {
				t.Fatalf("got %dx%dx%d, cv2.imread gives %dx%dx3", bgr.Width, bgr.Height, bgr.Channels, want.Width, want.Height)
			}
			if got := sumU8(bgr.Pix); got != want.ImreadBGR {
				t.Errorf("BGR pixels differ from cv2.imread (sha256 %s, want %s)", got, want.ImreadBGR)
			}
			rgb, err := ReadFile(path, RGB)
			if err != nil {
				t.Fatal(err)
			}
			rgb.SwapRB()
			if got := sumU8(rgb.Pix); got != want.ImreadBGR {
				t.Errorf("RGB decode is not the channel swap of the BGR decode")
			}
		})
	}
}

// TestResizeMatchesOpenCV: cv2.resize with INTER_AREA and INTER_LINEAR on
// uint8 images, over downscales (integral 2x, 3x, 4x, 2x1 and fractional),
// upscales, mixed, 1-pixel outputs and 1..4 channels.
func TestResizeMatchesOpenCV(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Resize {
		t.Run(fmt.Sprintf("%s_%dx%d", c.Src, c.W, c.H), func(t *testing.T) {
			src := source(t, c.Src)
			area, err := ResizeArea(src, c.W, c.H)
			if err != nil {
				t.Fatal(err)
			}
			if got := sumU8(area.Pix); got != c.Area {
				t.Errorf("INTER_AREA %dx%d -> %dx%d differs from OpenCV", src.Width, src.Height, c.W, c.H)
			}
			lin, err := ResizeLinear(src, c.W, c.H)
			if err != nil {
				t.Fatal(err)
			}
			if got := sumU8(lin.Pix); got != c.Linear {
				t.Errorf("INTER_LINEAR %dx%d -> %dx%d differs from OpenCV", src.Width, src.Height, c.W, c.H)
			}
		})
	}
}

// TestResizeF32MatchesOpenCV: cv2.resize INTER_LINEAR on float32 images.
func TestResizeF32MatchesOpenCV(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.ResizeF32 {
		t.Run(fmt.Sprintf("%s_%dx%d", c.Src, c.W, c.H), func(t *testing.T) {
			src := source(t, c.Src).ToF32()
			out, err := ResizeLinearF32(src, c.W, c.H)
			if err != nil {
				t.Fatal(err)
			}
			if got := sumF32(out.Pix); got != c.Linear {
				t.Errorf("float INTER_LINEAR %dx%d -> %dx%d differs from OpenCV", src.Width, src.Height, c.W, c.H)
			}
		})
	}
}

// TestRetinaNetPipelineMatchesReference composes the float path as the
// RetinaNet reference does (pre_process_openimages_retinanet): float32,
// BGR->RGB, INTER_LINEAR to 800x800, /255, CHW.
func TestRetinaNetPipelineMatchesReference(t *testing.T) {
	needDecoder(t)
	g := loadGolden(t)
	n := 0
	for _, name := range sortedNames(g.Images) {
		want := g.Images[name].RetinaNet
		if want == "" {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			img := source(t, name).ToF32()
			img.SwapRB()
			r, err := ResizeLinearF32(img, 800, 800)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]float32, 3*800*800)
			if err := r.DivCHWInto(out, 255); err != nil {
				t.Fatal(err)
			}
			if got := sumF32(out); got != want {
				t.Errorf("RetinaNet input differs from the reference")
			}
		})
	}
	if n == 0 {
		t.Fatal("no RetinaNet goldens")
	}
}

// TestResizeSweeps: the ResNet50 resize (INTER_AREA to the short-side-256
// size) and the RetinaNet one (float INTER_LINEAR to 800x800) from 175
// source sizes, cut from a decoded photo.
func TestResizeSweeps(t *testing.T) {
	needDecoder(t)
	g := loadGolden(t)
	photo := source(t, g.SweepSrc)
	if len(g.SweepArea) < 100 || len(g.SweepLinearF32) < 10 {
		t.Fatal("sweeps missing from golden.json")
	}
	for _, c := range g.SweepArea {
		src, err := Crop(photo, 0, 0, c.W, c.H)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ResizeArea(src, c.DW, c.DH)
		if err != nil {
			t.Fatal(err)
		}
		if sumU8(out.Pix) != c.Area {
			t.Errorf("INTER_AREA %dx%d -> %dx%d differs from OpenCV", c.W, c.H, c.DW, c.DH)
		}
	}
	for _, c := range g.SweepLinearF32 {
		src, err := Crop(photo, 0, 0, c.W, c.H)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ResizeLinearF32(src.ToF32(), c.DW, c.DH)
		if err != nil {
			t.Fatal(err)
		}
		if sumF32(out.Pix) != c.Linear {
			t.Errorf("float INTER_LINEAR %dx%d -> %dx%d differs from OpenCV", c.W, c.H, c.DW, c.DH)
		}
	}
}
