package logmel

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/preprocess/audio"
)

// The goldens in testdata come from gen_golden.py (see make_testdata.sh):
// whisper.audio.log_mel_spectrogram reproduced with Debian's PyTorch 1.13
// (the reference's float32 computation) and the same maths in float64
// NumPy (a tighter oracle), on an espeak-ng clip and integer signals.

type goldenCase struct {
	Samples    int     `json:"samples"`
	Frames     []int   `json:"frames"`
	TorchMax   float64 `json:"torch_max"`
	TorchMin   float64 `json:"torch_min"`
	TorchMean  float64 `json:"torch_mean"`
	FloorCount int     `json:"torch_floor_count"`
	TorchVsF64 float64 `json:"max_abs_torch_minus_f64"`
}

// lcg is gen_golden.py's integer signal.
func lcg(n int) []float32 {
	out := make([]float32, n)
	for i := range int64(n) {
		s := (i*7919+i*i*31+(i>>7)*104729)%65536 - 32768
		s = floorDiv(s*(i%16000), 16000)
		out[i] = float32(s) / 32768
	}
	return out
}

// floorDiv is Python's // on integers.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func speech(t testing.TB) []float32 {
	t.Helper()
	w, err := audio.LoadWaveform("testdata/speech.flac", audio.LoadConfig{Rate: SampleRate})
	if err != nil {
		t.Fatal(err)
	}
	return w.Samples
}

func inputs(t testing.TB) map[string][]float32 {
	s := speech(t)
	return map[string][]float32{
		"speech":  s,
		"silence": make([]float32, 16000),
		"short":   s[4000:4800],
		"noise30": lcg(480000),
		"over30":  lcg(500000),
		"near30":  lcg(479900),
	}
}

func loadNpy(t *testing.T, name string) ([]int, []float32) {
	t.Helper()
	shape, v, err := preprocess.LoadNpy(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return shape, v
}

// TestMatchesWhisperLogMel compares every case with PyTorch's float32
// whisper.audio.log_mel_spectrogram (to the float32 noise the generator
// measured between PyTorch and float64, plus a margin) and with the
// float64 computation (to 3e-7, a few float32 ulps), on the saved frames (the first, the last,
// around the end of the audio); and the whole spectrogram's max, min,
// mean and floor count with PyTorch's.
func TestMatchesWhisperLogMel(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]goldenCase
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	e, err := New(128)
	if err != nil {
		t.Fatal(err)
	}
	in := inputs(t)
	if len(golden) != len(in) {
		t.Fatalf("golden has %d cases, the test %d", len(golden), len(in))
	}
	for name, g := range golden {
		t.Run(name, func(t *testing.T) {
			a := in[name]
			if len(a) != g.Samples {
				t.Fatalf("%d samples, the generator had %d", len(a), g.Samples)
			}
			out := make([]float32, e.Size())
			if err := e.Compute(out, a); err != nil {
				t.Fatal(err)
			}
			for _, ref := range []struct {
				file string
				tol  float64
			}{{name + "_torch.npy", g.TorchVsF64 + 1e-5}, {name + "_f64.npy", 3e-7}} {
				shape, want := loadNpy(t, ref.file)
				if shape[0] != 128 || shape[1] != len(g.Frames) {
					t.Fatalf("%s: shape %v", ref.file, shape)
				}
				worst, at := 0.0, ""
				for m := range 128 {
					for j, f := range g.Frames {
						d := math.Abs(float64(out[m*NFrames+f]) - float64(want[m*len(g.Frames)+j]))
						if d > worst {
							worst, at = d, fmt.Sprintf("mel %d frame %d: %v, want %v", m, f, out[m*NFrames+f], want[m*len(g.Frames)+j])
						}
					}
				}
				if worst > ref.tol {
					t.Errorf("%s: max difference %.3g > %.3g (%s)", ref.file, worst, ref.tol, at)
				}
			}
			mx, mn, sum := math.Inf(-1), math.Inf(1), 0.0
			for _, v := range out {
				mx, mn, sum = max(mx, float64(v)), min(mn, float64(v)), sum+float64(v)
			}
			floor := 0
			for _, v := range out {
				if float64(v) == mn {
					floor++
				}
			}
			tol := g.TorchVsF64 + 1e-5
			if math.Abs(mx-g.TorchMax) > tol || math.Abs(mn-g.TorchMin) > tol || math.Abs(sum/float64(len(out))-g.TorchMean) > 1e-6 {
				t.Errorf("max %v min %v mean %v; PyTorch %v %v %v", mx, mn, sum/float64(len(out)), g.TorchMax, g.TorchMin, g.TorchMean)
			}
			if d := floor - g.FloorCount; d < -len(out)/1000 || d > len(out)/1000 {
				t.Errorf("%d values at the floor, PyTorch %d", floor, g.FloorCount)
			}
		})
	}
}

// TestFiltersEqualWhisperMelFilters: the Slaney filter bank computed here
// is whisper's mel_filters.npz (librosa's) to one float32 rounding, for
// 80 and 128 bins.
func TestFiltersEqualWhisperMelFilters(t *testing.T) {
	z, err := zip.OpenReader("testdata/mel_filters.npz")
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, n := range []int{80, 128} {
		f, err := z.Open(fmt.Sprintf("mel_%d.npy", n))
		if err != nil {
			t.Fatal(err)
		}
		shape, want, err := preprocess.ReadNpy(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(shape) != 2 || shape[0] != n || shape[1] != Bins {
			t.Fatalf("mel_%d: shape %v", n, shape)
		}
		got := Filters(n)
		bad := 0
		for i := range got {
			if got[i] != want[i] && math.Abs(float64(got[i]-want[i])) > float64(ulp(want[i])) {
				if bad < 3 {
					t.Errorf("mel_%d[%d][%d] = %v, whisper %v", n, i/Bins, i%Bins, got[i], want[i])
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("mel_%d: %d weights beyond one float32 ulp", n, bad)
		}
	}
}

func ulp(v float32) float32 {
	return math.Nextafter32(v, float32(math.Inf(1))) - v
}

// TestComputeRefusesBadInput: a wrong destination size, a NaN or Inf
// sample, and Mel counts Whisper does not use.
func TestComputeRefusesBadInput(t *testing.T) {
	if _, err := New(64); err == nil {
		t.Error("64 Mel bins accepted")
	}
	e, err := New(80)
	if err != nil {
		t.Fatal(err)
	}
	if e.Size() != 80*3000 {
		t.Fatalf("Size %d", e.Size())
	}
	if err := e.Compute(make([]float32, e.Size()-1), nil); err == nil {
		t.Error("short destination accepted")
	}
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
		a := make([]float32, 100)
		a[50] = bad
		if err := e.Compute(make([]float32, e.Size()), a); err == nil {
			t.Errorf("sample %v accepted", bad)
		}
	}
}

// TestComputeIsConcurrencySafe runs several spectrograms at once; each
// equals the sequential result.
func TestComputeIsConcurrencySafe(t *testing.T) {
	e, err := New(128)
	if err != nil {
		t.Fatal(err)
	}
	a := speech(t)
	want := make([]float32, e.Size())
	if err := e.Compute(want, a); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got := make([]float32, e.Size())
			if err := e.Compute(got, a); err != nil {
				t.Error(err)
				return
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("value %d: %v, sequential %v", i, got[i], want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkCompute is the front end of one sample: a 3.8 s clip and a full
// 30 s signal (go test -bench Compute ./preprocess/logmel).
func BenchmarkCompute(b *testing.B) {
	e, err := New(128)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		a    []float32
	}{{"speech3.8s", speech(b)}, {"full30s", lcg(NSamples)}} {
		b.Run(c.name, func(b *testing.B) {
			out := make([]float32, e.Size())
			for b.Loop() {
				if err := e.Compute(out, c.a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
