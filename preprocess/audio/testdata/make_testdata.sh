#!/usr/bin/env bash
# Regenerates the audio fixtures of preprocess/audio from Debian tools:
# espeak-ng 1.51 (speech), sox 14.4.2 (resampling, channels, encodings) and
# flac 1.4.2 (FLAC encoding, the reference encoder), then golden.json with
# gen_golden.py (python3-soundfile, i.e. libsndfile, which librosa.load
# reads through). Run from this folder:
#   apt-get install espeak-ng sox flac python3-soundfile python3-numpy
#   bash make_testdata.sh
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

espeak-ng -v en-us -s 170 -w "$tmp/raw.wav" "she sells sea shells"
# 16 kHz mono 16-bit, no dither (reproducible), trimmed to one second.
sox -D "$tmp/raw.wav" -r 16000 -b 16 -c 1 speech.wav trim 0 1
# FLAC at the fastest and the strongest compression levels.
flac -s -f -0 -o speech-0.flac speech.wav
flac -s -f -8 -o speech-8.flac speech.wav
# Stereo (the second channel attenuated), 24-bit, 8 kHz, 8-bit and float.
sox -D speech.wav stereo.wav remix 1 1v0.5
flac -s -f -5 -o stereo.flac stereo.wav
sox -D speech.wav -b 24 speech24.wav
flac -s -f -5 -o speech24.flac speech24.wav
sox -D speech.wav -r 8000 speech8k.wav
flac -s -f -5 -o speech8k.flac speech8k.wav
sox -D speech.wav -b 8 -e unsigned-integer speech-u8.wav
sox -D speech.wav -b 32 -e floating-point speech-f32.wav
rm -f speech24.wav
# The reference decoder agrees: flac -d gives back speech.wav's samples.
for f in speech-0.flac speech-8.flac; do
  flac -s -d -f -o "$tmp/d.wav" "$f"
  cmp <(tail -c 32000 "$tmp/d.wav") <(tail -c 32000 speech.wav)
done
/usr/bin/python3 gen_golden.py > golden.json
