"""Log-Mel goldens for preprocess/logmel.

whisper.audio.log_mel_spectrogram(pad_or_trim(audio), n_mels=128) from
openai/whisper whisper/audio.py, reproduced op for op with torch (the
whisper package itself needs tiktoken and numba, which Debian lacks):
hann_window(400), stft(400, 160, center=True, reflect), |.|² without the
last frame, mel_filters.npz["mel_128"] @ power, log10 of the clamp at
1e-10, the max − 8 floor, (x + 4) / 4. The same maths in float64 numpy
(np.fft.rfft) is written beside it as a tighter oracle.

Inputs: speech.flac (espeak-ng) and integer-valued signals that numpy and
Go build identically: silence, 0.05 s of speech, a 30 s pseudo-random
signal, 31.25 s of it (trimmed), 479,900 samples of it (reflection at the
end over non-zero samples). For each case, frames listed in golden.json
of both outputs are saved as <case>_torch.npy and <case>_f64.npy, shape
[128, len(frames)]; golden.json also holds each whole output's max, min,
mean and the number of values at the floor."""
import json

import numpy as np
import soundfile as sf
import torch

N_FFT, HOP, N_SAMPLES = 400, 160, 480000
filters = np.load("mel_filters.npz")["mel_128"]


def pad_or_trim(a):
    a = a[:N_SAMPLES]
    return np.pad(a, (0, N_SAMPLES - len(a)))


def whisper_torch(a):
    audio = torch.from_numpy(pad_or_trim(a).astype(np.float32))
    window = torch.hann_window(N_FFT)
    stft = torch.stft(audio, N_FFT, HOP, window=window, return_complex=True)
    magnitudes = stft[..., :-1].abs() ** 2
    mel_spec = torch.from_numpy(filters) @ magnitudes
    log_spec = torch.clamp(mel_spec, min=1e-10).log10()
    log_spec = torch.maximum(log_spec, log_spec.max() - 8.0)
    return ((log_spec + 4.0) / 4.0).numpy()


def float64_numpy(a):
    x = pad_or_trim(a).astype(np.float64)
    x = np.pad(x, (N_FFT // 2, N_FFT // 2), mode="reflect")
    n = np.arange(N_FFT)
    window = (0.5 - 0.5 * np.cos(2 * np.pi * n / N_FFT)).astype(np.float32).astype(np.float64)
    frames = np.stack([x[t * HOP:t * HOP + N_FFT] * window for t in range(N_SAMPLES // HOP)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    mel = filters.astype(np.float64) @ power.T
    log = np.log10(np.maximum(mel, 1e-10))
    log = np.maximum(log, log.max() - 8.0)
    return ((log + 4.0) / 4.0).astype(np.float32)


def lcg(n):
    """The integer signal the Go test builds: s[i] = ((i·7919 + i²·31 +
    (i >> 7)·104729) mod 65536) − 32768, scaled by 1/32768 and shaped by
    an integer envelope (i mod 16000) / 16000 so spectra vary by frame."""
    i = np.arange(n, dtype=np.int64)
    s = ((i * 7919 + i * i * 31 + (i >> 7) * 104729) % 65536) - 32768
    s = s * (i % 16000) // 16000
    return s.astype(np.float32) / np.float32(32768)


speech, rate = sf.read("speech.flac", dtype="float32")
assert rate == 16000
cases = {
    "speech": speech,
    "silence": np.zeros(16000, dtype=np.float32),
    "short": speech[4000:4800],
    "noise30": lcg(480000),
    "over30": lcg(500000),
    "near30": lcg(479900),
}
golden = {}
for name, a in cases.items():
    t = whisper_torch(a)
    f = float64_numpy(a)
    assert t.shape == (128, 3000) and f.shape == (128, 3000)
    frames = sorted({0, 1, 2, 3, 100, 1000, 1500, 2999, 2998, 2997}
                    | {len(a) // HOP + d for d in (-2, -1, 0, 1, 2) if 0 <= len(a) // HOP + d < 3000})
    np.save(f"{name}_torch.npy", np.ascontiguousarray(t[:, frames]))
    np.save(f"{name}_f64.npy", np.ascontiguousarray(f[:, frames]))
    golden[name] = {
        "samples": len(a),
        "frames": frames,
        "torch_max": float(t.max()),
        "torch_min": float(t.min()),
        "torch_mean": float(t.astype(np.float64).mean()),
        "torch_floor_count": int((t == t.min()).sum()),
        "max_abs_torch_minus_f64": float(np.abs(t.astype(np.float64) - f).max()),
    }
with open("golden.json", "w") as fh:
    json.dump(golden, fh, indent=1, sort_keys=True)
print(json.dumps(golden, indent=1, sort_keys=True))
