package auc

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/preprocess"
)

type aucGolden struct {
	Cases map[string]struct {
		AUC   string `json:"auc"`
		Good  int    `json:"good"`
		Total int    `json:"total"`
	} `json:"cases"`
	OneClassError string `json:"one_class_error"`
	DLRMLogLine   string `json:"dlrm_log_line"`
}

func loadAUCGolden(t *testing.T) aucGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g aucGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) == 0 {
		t.Fatal("no cases in golden.json")
	}
	return g
}

// TestROCAUCGolden: every digit of sklearn's roc_auc_score, and the
// reference's count of round(pred) == label.
func TestROCAUCGolden(t *testing.T) {
	g := loadAUCGolden(t)
	for name, c := range g.Cases {
		t.Run(name, func(t *testing.T) {
			shape, d, err := preprocess.LoadNpy(filepath.Join("testdata", name+".npy"))
			if err != nil {
				t.Fatal(err)
			}
			if len(shape) != 2 || shape[1] != 2 || shape[0] != c.Total {
				t.Fatalf("shape %v", shape)
			}
			p, l := make([]float32, shape[0]), make([]float32, shape[0])
			for i := range p {
				p[i], l[i] = d[2*i], d[2*i+1]
			}
			want, _ := strconv.ParseFloat(c.AUC, 64)
			r, err := ScoreDLRMPairs(p, l, 1)
			if err != nil {
				t.Fatal(err)
			}
			if r.AUC != want {
				t.Errorf("auc %v, sklearn %v (diff %g)", r.AUC, want, r.AUC-want)
			}
			if r.Good != c.Good {
				t.Errorf("good %d, reference %d", r.Good, c.Good)
			}
			// The order of the pairs does not matter.
			rng := rand.New(rand.NewPCG(1, 2))
			rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i]; l[i], l[j] = l[j], l[i] })
			if got, err := ROCAUC(p, l); err != nil || got != want {
				t.Errorf("shuffled: auc %v err %v, want %v", got, err, want)
			}
		})
	}
}

func TestDLRMLogGolden(t *testing.T) {
	g := loadAUCGolden(t)
	r, err := ScoreDLRM("testdata/dlrm_log.json", accuracy.Float32, 6)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.String(); got != g.DLRMLogLine {
		t.Fatalf("got  %s\nwant %s", got, g.DLRMLogLine)
	}
	if r.Dupes != 2 {
		t.Fatalf("dupes %d, want 2", r.Dupes)
	}
	if _, err := ScoreDLRM("testdata/dlrm_log.json", accuracy.Float32, 5); err == nil || !strings.Contains(err.Error(), "qsl_idx 5 is outside") {
		t.Fatalf("qsl_idx out of range: err %v", err)
	}
}

func TestROCAUCErrors(t *testing.T) {
	g := loadAUCGolden(t)
	if !strings.Contains(g.OneClassError, "Only one class present") {
		t.Fatalf("golden one-class error %q", g.OneClassError)
	}
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for name, c := range map[string]struct {
		p, l []float32
		want string
	}{
		"one class":   {[]float32{0.1, 0.2, 0.3}, []float32{1, 1, 1}, "only one class"},
		"empty":       {nil, nil, "no pairs"},
		"nan score":   {[]float32{0.1, nan}, []float32{0, 1}, "not finite"},
		"inf score":   {[]float32{inf, 0.2}, []float32{0, 1}, "not finite"},
		"three class": {[]float32{0.1, 0.2, 0.3}, []float32{0, 1, 2}, "third class"},
		"continuous":  {[]float32{0.1, 0.2}, []float32{0, 0.5}, "not a class"},
		"nan label":   {[]float32{0.1, 0.2}, []float32{0, nan}, "not a class"},
		"lengths":     {[]float32{0.1}, []float32{0, 1}, "1 scores for 2 labels"},
	} {
		_, err := ROCAUC(c.p, c.l)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "accuracy: ") {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
		if name == "one class" && !errors.Is(err, ErrOneClass) {
			t.Errorf("one class: %v is not ErrOneClass", err)
		}
	}
}

func TestDLRMPairsBadLength(t *testing.T) {
	log := "[\n" + `{ "seq_id" : 7, "qsl_idx" : 0, "data" : "0000803F0000803F0000" }` + "\n]\n"
	_, err := ScoreDLRM(writeLog(t, log), accuracy.Float32, 0)
	if err == nil || !strings.Contains(err.Error(), "seq_id 7") || !strings.Contains(err.Error(), "10 bytes are not whole (prediction, label) pairs") {
		t.Fatalf("err %v", err)
	}
}

// naiveAUC is the Mann-Whitney statistic (ties count one half), equal to
// the trapezoidal ROC area up to rounding.
func naiveAUC(p, l []float32) float64 {
	var s float64
	var np, nn int
	for i := range p {
		if l[i] != 1 {
			continue
		}
		np++
		for j := range p {
			if l[j] != 0 {
				continue
			}
			switch {
			case p[i] > p[j]:
				s++
			case p[i] == p[j]:
				s += 0.5
			}
		}
	}
	for i := range l {
		if l[i] == 0 {
			nn++
		}
	}
	return s / float64(np) / float64(nn)
}

func TestROCAUCMatchesMannWhitney(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		n := 2 + rng.IntN(600)
		levels := 1 + rng.IntN(40)
		p, l := make([]float32, n), make([]float32, n)
		for i := range p {
			p[i] = float32(rng.IntN(levels)) / float32(levels)
			if trial%2 == 0 {
				p[i] = rng.Float32()
			}
			if rng.Float32() < p[i] {
				l[i] = 1
			}
		}
		l[0], l[1] = 0, 1
		got, err := ROCAUC(p, l)
		if err != nil {
			t.Fatal(err)
		}
		if want := naiveAUC(p, l); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: auc %v, Mann-Whitney %v", trial, got, want)
		}
	}
}

func TestRadixSort32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 255, 256, 1000, 100000} {
		a := make([]uint32, n)
		for i := range a {
			a[i] = rng.Uint32()
			if i%3 == 0 {
				a[i] &= 0xff // keys sharing high digits skip passes
			}
		}
		want := slices.Clone(a)
		slices.Sort(want)
		radixSort32(a)
		if !slices.Equal(a, want) {
			t.Fatalf("n=%d: not sorted", n)
		}
	}
	same := []uint32{7, 7, 7}
	for range 300 {
		same = append(same, 7)
	}
	radixSort32(same)
	if same[0] != 7 || same[len(same)-1] != 7 {
		t.Fatal("constant keys changed")
	}
}

func TestFloatKeyOrder(t *testing.T) {
	vals := []float32{float32(math.Inf(-1)), -3, -1e-30, 0, 1e-45, 0.5, 1, float32(math.Inf(1))}
	for i := 1; i < len(vals); i++ {
		if floatKey(vals[i-1]) >= floatKey(vals[i]) {
			t.Fatalf("key(%v) >= key(%v)", vals[i-1], vals[i])
		}
	}
	if floatKey(float32(math.Copysign(0, -1))) != floatKey(0) {
		t.Fatal("-0 and +0 differ")
	}
}

// BenchmarkROCAUC10M scores 10 million sigmoid-like pairs (the sort and
// the integration; the log is not read).
func BenchmarkROCAUC10M(b *testing.B) {
	const n = 10_000_000
	rng := rand.New(rand.NewPCG(7, 8))
	p, l := make([]float32, n), make([]float32, n)
	for i := range p {
		z := rng.NormFloat64()
		p[i] = float32(1 / (1 + math.Exp(-z)))
		if rng.Float64() < 0.1+0.3*float64(p[i]) {
			l[i] = 1
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := ScoreDLRMPairs(p, l, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzROCAUC: any response bytes decode to pairs or a clear error, and a
// score is always within [0, 1] and agrees with the Mann-Whitney form.
func FuzzROCAUC(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		var p, l []float32
		if err := DLRMPairs(data, accuracy.Float32, func(a, b float32) { p, l = append(p, a), append(l, b) }); err != nil {
			return
		}
		auc, err := ROCAUC(p, l)
		if err != nil {
			return
		}
		if !(auc >= 0 && auc <= 1) {
			t.Fatalf("auc %v", auc)
		}
		pos := max(l[0], l[len(l)-1])
		for _, v := range l {
			pos = max(pos, v)
		}
		bl := make([]float32, len(l))
		for i, v := range l {
			if v == pos {
				bl[i] = 1
			}
		}
		if w := naiveAUC(p, bl); math.Abs(w-auc) > 1e-9 {
			t.Fatalf("auc %v, Mann-Whitney %v", auc, w)
		}
	})
}

// writeLog writes s as an mlperf_log_accuracy.json in a test folder and
// returns its path.
func writeLog(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
