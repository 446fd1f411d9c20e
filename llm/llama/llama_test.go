package llama

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// ropeCase is one entry of testdata/rope_golden.json (reference.py:
// transformers' _compute_llama3_parameters transcribed on float32 numpy
// arrays).
type ropeCase struct {
	Name    string  `json:"name"`
	Dim     int64   `json:"dim"`
	Theta   float64 `json:"theta"`
	Scaling *struct {
		Factor         float64 `json:"factor"`
		LowFreqFactor  float64 `json:"low_freq_factor"`
		HighFreqFactor float64 `json:"high_freq_factor"`
		Original       int64   `json:"original_max_position_embeddings"`
	} `json:"scaling"`
	InvFreq []float64 `json:"inv_freq"`
}

func loadRope(t *testing.T) []ropeCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "rope_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cs []ropeCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestInvFreqMatchesTransformers compares InvFreq with the numpy
// transcription of transformers' llama3 rope parameters: every frequency
// within 4 float32 ulps (the pow of numpy and Go may round differently).
func TestInvFreqMatchesTransformers(t *testing.T) {
	cs := loadRope(t)
	if len(cs) < 4 {
		t.Fatalf("%d golden cases", len(cs))
	}
	for _, c := range cs {
		var s *RopeScaling
		if c.Scaling != nil {
			s = &RopeScaling{Factor: c.Scaling.Factor, LowFreqFactor: c.Scaling.LowFreqFactor, HighFreqFactor: c.Scaling.HighFreqFactor, OriginalMaxPositions: c.Scaling.Original}
		}
		got := InvFreq(c.Dim, c.Theta, s)
		if len(got) != len(c.InvFreq) {
			t.Fatalf("%s: %d frequencies, golden %d", c.Name, len(got), len(c.InvFreq))
		}
		for i, w := range c.InvFreq {
			if d := math.Abs(float64(got[i])-w) / w; d > 4*math.Pow(2, -23) {
				t.Errorf("%s: inv_freq[%d] = %g, transformers %g (relative %g)", c.Name, i, got[i], w, d)
			}
		}
	}
}

// TestLlama31ScalingBands checks the three bands on Llama 3.1 8B's head:
// short wavelengths (< 2048) unchanged, long ones (> 8192) divided by 8,
// and the ones between strictly between the two.
func TestLlama31ScalingBands(t *testing.T) {
	plain := InvFreq(128, 500000, nil)
	scaled := InvFreq(128, 500000, &Llama31Scaling)
	var kept, divided, smoothed int
	for i := range plain {
		wave := 2 * math.Pi / float64(plain[i])
		switch {
		case wave < 2048:
			if scaled[i] != plain[i] {
				t.Errorf("inv_freq[%d] (wavelength %.0f) changed: %g → %g", i, wave, plain[i], scaled[i])
			}
			kept++
		case wave > 8192:
			if scaled[i] != plain[i]/8 {
				t.Errorf("inv_freq[%d] (wavelength %.0f) = %g, want %g/8", i, wave, scaled[i], plain[i])
			}
			divided++
		default:
			if !(scaled[i] < plain[i] && scaled[i] > plain[i]/8) {
				t.Errorf("inv_freq[%d] (wavelength %.0f) = %g, not between %g and %g", i, wave, scaled[i], plain[i]/8, plain[i])
			}
			smoothed++
		}
	}
	if kept == 0 || divided == 0 || smoothed == 0 {
		t.Errorf("bands kept %d, divided %d, smoothed %d: want all three", kept, divided, smoothed)
	}
}

func TestCheckRefusesBadConfigs(t *testing.T) {
	good := Config{Layers: 2, Hidden: 32, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 97, MaxPositions: 256, RopeTheta: 10000, RMSEps: 1e-5}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(*Config){
		"odd head":       func(c *Config) { c.Hidden = 36; c.Heads = 4 },
		"kv not divisor": func(c *Config) { c.KVHeads = 3 },
		"no layers":      func(c *Config) { c.Layers = 0 },
		"theta 1":        func(c *Config) { c.RopeTheta = 1 },
		"factor below 1": func(c *Config) {
			c.RopeScaling = &RopeScaling{Factor: 0.5, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}
		},
		"high not above": func(c *Config) {
			c.RopeScaling = &RopeScaling{Factor: 8, LowFreqFactor: 4, HighFreqFactor: 4, OriginalMaxPositions: 8192}
		},
		"no original size": func(c *Config) { c.RopeScaling = &RopeScaling{Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4} },
		"top 3 of 2":       func(c *Config) { c.Experts, c.ExpertsPerToken = 2, 3 },
		"experts, top 0":   func(c *Config) { c.Experts = 8 },
		"top 2, no expert": func(c *Config) { c.ExpertsPerToken = 2 },
		"negative experts": func(c *Config) { c.Experts, c.ExpertsPerToken = -8, 2 },
	}
	moe := good
	moe.Experts, moe.ExpertsPerToken = 8, 2
	if err := moe.Check(); err != nil {
		t.Errorf("8 experts, top 2: %v", err)
	}
	for name, f := range bad {
		c := good
		f(&c)
		if err := c.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if _, err := Build(c, 1, Options{Name: "x"}); err == nil {
			t.Errorf("%s: built", name)
		}
	}
}
