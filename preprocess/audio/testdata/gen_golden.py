"""Golden values for preprocess/audio: what librosa.load(path, sr=None,
mono=True) gives the MLPerf Whisper reference, reproduced with soundfile
(libsndfile; librosa's own reader) and numpy, without librosa (not in
Debian): sf.read(dtype='float32', always_2d=True), then np.mean over the
channels (librosa.to_mono). For each file: rate, channels, frames, the
SHA-256 of the mono float32 samples (little-endian) and the first values
after the leading silence."""
import glob
import hashlib
import json

import numpy as np
import soundfile as sf

out = {}
for path in sorted(glob.glob("*.wav") + glob.glob("*.flac")):
    data, rate = sf.read(path, dtype="float32", always_2d=True)
    frames, channels = data.shape
    mono = data[:, 0] if channels == 1 else np.mean(data.T, axis=0)
    mono = np.ascontiguousarray(mono, dtype="<f4")
    nz = int(np.flatnonzero(mono)[0]) if np.any(mono) else 0
    out[path] = {
        "rate": rate,
        "channels": channels,
        "frames": frames,
        "mono_sha256": hashlib.sha256(mono.tobytes()).hexdigest(),
        "first_nonzero": nz,
        "values": [float(v) for v in mono[nz:nz + 6]],
    }
print(json.dumps(out, indent=1, sort_keys=True))
