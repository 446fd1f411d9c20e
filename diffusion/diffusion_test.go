package diffusion

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type golden struct {
	Timesteps      []float64 `json:"timesteps"`
	Sigmas         []float64 `json:"sigmas"`
	InitNoiseSigma float64   `json:"init_noise_sigma"`
	SigmaF64At951  float64   `json:"sigma_f64_951"`
}

// The SDXL schedule equals the one numpy computes from diffusers'
// formulas in float32 (testdata/make_golden.py), bit for bit.
func TestEulerSDXLScheduleGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/euler_sdxl_20.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	e, err := NewEuler(DefaultSchedulerConfig(), 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Timesteps) != 20 || len(e.Sigmas) != 21 {
		t.Fatalf("%d timesteps, %d sigmas", len(e.Timesteps), len(e.Sigmas))
	}
	for i, v := range g.Timesteps {
		if float64(e.Timesteps[i]) != v {
			t.Errorf("timestep %d = %v, want %v", i, e.Timesteps[i], v)
		}
	}
	if e.Timesteps[0] != 951 || e.Timesteps[19] != 1 {
		t.Errorf("timesteps %v…%v, want 951…1", e.Timesteps[0], e.Timesteps[19])
	}
	for i, v := range g.Sigmas {
		if float64(e.Sigmas[i]) != v {
			t.Errorf("sigma %d = %v, want %v", i, e.Sigmas[i], v)
		}
	}
	if float64(e.InitNoiseSigma) != g.InitNoiseSigma {
		t.Errorf("init_noise_sigma %v, want %v", e.InitNoiseSigma, g.InitNoiseSigma)
	}
	// The spec's rounded values (float64 computation: σ(951) ≈ 11.0283).
	if math.Abs(float64(e.Sigmas[0])-11.0283) > 1e-3 || math.Abs(float64(e.InitNoiseSigma)-11.0736) > 1e-3 || math.Abs(float64(e.Sigmas[0])-g.SigmaF64At951) > 1e-4 {
		t.Errorf("σ(951) %v, init %v; want ≈ 11.0283, 11.0736", e.Sigmas[0], e.InitNoiseSigma)
	}
}

func TestSchedulerConfigFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "scheduler_config.json")
	os.WriteFile(p, []byte(`{"_class_name": "EulerDiscreteScheduler", "beta_end": 0.012, "steps_offset": 1, "timestep_spacing": "leading", "use_karras_sigmas": false}`), 0o644)
	c, err := LoadSchedulerConfig(p)
	if err != nil || c != DefaultSchedulerConfig() {
		t.Errorf("LoadSchedulerConfig = %+v, %v; want the defaults", c, err)
	}
	for _, bad := range []string{`{"_class_name": "DDIMScheduler"}`, `{"prediction_type": "v_prediction"}`, `{"use_karras_sigmas": true}`, `{"timestep_spacing": "odd"}`, `{`} {
		os.WriteFile(p, []byte(bad), 0o644)
		if _, err := LoadSchedulerConfig(p); err == nil || !strings.Contains(err.Error(), "diffusion: scheduler") {
			t.Errorf("%s: err %v", bad, err)
		}
	}
	if _, err := NewEuler(DefaultSchedulerConfig(), 0); err == nil {
		t.Error("0 steps accepted")
	}
	tr := DefaultSchedulerConfig()
	tr.TimestepSpacing = "trailing"
	e, err := NewEuler(tr, 4)
	if err != nil || e.Timesteps[0] != 999 || e.Timesteps[3] != 249 || e.InitNoiseSigma != e.Sigmas[0] {
		t.Errorf("trailing: %+v, %v; want timesteps 999…249 and init σ = σ_max", e, err)
	}
}

// fakeUNet is a deterministic noise predictor depending on x, t and the
// half of the batch (so guidance matters).
func fakeUNet(x []float32, t float32) []float32 {
	out := make([]float32, len(x))
	for k, v := range x {
		h := float32(1)
		if k >= len(x)/2 {
			h = 1.5
		}
		out[k] = h*float32(math.Sin(float64(v)+float64(t)/100)) + 0.01*float32(k%7)
	}
	return out
}

// Sample equals the pipeline written out naively from diffusers'
// formulas (float64 where diffusers' float32 makes no difference at this
// tolerance).
func TestSampleAgainstNaiveLoop(t *testing.T) {
	e, err := NewEuler(DefaultSchedulerConfig(), 5)
	if err != nil {
		t.Fatal(err)
	}
	lat := make([]float32, 2*6)
	for i := range lat {
		lat[i] = float32(math.Cos(float64(i) * 0.7))
	}
	calls := 0
	got, err := e.Sample(context.Background(), lat, 2, 8, func(_ context.Context, x []float32, ts float32) ([]float32, error) {
		calls++
		if len(x) != 2*len(lat) {
			t.Fatalf("model batch of %d values, want %d", len(x), 2*len(lat))
		}
		return fakeUNet(x, ts), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 5 {
		t.Errorf("%d UNet calls, want 5", calls)
	}
	// Naive: latents·init; per step: in = cat(x,x)/√(σ²+1); ε = u+8(c−u);
	// x0 = x − σε; x += (x−x0)/σ·(σ'−σ).
	n := len(lat)
	x := make([]float64, n)
	for i, v := range lat {
		x[i] = float64(v) * float64(e.InitNoiseSigma)
	}
	for i, ts := range e.Timesteps {
		s, s2 := float64(e.Sigmas[i]), float64(e.Sigmas[i+1])
		in := make([]float32, 2*n)
		for k := range x {
			in[k] = float32(x[k] / math.Sqrt(s*s+1))
			in[n+k] = in[k]
		}
		out := fakeUNet(in, ts)
		for k := range x {
			eps := float64(out[k]) + 8*(float64(out[n+k])-float64(out[k]))
			x0 := x[k] - s*eps
			x[k] += (x[k] - x0) / s * (s2 - s)
		}
	}
	for k := range x {
		if math.Abs(float64(got[k])-x[k]) > 1e-4*max(1, math.Abs(x[k])) {
			t.Errorf("latent %d = %v, naive %v", k, got[k], x[k])
		}
	}
	if lat[0] != 1 {
		t.Error("Sample changed its input latents")
	}
	// Errors and cancellation stop the loop.
	boom := errors.New("boom")
	if _, err := e.Sample(context.Background(), lat, 2, 8, func(context.Context, []float32, float32) ([]float32, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("model error: %v", err)
	}
	if _, err := e.Sample(context.Background(), lat, 2, 8, func(context.Context, []float32, float32) ([]float32, error) { return []float32{1}, nil }); err == nil {
		t.Error("short model output accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Sample(ctx, lat, 2, 8, func(context.Context, []float32, float32) ([]float32, error) { return fakeUNet(lat, 0), nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := e.Sample(context.Background(), lat, 5, 8, nil); err == nil {
		t.Error("latents not divisible by the batch accepted")
	}
	// Without guidance the model sees B samples.
	if _, err := e.Sample(context.Background(), lat, 2, 1, func(_ context.Context, x []float32, _ float32) ([]float32, error) {
		if len(x) != n {
			t.Fatalf("unguided batch of %d values", len(x))
		}
		return x, nil
	}); err != nil {
		t.Fatal(err)
	}
}
