#!/usr/bin/env bash
# Regenerates the speech clips that `mlperf dataset synth librispeech`
# repacks: espeak-ng 1.51 sentences (two voices), resampled to 16 kHz
# 16-bit mono with sox 14.4.2 (no dither) and encoded with Debian's flac
# 1.4.2 at level 8, in LibriSpeech's naming (speaker-chapter-utterance).
# clips.txt holds each clip's transcript as LibriSpeech's *.trans.txt do.
#   apt-get install espeak-ng sox flac && bash make_clips.sh
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > clips.txt
n=0
while IFS='|' read -r id voice text; do
  espeak-ng -v "$voice" -s 175 -w "$tmp/raw.wav" "$text"
  sox -D "$tmp/raw.wav" -r 16000 -b 16 -c 1 "$tmp/c.wav"
  flac -s -f -8 -o "$id.flac" "$tmp/c.wav"
  echo "$id $(echo "$text" | tr '[:lower:]' '[:upper:]')" >> clips.txt
  n=$((n + 1))
done <<'LIST'
1001-2001-0000|en-us|the quick brown fox jumps over the lazy dog
1001-2001-0001|en-us|she sells sea shells by the sea shore
1001-2001-0002|en-us|it was the best of times it was the worst of times
1002-3001-0000|en-gb|please call stella and ask her to bring these things
1002-3001-0001|en-gb|the colour of the harbour was grey
1002-3001-0002|en-gb|twenty five people waited at the station
LIST
echo "wrote $n clips"
