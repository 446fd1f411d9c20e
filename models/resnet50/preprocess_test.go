package resnet50

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// The goldens live with the preprocess package; they were produced by the
// reference pre_process_vgg on OpenCV (preprocess/testdata/gen_golden.py).
var goldenDir = filepath.Join("..", "..", "preprocess", "testdata")

func needDecoder(t testing.TB) {
	t.Helper()
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
}

func sumF32(p []float32) string {
	b := make([]byte, 4*len(p))
	for i, v := range p {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestPreprocessMatchesReference: Preprocess equals the reference
// pre_process_vgg(cv2.imread(path), need_transpose=True) bit for bit on
// every golden photo (downscales by 1.5, 2, 3 and fractional ratios,
// enlargements, no resize, portrait, grayscale, CMYK, progressive, EXIF).
func TestPreprocessMatchesReference(t *testing.T) {
	needDecoder(t)
	data, err := os.ReadFile(filepath.Join(goldenDir, "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Images map[string]struct {
			ResNet50 string `json:"resnet50"`
		} `json:"images"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range g.Images {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 10 {
		t.Fatalf("only %d golden images", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			got, err := Preprocess(filepath.Join(goldenDir, "images", name))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != SampleLen {
				t.Fatalf("got %d values, want %d", len(got), SampleLen)
			}
			if s := sumF32(got); s != g.Images[name].ResNet50 {
				t.Errorf("differs from the reference pre_process_vgg (sha256 %s, want %s)", s, g.Images[name].ResNet50)
			}
		})
	}
}

// TestPreprocessFullArrays compares two complete outputs value by value
// with the reference's np.save files, and checks that WriteNpy writes the
// same bytes np.save wrote.
func TestPreprocessFullArrays(t *testing.T) {
	needDecoder(t)
	for _, tc := range []struct{ image, npy string }{
		{"messi5.jpg", "resnet50_messi5.npy"},
		{"fish_exif6.jpg", "resnet50_fish_exif6.npy"},
	} {
		t.Run(tc.image, func(t *testing.T) {
			shape, want, err := preprocess.LoadNpy(filepath.Join(goldenDir, tc.npy))
			if err != nil {
				t.Fatal(err)
			}
			if len(shape) != 3 || shape[0] != 3 || shape[1] != inputSize || shape[2] != inputSize {
				t.Fatalf("golden shape %v", shape)
			}
			got, err := Preprocess(filepath.Join(goldenDir, "images", tc.image))
			if err != nil {
				t.Fatal(err)
			}
			maxDiff, at := 0.0, -1
			for i := range want {
				if d := math.Abs(float64(got[i] - want[i])); d > maxDiff || (at < 0 && got[i] != want[i]) {
					maxDiff, at = d, i
				}
			}
			if at >= 0 {
				t.Errorf("max difference %g at index %d (got %v, want %v)", maxDiff, at, got[at], want[at])
			}
			var buf bytes.Buffer
			if err := preprocess.WriteNpy(&buf, sampleShape, got); err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(filepath.Join(goldenDir, tc.npy))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), file) {
				t.Errorf("WriteNpy output (%d bytes) differs from np.save's file (%d bytes)", buf.Len(), len(file))
			}
		})
	}
}

func TestResizeDims(t *testing.T) {
	for _, tc := range []struct{ w, h, nw, nh int }{
		{500, 375, 341, 256},
		{375, 500, 256, 341},
		{256, 256, 256, 256},
		{512, 512, 256, 256},
		{548, 342, 410, 256}, // 256*548/342 = 410.2
		{259, 194, 341, 256}, // enlarged: 341.77
		{300, 700, 256, 597}, // 597.33
		{1000, 3, 85333, 256},
	} {
		nw, nh := resizeDims(tc.w, tc.h)
		if nw != tc.nw || nh != tc.nh {
			t.Errorf("ResizeDims(%d, %d) = %d, %d; want %d, %d", tc.w, tc.h, nw, nh, tc.nw, tc.nh)
		}
	}
}

func TestPreprocessBadInput(t *testing.T) {
	dir := t.TempDir()
	full, err := os.ReadFile(filepath.Join(goldenDir, "images", "messi5.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"truncated.jpg", full[:len(full)*6/10], preprocess.ErrCorrupt},
		{"header_only.jpg", full[:200], preprocess.ErrCorrupt},
		{"empty.jpg", nil, preprocess.ErrUnsupported},
		{"text.jpg", []byte("hello, not an image\n"), preprocess.ErrUnsupported},
		{"png.jpg", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), preprocess.ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !libjpeg.Available() && tc.want == preprocess.ErrCorrupt {
				t.Skip("built without cgo")
			}
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Preprocess(path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if !bytes.Contains([]byte(err.Error()), []byte(path)) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
	if _, err := Preprocess(filepath.Join(dir, "missing.jpg")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := preprocessImage(make([]float32, 10), preprocess.NewImage(300, 300, 3)); err == nil {
		t.Error("short output buffer accepted")
	}
}

func BenchmarkPreprocess(b *testing.B) {
	needDecoder(b)
	// A typical ImageNet validation image is about 500x375, 4:2:0.
	path := filepath.Join(goldenDir, "images", "messi5.jpg")
	dst := make([]float32, SampleLen)
	b.ReportAllocs()
	for b.Loop() {
		if err := preprocessInto(dst, path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "images/s")
}

func TestWriteCacheAndLoadCached(t *testing.T) {
	needDecoder(t)
	data := t.TempDir()
	if err := imagenet.Synth(data, imagenet.SynthConfig{N: 5, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	ds, err := imagenet.Load(data, imagenet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	calls := 0
	if err := writeCache(context.Background(), ds, cache, 2, func(done, total int) {
		calls++
		if total != 5 || done < 1 || done > 5 {
			t.Errorf("progress(%d, %d)", done, total)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if calls != 5 {
		t.Errorf("progress called %d times", calls)
	}
	got := make([]float32, SampleLen)
	for i := 0; i < ds.Len(); i++ {
		want, err := Preprocess(ds.ImagePath(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := loadCached(got, cachePath(cache, ds.Samples[i].Path)); err != nil {
			t.Fatal(err)
		}
		if sumF32(got) != sumF32(want) {
			t.Errorf("cached sample %d differs from Preprocess", i)
		}
	}
	// A damaged image stops the run with an error naming it.
	bad := filepath.Join(data, ds.Samples[2].Path)
	if err := os.WriteFile(bad, []byte("\xff\xd8\xff\xe0 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = writeCache(context.Background(), ds, t.TempDir(), 2, nil)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(bad)) {
		t.Errorf("damaged image: %v", err)
	}
	// A cached file of the wrong shape is refused.
	wrong := filepath.Join(t.TempDir(), "x.npy")
	if err := preprocess.SaveNpy(wrong, []int{3, 2, 2}, make([]float32, 12)); err != nil {
		t.Fatal(err)
	}
	if err := loadCached(got, wrong); err == nil {
		t.Error("wrong shape accepted")
	}
}

// BenchmarkPreprocessParallel runs the pipeline on all GOMAXPROCS cores
// (images/s summed over them).
func BenchmarkPreprocessParallel(b *testing.B) {
	needDecoder(b)
	path := filepath.Join(goldenDir, "images", "messi5.jpg")
	b.RunParallel(func(pb *testing.PB) {
		dst := make([]float32, SampleLen)
		for pb.Next() {
			if err := preprocessInto(dst, path); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "images/s")
}
