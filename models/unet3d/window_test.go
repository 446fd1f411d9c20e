package unet3d

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/datasets/kits19"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess"
)

type windowGolden struct {
	MapSHA256    string `json:"map_sha256"`
	MapMaxIndex  []int  `json:"map_max_index"`
	LabelsShape  []int  `json:"labels_shape"`
	LabelsSHA256 string `json:"labels_sha256"`
	LabelsCounts []int  `json:"labels_counts"`
}

func loadWindowGolden(t *testing.T) windowGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g windowGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func sha(v any) string {
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, v)
	return hex.EncodeToString(h.Sum(nil))
}

// TestImportanceMapEqualsScipy compares the map with the reference's
// gaussian_kernel computed by scipy (testdata/make_golden.py): every
// float32 bit (SHA-256), a sample of values, and the documented corner and
// face-centre values.
func TestImportanceMapEqualsScipy(t *testing.T) {
	g := loadWindowGolden(t)
	m := importanceMap()
	if s := sha(m); s != g.MapSHA256 {
		t.Errorf("map SHA-256 %s, scipy's %s", s, g.MapSHA256)
	}
	shape, sample, err := preprocess.LoadNpy("testdata/importance.npy")
	if err != nil {
		t.Fatal(err)
	}
	o := 0
	for i := 0; i < window; i += 9 {
		for j := 0; j < window; j += 9 {
			for k := 0; k < window; k += 9 {
				if got := m[(i*window+j)*window+k]; got != sample[o] {
					t.Fatalf("map[%d,%d,%d] = %v, scipy %v (sample shape %v)", i, j, k, got, sample[o], shape)
				}
				o++
			}
		}
	}
	at := func(i, j, k int) float32 { return m[(i*window+j)*window+k] }
	if at(63, 63, 63) != 1 || at(64, 64, 64) != 1 {
		t.Errorf("centre values %v, %v; want 1", at(63, 63, 63), at(64, 64, 64))
	}
	if math.Abs(float64(at(0, 0, 0))-0.00038012897) > 1e-10 || math.Abs(float64(at(0, 63, 63))-0.07243976) > 1e-8 {
		t.Errorf("corner %v, face centre %v; want 0.00038012897 and 0.07243976", at(0, 0, 0), at(0, 63, 63))
	}
}

// fakeLogits is testdata/make_golden.py's fake model output of window w.
func fakeLogits(w int) []float32 {
	out := make([]float32, classes*windowVoxels)
	for c := range classes {
		for v := range windowVoxels {
			out[c*windowVoxels+v] = float32((w*7+c*37+v*13)%101)/50 - 1
		}
	}
	return out
}

// TestSlidingWindowEqualsNumpy runs the accumulation over a 192×128×192
// volume (four windows) with fake logits and compares the labels with the
// reference's numpy code.
func TestSlidingWindowEqualsNumpy(t *testing.T) {
	g := loadWindowGolden(t)
	shape := [3]int{g.LabelsShape[0], g.LabelsShape[1], g.LabelsShape[2]}
	wins, err := windows(shape)
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]int{{0, 0, 0}, {0, 0, 64}, {64, 0, 0}, {64, 0, 64}}
	if !slices.Equal(wins, want) {
		t.Fatalf("windows %v, want %v", wins, want)
	}
	acc := newAccumulator(shape)
	for w, c := range wins {
		acc.Add(fakeLogits(w), c)
	}
	l := acc.Labels()
	var counts [3]int
	for _, v := range l {
		counts[v]++
	}
	if s := sha(l); s != g.LabelsSHA256 {
		t.Errorf("labels SHA-256 %s, numpy's %s (counts %v, numpy %v)", s, g.LabelsSHA256, counts, g.LabelsCounts)
	}
}

// TestWindowsDirect checks the window arithmetic against a direct
// re-computation per voxel: the sum, in window order, of logit × map over
// the windows that cover the voxel, over the sum of the map, argmaxed.
func TestWindowsDirect(t *testing.T) {
	shape := [3]int{128, 192, 192}
	wins, err := windows(shape)
	if err != nil {
		t.Fatal(err)
	}
	if len(wins) != 1*2*2 {
		t.Fatalf("%d windows over %v, want 4", len(wins), shape)
	}
	acc := newAccumulator(shape)
	logits := make([][]float32, len(wins))
	for w, c := range wins {
		logits[w] = fakeLogits(w + 3)
		acc.Add(logits[w], c)
	}
	got := acc.Labels()
	m := importanceMap()
	for _, p := range [][3]int{{0, 0, 0}, {5, 70, 130}, {127, 191, 191}, {64, 64, 64}, {100, 127, 63}, {17, 128, 100}} {
		var r [classes]float32
		var n float32
		for w, c := range wins {
			d := [3]int{p[0] - c[0], p[1] - c[1], p[2] - c[2]}
			if d[0] < 0 || d[1] < 0 || d[2] < 0 || d[0] >= window || d[1] >= window || d[2] >= window {
				continue
			}
			v := (d[0]*window+d[1])*window + d[2]
			for cl := range classes {
				r[cl] += float32(logits[w][cl*windowVoxels+v] * m[v])
			}
			n += m[v]
		}
		best := 0
		for cl := 1; cl < classes; cl++ {
			if r[cl]/n > r[best]/n {
				best = cl
			}
		}
		if g := got[(p[0]*shape[1]+p[1])*shape[2]+p[2]]; int(g) != best {
			t.Errorf("voxel %v: label %d, direct %d", p, g, best)
		}
	}
	for _, bad := range [][3]int{{64, 128, 128}, {128, 130, 128}, {0, 128, 128}} {
		if _, err := windows(bad); err == nil {
			t.Errorf("Windows(%v) accepted a shape the window cannot tile", bad)
		}
	}
}

// fakeSession is a 3D-UNet-shaped engine in Go: logit c of a voxel is
// the input voxel times (c − 1), so a window given the wrong input or put
// back at the wrong place changes the labels.
type fakeSession struct {
	batch int64 // fixed batch, or -1
	// numbered: logits are fakeLogits(w) of make_golden.py, w read from
	// the window's first voxel.
	numbered bool
	mu       sync.Mutex
	calls    []int
}

func (f *fakeSession) Inputs() []backend.Info {
	return []backend.Info{{Name: inputName, DType: backend.Float32, Shape: []int64{f.batch, 1, window, window, window}}}
}
func (f *fakeSession) Outputs() []backend.Info {
	return []backend.Info{{Name: outputName, DType: backend.Float32, Shape: []int64{f.batch, classes, window, window, window}}}
}
func (f *fakeSession) Close() error { return nil }
func (f *fakeSession) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	x := in[0].Data.([]float32)
	n := int(in[0].Shape[0])
	if len(x) != n*windowVoxels || (f.batch > 0 && int64(n) != f.batch) {
		return nil, fmt.Errorf("fake: input of %d values for batch %d", len(x), n)
	}
	f.mu.Lock()
	f.calls = append(f.calls, n)
	f.mu.Unlock()
	y := make([]float32, n*classes*windowVoxels)
	for b := range n {
		if f.numbered {
			copy(y[b*classes*windowVoxels:], fakeLogits(int(x[b*windowVoxels])))
			continue
		}
		for c := range classes {
			for v := range windowVoxels {
				y[(b*classes+c)*windowVoxels+v] = x[b*windowVoxels+v] * float32(c-1)
			}
		}
	}
	return []backend.Tensor{{Name: outputName, DType: backend.Float32, Shape: []int64{int64(n), classes, window, window, window}, Data: y}}, nil
}

// TestSegmentBatches runs Segment over make_golden.py's 192×128×192
// volume with several window batches and a fixed-batch model whose logits
// are make_golden.py's fake_logits of each window (the window's number is
// in its first voxel), and compares the labels with numpy's.
func TestSegmentBatches(t *testing.T) {
	g := loadWindowGolden(t)
	shape := [3]int{g.LabelsShape[0], g.LabelsShape[1], g.LabelsShape[2]}
	vol := kits19.Volume[float32]{Shape: shape, Data: make([]float32, shape[0]*shape[1]*shape[2])}
	for w, c := range [][3]int{{0, 0, 0}, {0, 0, 64}, {64, 0, 0}, {64, 0, 64}} {
		vol.Data[(c[0]*shape[1]+c[1])*shape[2]+c[2]] = float32(w)
	}
	for _, tc := range []struct {
		fixed int64
		batch int
		calls []int
	}{{-1, 3, []int{3, 1}}, {2, 1, []int{2, 2}}, {-1, 4, []int{4}}} {
		f := &fakeSession{batch: tc.fixed, numbered: true}
		m, err := New(f, func(loadgen.SampleIndex) (kits19.Volume[float32], bool) { return vol, true }, tc.batch)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Segment(context.Background(), vol)
		if err != nil {
			t.Fatal(err)
		}
		if s := sha(got); s != g.LabelsSHA256 {
			t.Errorf("fixed %d, batch %d: labels SHA-256 %s, numpy's %s", tc.fixed, tc.batch, s, g.LabelsSHA256)
		}
		if !slices.Equal(f.calls, tc.calls) {
			t.Errorf("fixed %d, batch %d: engine batches %v, want %v", tc.fixed, tc.batch, f.calls, tc.calls)
		}
	}
}

// TestLabelsArgmaxTiesAndNaN: the first of equal classes wins, a NaN counts
// as the largest (the first NaN), and all-negative logits still pick the
// largest, as numpy's argmax does (np.argmax over the same rows gives
// 0 1 1 0 2 2 1).
func TestLabelsArgmaxTiesAndNaN(t *testing.T) {
	nan := float32(math.NaN())
	rows := [][classes]float32{{.5, .5, .5}, {0, 1, 1}, {1, nan, 2}, {nan, nan, 0}, {0, 1, nan}, {-1, -2, -.5}, {-2, -1, -3}}
	want := []uint8{0, 1, 1, 0, 2, 2, 1}
	acc := newAccumulator([3]int{window, window, window})
	logits := make([]float32, classes*windowVoxels)
	for v, r := range rows {
		for c := range classes {
			logits[c*windowVoxels+v] = r[c]
		}
	}
	acc.Add(logits, [3]int{})
	got := acc.Labels()[:len(rows)]
	if !slices.Equal(got, want) {
		t.Errorf("labels %v, want numpy's %v", got, want)
	}
}

// BenchmarkWindowHarness is the harness's own work per 128³ window
// (extraction of the input, accumulation of the weighted logits) and per
// 128³ case (plus the division and argmax), to set against the engine's
// time per window (BenchmarkWindow).
func BenchmarkWindowHarness(b *testing.B) {
	shape := [3]int{window, window, window}
	vol := make([]float32, windowVoxels)
	buf := make([]float32, windowVoxels)
	logits := fakeLogits(1)
	b.Run("extract+accumulate", func(b *testing.B) {
		acc := newAccumulator(shape)
		for range b.N {
			extract(buf, vol, shape, [3]int{})
			acc.Add(logits, [3]int{})
		}
	})
	b.Run("labels", func(b *testing.B) {
		acc := newAccumulator(shape)
		acc.Add(logits, [3]int{})
		for range b.N {
			acc.Labels()
		}
	})
}

// TestWindowCorners: the sliding window's corners are every multiple of
// the stride (64) from 0 to size − 128 on each axis, in C order, as the
// reference's loops (mlcommons/inference
// vision/medical_imaging/3d-unet-kits19/inference_utils.py
// sliding_window_inference) visit them; an axis under 128 or not a
// multiple of 64 is refused.
func TestWindowCorners(t *testing.T) {
	got, err := windows([3]int{192, 128, 256})
	want := [][3]int{{0, 0, 0}, {0, 0, 64}, {0, 0, 128}, {64, 0, 0}, {64, 0, 64}, {64, 0, 128}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("corners over [192 128 256]: %v, %v; want %v", got, err, want)
	}
	got, err = windows([3]int{128, 192, 128})
	if want := [][3]int{{0, 0, 0}, {0, 64, 0}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("corners over [128 192 128]: %v, %v; want %v", got, err, want)
	}
	for _, shape := range [][3]int{{64, 128, 128}, {128, 160, 128}, {128, 128, 129}} {
		if _, err := windows(shape); err == nil || !strings.Contains(err.Error(), "each axis must be a multiple of 64 and at least 128") {
			t.Errorf("corners over %v: %v", shape, err)
		}
	}
}
