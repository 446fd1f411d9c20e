package retinanet

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// TestPreprocessMatchesOpenCV: Preprocess equals the reference's
// pre_process_openimages_retinanet run by OpenCV 4.6 (Debian
// python3-opencv) bit for bit, on photos that are landscape, portrait,
// grayscale, EXIF-rotated, tiny, CMYK and progressive
// (testdata/make_golden.py wrote the goldens).
func TestPreprocessMatchesOpenCV(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Images map[string]struct {
			SHA256        string  `json:"sha256"`
			Sum           float64 `json:"sum"`
			Width, Height int
		} `json:"images"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Images) < 10 {
		t.Fatalf("%d goldens", len(g.Images))
	}
	names := make([]string, 0, len(g.Images))
	for n := range g.Images {
		names = append(names, n)
	}
	sort.Strings(names)
	buf := make([]byte, 4*sampleLen)
	for _, name := range names {
		want := g.Images[name]
		t.Run(name, func(t *testing.T) {
			x, err := preprocessFile(filepath.Join("..", "..", "preprocess", "testdata", "images", name))
			if err != nil {
				t.Fatal(err)
			}
			var sum float64
			for i, v := range x {
				binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
				sum += float64(v)
			}
			h := sha256.Sum256(buf)
			if got := hex.EncodeToString(h[:]); got != want.SHA256 {
				t.Errorf("differs from OpenCV: sum %.6f, OpenCV's %.6f", sum, want.Sum)
			}
		})
	}
}
