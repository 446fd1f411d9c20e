"""Golden for librispeech.Prepare: the reference's repack run on a small
LibriSpeech-style tree.

    /usr/bin/python3 gen_golden.py /path/to/mlcommons-inference/speech2text > prepare_wavs.json

The tree (raw_layout.json: chapter → utterance → source FLAC) is built
from ../clips (espeak-ng) and long.flac (a clip padded with silence to
31.1 s, which the repack skips). The convert step (sox flac → wav, an
exact copy of the 16-bit samples) is done with soundfile; dev-all.json
keeps what repackage_librispeech.py reads (transcript, files[0].fname).
Then utils/repackage_librispeech.py itself runs, with librosa.load
replaced by soundfile.read(dtype=float32): librosa reads through
soundfile, and at 16 kHz it does not resample. The manifest it writes is
kept byte for byte (prepare_manifest.json), each clip's WAV by SHA-256
(prepare_wavs.json)."""
import hashlib
import json
import os
import runpy
import shutil
import sys
import tempfile
import types

import soundfile as sf

s2t = sys.argv[1]
librosa = types.ModuleType("librosa")
librosa.load = lambda path, sr: (sf.read(path, dtype="float32")[0], sr)
sys.modules["librosa"] = librosa

layout = json.load(open("raw_layout.json"))
clips = dict(line.split(" ", 1) for line in open("../clips/clips.txt").read().splitlines())
tmp = tempfile.mkdtemp()
try:
    data = os.path.join(tmp, "data")
    dev_all = []
    for key, utts in layout.items():
        spk, ch = key.split("-")
        d = os.path.join(data, "dev-all", spk, ch)
        os.makedirs(d)
        with open(os.path.join(d, key + ".trans.txt"), "w") as f:
            for uid, src in utts:
                text = clips[os.path.basename(src)[:-5]] if src.startswith("clips/") else "A VERY LONG SILENCE"
                f.write(f"{uid} {text}\n")
                pcm, sr = sf.read(os.path.join("..", src) if src.startswith("clips/") else src, dtype="int16")
                wav = os.path.join(d, uid + ".wav")
                sf.write(wav, pcm, sr, subtype="PCM_16")
                dev_all.append({"transcript": text.lower().strip(),
                                "files": [{"fname": os.path.relpath(wav, data), "speed": 1}]})
    with open(os.path.join(data, "dev-all.json"), "w") as f:
        json.dump(dev_all, f)
    # Relative paths from the data folder: the manifest's fnames are then
    # dev-all-repack/<clip>.wav, as librispeech.Prepare writes them.
    here = os.getcwd()
    os.chdir(data)
    sys.argv = ["repackage_librispeech.py", "--manifest", "dev-all.json", "--data_dir", ".",
                "--output_dir", "dev-all-repack", "--output_json", "dev-all-repack.json"]
    runpy.run_path(os.path.join(s2t, "utils", "repackage_librispeech.py"), run_name="__main__")
    manifest_bytes = open("dev-all-repack.json", "rb").read()
    wavs = {e["files"][0]["fname"]: hashlib.sha256(open(e["files"][0]["fname"], "rb").read()).hexdigest()
            for e in json.loads(manifest_bytes)}
    os.chdir(here)
    with open("prepare_manifest.json", "wb") as f:
        f.write(manifest_bytes)
    json.dump(wavs, sys.stdout, indent=1, sort_keys=True)
    print()
finally:
    shutil.rmtree(tmp)
