// Package diffusion owns the sampling side of latent diffusion: the
// EulerDiscrete scheduler as Hugging Face diffusers (v0.30.3,
// src/diffusers/schedulers/scheduling_euler_discrete.py) computes it, in
// float32 as its torch tensors do, and the denoising loop of the Stable
// Diffusion XL pipeline (pipeline_stable_diffusion_xl.py) with
// classifier-free guidance. It knows nothing of ONNX or of the models'
// tensors: a benchmark binds the UNet to a Denoiser.
package diffusion

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// SchedulerConfig is the part of diffusers' scheduler_config.json the
// EulerDiscrete scheduler reads. Zero values are not defaults: use
// DefaultSchedulerConfig or LoadSchedulerConfig.
type SchedulerConfig struct {
	ClassName         string  `json:"_class_name"`
	NumTrainTimesteps int     `json:"num_train_timesteps"`
	BetaStart         float64 `json:"beta_start"`
	BetaEnd           float64 `json:"beta_end"`
	BetaSchedule      string  `json:"beta_schedule"`
	PredictionType    string  `json:"prediction_type"`
	StepsOffset       int     `json:"steps_offset"`
	TimestepSpacing   string  `json:"timestep_spacing"`
	InterpolationType string  `json:"interpolation_type"`
	UseKarrasSigmas   bool    `json:"use_karras_sigmas"`
}

// DefaultSchedulerConfig is SDXL base 1.0's scheduler: EulerDiscrete,
// scaled_linear betas from 0.00085 to 0.012 over 1000 training steps,
// epsilon prediction, "leading" spacing with steps_offset 1, linear σ
// interpolation (diffusers loaders/single_file_utils.py
// SCHEDULER_DEFAULT_CONFIG and the stabilityai/stable-diffusion-xl-base-1.0
// scheduler_config.json).
func DefaultSchedulerConfig() SchedulerConfig {
	return SchedulerConfig{
		ClassName:         "EulerDiscreteScheduler",
		NumTrainTimesteps: 1000,
		BetaStart:         0.00085,
		BetaEnd:           0.012,
		BetaSchedule:      "scaled_linear",
		PredictionType:    "epsilon",
		StepsOffset:       1,
		TimestepSpacing:   "leading",
		InterpolationType: "linear",
	}
}

// LoadSchedulerConfig reads a diffusers scheduler_config.json; keys it
// lacks keep DefaultSchedulerConfig's values. Settings this package does
// not implement are errors naming the key.
func LoadSchedulerConfig(path string) (SchedulerConfig, error) {
	cfg := DefaultSchedulerConfig()
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("diffusion: scheduler config: %w", err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return cfg, fmt.Errorf("diffusion: scheduler config %s: %w", path, err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("%w (%s)", err, path)
	}
	return cfg, nil
}

// Validate reports settings the scheduler does not implement.
func (c SchedulerConfig) Validate() error {
	switch {
	case c.ClassName != "" && c.ClassName != "EulerDiscreteScheduler":
		return fmt.Errorf("diffusion: scheduler _class_name %q: only EulerDiscreteScheduler is implemented (the reference's)", c.ClassName)
	case c.NumTrainTimesteps < 2:
		return fmt.Errorf("diffusion: scheduler num_train_timesteps %d: want at least 2", c.NumTrainTimesteps)
	case c.BetaSchedule != "scaled_linear" && c.BetaSchedule != "linear":
		return fmt.Errorf("diffusion: scheduler beta_schedule %q: want scaled_linear or linear", c.BetaSchedule)
	case c.PredictionType != "epsilon":
		return fmt.Errorf("diffusion: scheduler prediction_type %q: only epsilon is implemented", c.PredictionType)
	case c.TimestepSpacing != "leading" && c.TimestepSpacing != "trailing" && c.TimestepSpacing != "linspace":
		return fmt.Errorf("diffusion: scheduler timestep_spacing %q: want leading, trailing or linspace", c.TimestepSpacing)
	case c.InterpolationType != "linear":
		return fmt.Errorf("diffusion: scheduler interpolation_type %q: only linear is implemented", c.InterpolationType)
	case c.UseKarrasSigmas:
		return fmt.Errorf("diffusion: scheduler use_karras_sigmas true is not implemented")
	}
	return nil
}

// Euler is an EulerDiscrete schedule for a number of inference steps. It
// is read-only after NewEuler and safe for concurrent use.
type Euler struct {
	// Timesteps are the model's timestep inputs, one per step (951, 901,
	// …, 1 for SDXL's 20 steps).
	Timesteps []float32
	// Sigmas are the noise levels, one per step plus a final 0.
	Sigmas []float32
	// InitNoiseSigma scales the initial latents: √(σ_max²+1) for
	// "leading" spacing, σ_max otherwise.
	InitNoiseSigma float32
}

// linspaceF32 is torch.linspace(start, end, n, dtype=torch.float32) as
// ATen's CPU kernel computes it (aten/src/ATen/native/cpu/
// RangeFactoriesKernel.cpp): step = (end−start)/(n−1) in float32, the first
// half counted up from start and the second half down from end.
func linspaceF32(start, end float32, n int) []float32 {
	out := make([]float32, n)
	if n == 1 {
		out[0] = start
		return out
	}
	step := (end - start) / float32(n-1)
	half := n / 2
	for i := range n {
		if i < half {
			out[i] = start + float32(step*float32(i))
		} else {
			out[i] = end - float32(step*float32(n-i-1))
		}
	}
	return out
}

// NewEuler computes the schedule of steps inference steps as
// EulerDiscreteScheduler.__init__ and set_timesteps do.
func NewEuler(cfg SchedulerConfig, steps int) (*Euler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	T := cfg.NumTrainTimesteps
	if steps < 1 || steps > T {
		return nil, fmt.Errorf("diffusion: %d inference steps: want 1 to %d (num_train_timesteps)", steps, T)
	}
	var betas []float32
	if cfg.BetaSchedule == "scaled_linear" {
		betas = linspaceF32(float32(math.Sqrt(cfg.BetaStart)), float32(math.Sqrt(cfg.BetaEnd)), T)
		for i, b := range betas {
			betas[i] = b * b
		}
	} else {
		betas = linspaceF32(float32(cfg.BetaStart), float32(cfg.BetaEnd), T)
	}
	// alphas_cumprod (torch.cumprod, sequential in float32) and
	// σ = ((1−ᾱ)/ᾱ)^0.5 in float32.
	sig := make([]float32, T)
	var acc float32 = 1
	for i, b := range betas {
		acc *= 1 - b
		sig[i] = float32(math.Sqrt(float64((1 - acc) / acc)))
	}
	ts := make([]float64, steps)
	switch cfg.TimestepSpacing {
	case "leading":
		ratio := T / steps
		for i := range steps {
			ts[steps-1-i] = float64(i*ratio) + float64(cfg.StepsOffset)
		}
	case "trailing":
		ratio := float64(T) / float64(steps)
		for i := range steps { // np.round(np.arange(T, 0, -ratio)) - 1
			ts[i] = math.RoundToEven(float64(T)-float64(i)*ratio) - 1
		}
	case "linspace":
		for i := range steps { // np.linspace(0, T-1, steps)[::-1]
			ts[steps-1-i] = float64(i) * (float64(T-1) / float64(max(steps-1, 1)))
		}
	}
	e := &Euler{Timesteps: make([]float32, steps), Sigmas: make([]float32, steps+1)}
	for i, t := range ts {
		ts32 := float64(float32(t)) // timesteps are float32 before np.interp
		e.Timesteps[i] = float32(ts32)
		e.Sigmas[i] = float32(interp(ts32, sig))
	}
	smax := e.Sigmas[0]
	for _, s := range e.Sigmas {
		smax = max(smax, s)
	}
	e.InitNoiseSigma = smax
	if cfg.TimestepSpacing == "leading" {
		e.InitNoiseSigma = float32(math.Sqrt(float64(float32(smax*smax) + 1)))
	}
	return e, nil
}

// interp is np.interp(x, arange(len(y)), y) in float64.
func interp(x float64, y []float32) float64 {
	if x <= 0 {
		return float64(y[0])
	}
	if x >= float64(len(y)-1) {
		return float64(y[len(y)-1])
	}
	i := int(math.Floor(x))
	f := x - float64(i)
	if f == 0 {
		return float64(y[i])
	}
	return float64(y[i]) + (float64(y[i+1])-float64(y[i]))*f
}

// Steps is the number of inference steps.
func (e *Euler) Steps() int { return len(e.Timesteps) }

// InputScale is the factor scale_model_input divides the latents by at
// step i: (σ_i²+1)^0.5 in float32.
func (e *Euler) InputScale(i int) float32 {
	s := e.Sigmas[i]
	return float32(math.Sqrt(float64(float32(s*s) + 1)))
}

// Step is EulerDiscreteScheduler.step for epsilon prediction with
// s_churn 0: with σ = Sigmas[i], x₀ = x − σ·ε, d = (x − x₀)/σ and
// x ← x + d·(Sigmas[i+1] − σ), each in float32. It updates x in place.
func (e *Euler) Step(x, eps []float32, i int) {
	s, dt := e.Sigmas[i], e.Sigmas[i+1]-e.Sigmas[i]
	for k, v := range x {
		x0 := v - float32(s*eps[k])
		d := (v - x0) / s
		x[k] = v + float32(d*dt)
	}
}
