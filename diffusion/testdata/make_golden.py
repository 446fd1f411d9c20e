# Regenerates euler_sdxl_20.json: the EulerDiscreteScheduler schedule of
# SDXL base (scaled_linear 0.00085..0.012, 1000 train steps, leading
# spacing, steps_offset 1) for 20 steps, computed with numpy in float32
# following diffusers v0.30.3 scheduling_euler_discrete.py __init__ and
# set_timesteps, with torch.linspace's float32 CPU formula (first half
# counted from start, second half from end) and a sequential float32
# cumprod as torch computes them.
import json
import numpy as np

T, steps = 1000, 20
f = np.float32
start, end = f(np.sqrt(0.00085)), f(np.sqrt(0.012))
step = f((end - start) / f(T - 1))
betas = np.empty(T, dtype=f)
for i in range(T):
    betas[i] = start + f(step * f(i)) if i < T // 2 else end - f(step * f(T - i - 1))
betas = (betas * betas).astype(f)
alphas = (f(1) - betas).astype(f)
ac = np.empty(T, dtype=f)
acc = f(1)
for i in range(T):
    acc = f(acc * alphas[i])
    ac[i] = acc
sigmas = np.sqrt(((f(1) - ac) / ac).astype(f)).astype(f)
ratio = T // steps
timesteps = (np.arange(0, steps) * ratio).round()[::-1].copy().astype(np.float32) + 1
s = np.interp(timesteps, np.arange(0, len(sigmas)), sigmas)
s = np.concatenate([s, [0.0]]).astype(np.float32)
smax = s.max()
init = np.sqrt(f(smax * smax) + f(1)).astype(f)
json.dump({
    "timesteps": [float(t) for t in timesteps],
    "sigmas": [float(v) for v in s],
    "init_noise_sigma": float(init),
    "sigma_f64_951": float(np.sqrt((1 - np.cumprod(1 - np.linspace(np.sqrt(0.00085), np.sqrt(0.012), T) ** 2)) / np.cumprod(1 - np.linspace(np.sqrt(0.00085), np.sqrt(0.012), T) ** 2))[951]),
}, open("euler_sdxl_20.json", "w"), indent=1)
