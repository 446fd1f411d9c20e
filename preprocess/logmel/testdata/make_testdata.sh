#!/usr/bin/env bash
# Regenerates the log-Mel goldens: a speech clip from espeak-ng 1.51 (sox
# 14.4.2 to 16 kHz, Debian flac 1.4.2), then gen_golden.py with Debian's
# python3-torch 1.13 and python3-numpy. mel_filters.npz is openai/whisper's
# whisper/assets/mel_filters.npz (MIT, see LICENSE.openai-whisper).
#   apt-get install espeak-ng sox flac python3-torch python3-numpy python3-soundfile
#   bash make_testdata.sh
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
espeak-ng -v en-us -s 165 -w "$tmp/raw.wav" "mister smith paid twenty five dollars for the old colour map"
sox -D "$tmp/raw.wav" -r 16000 -b 16 -c 1 "$tmp/speech.wav"
flac -s -f -8 -o speech.flac "$tmp/speech.wav"
/usr/bin/python3 gen_golden.py
