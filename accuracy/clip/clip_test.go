package clip

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
)

// TestCLIPGolden: per-sample scores within one float32 rounding of the
// similarity (100 × 2⁻²⁴ ≈ 6e-6) of numpy's float32 computation, and the
// mean likewise.
func TestCLIPGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Scores    []string `json:"scores"`
		CLIPScore string   `json:"clip_score"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	shape, img, err := preprocess.LoadNpy("testdata/image_features.npy")
	if err != nil {
		t.Fatal(err)
	}
	_, txt, err := preprocess.LoadNpy("testdata/text_features.npy")
	if err != nil {
		t.Fatal(err)
	}
	scores, mean, err := Scores(img, txt, shape[0], shape[1])
	if err != nil {
		t.Fatal(err)
	}
	want := floats(t, g.Scores)
	if len(want) != len(scores) {
		t.Fatalf("%d scores, golden %d", len(scores), len(want))
	}
	worst, exact := 0.0, 0
	for i, s := range scores {
		d := math.Abs(s - want[i])
		worst = max(worst, d)
		if d == 0 {
			exact++
		}
	}
	wm := pf(t, g.CLIPScore)
	t.Logf("%d/%d scores bit-identical, worst |Δ| %.3g; mean %v numpy %v (|Δ| %.3g)", exact, len(scores), worst, mean, wm, math.Abs(mean-wm))
	if worst > 1e-5 || math.Abs(mean-wm) > 1e-5 {
		t.Fatalf("worst score error %g, mean error %g", worst, math.Abs(mean-wm))
	}
}

func TestCLIPBadInput(t *testing.T) {
	for name, c := range map[string]struct {
		img, txt []float32
		n, d     int
		want     string
	}{
		"shape":    {[]float32{1, 2}, []float32{1}, 1, 2, "1 text values"},
		"nan":      {[]float32{1, 2, 3, float32(math.NaN())}, []float32{1, 1, 1, 1}, 2, 2, "image features of sample 1: feature 1 is NaN"},
		"zero":     {[]float32{1, 2}, []float32{0, 0}, 1, 2, "text features of sample 0: the vector's norm is 0"},
		"no items": {nil, nil, 0, 2, "for 0 samples"},
	} {
		_, _, err := Scores(c.img, c.txt, c.n, c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "accuracy: clip: ") {
			t.Errorf("%s: err %v", name, err)
		}
	}
	s, m, err := Scores([]float32{3, 4}, []float32{3, 4}, 1, 2)
	if err != nil || math.Abs(s[0]-100) > 1e-4 || m != s[0] {
		t.Errorf("parallel vectors: %v %v %v", s, m, err)
	}
}

// floats parses the golden's decimal strings.
func floats(t *testing.T, s []string) []float64 {
	t.Helper()
	out := make([]float64, len(s))
	for i, v := range s {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = f
	}
	return out
}

// pf parses one golden decimal string.
func pf(t *testing.T, s string) float64 {
	t.Helper()
	return floats(t, []string{s})[0]
}
