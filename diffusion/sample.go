package diffusion

import (
	"context"
	"fmt"
)

// Denoiser is one UNet evaluation: x holds the scaled latents of the
// model batch (with guidance, 2·B samples: the B negative-prompt copies
// first, then the B positive ones, as the SDXL pipeline concatenates
// them), t the step's timestep; it returns the predicted noise, same
// length as x. The slice x is reused between calls: a Denoiser must not
// keep it.
type Denoiser func(ctx context.Context, x []float32, t float32) ([]float32, error)

// Guided reports whether a guidance scale uses classifier-free guidance
// (diffusers: guidance_scale > 1), so that the Denoiser sees 2·B samples.
func Guided(guidance float32) bool { return guidance > 1 }

// Sample runs the SDXL denoising loop (pipeline_stable_diffusion_xl.py
// __call__) on batch samples whose initial noise is latents (batch ×
// per-sample values, not yet scaled): latents × InitNoiseSigma, then for
// each step the model input (the latents, twice with guidance) divided by
// InputScale, the Denoiser, the guidance ε = ε_u + g·(ε_c − ε_u), and the
// Euler step, all in float32. It returns the final latents in a new slice
// (still to be divided by the VAE's scaling factor) and leaves latents
// unchanged. Errors from unet stop the loop; ctx is checked before each
// step.
func (e *Euler) Sample(ctx context.Context, latents []float32, batch int, guidance float32, unet Denoiser) ([]float32, error) {
	if batch < 1 || len(latents)%batch != 0 || len(latents) == 0 {
		return nil, fmt.Errorf("diffusion: %d latent values for a batch of %d", len(latents), batch)
	}
	n := len(latents)
	x := make([]float32, n)
	for i, v := range latents {
		x[i] = v * e.InitNoiseSigma
	}
	copies := 1
	if Guided(guidance) {
		copies = 2
	}
	in := make([]float32, copies*n)
	eps := make([]float32, n)
	for i, t := range e.Timesteps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sc := e.InputScale(i)
		for c := range copies {
			for k, v := range x {
				in[c*n+k] = v / sc
			}
		}
		out, err := unet(ctx, in, t)
		if err != nil {
			return nil, fmt.Errorf("diffusion: step %d (t=%v): %w", i, t, err)
		}
		if len(out) != copies*n {
			return nil, fmt.Errorf("diffusion: step %d: the model returned %d values for an input of %d", i, len(out), copies*n)
		}
		if copies == 2 {
			for k := range eps {
				u, c := out[k], out[n+k]
				eps[k] = u + float32(guidance*(c-u))
			}
		} else {
			copy(eps, out)
		}
		e.Step(x, eps, i)
	}
	return x, nil
}
