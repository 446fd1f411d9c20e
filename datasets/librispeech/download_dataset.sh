#!/usr/bin/env bash
# Prepares the MLPerf Whisper data set as the reference's
# speech2text/download_dataset.sh does: LibriSpeech dev-clean and dev-other
# from OpenSLR (the URLs and MD5s of its utils/inference_librispeech.csv),
# unpacked, then converted and repacked into clips of at most 30 s with
# `mlperf dataset preprocess librispeech` (the Go port of
# convert_librispeech.py and repackage_librispeech.py), and checked with
# `mlperf dataset verify librispeech`. The result under DIR:
#   DIR/dev-all-repack.json  DIR/dev-all-repack/*.wav   (run with --data DIR)
#
# MLCommons also serves the repacked set to its members
# (https://inference.mlcommons-storage.org/metadata/whisper-dataset.uri,
# see scripts/mlc-r2-download.sh); it is the same clips, possibly in
# another order.
#
# Usage: download_dataset.sh [DIR]   (default build/data/librispeech)
# Environment (mirrors, tests): LIBRISPEECH_URL (the folder holding the
# two archives, default http://www.openslr.org/resources/12),
# LIBRISPEECH_DEV_CLEAN_MD5, LIBRISPEECH_DEV_OTHER_MD5; MLPERF, the mlperf
# binary (default bin/mlperf, else mlperf on PATH).
set -euo pipefail
DIR=${1:-build/data/librispeech}
URL=${LIBRISPEECH_URL:-http://www.openslr.org/resources/12}
CLEAN_MD5=${LIBRISPEECH_DEV_CLEAN_MD5:-42e2234ba48799c1f50f24a7926300a1}
OTHER_MD5=${LIBRISPEECH_DEV_OTHER_MD5:-c8d0bcc9cca99d4f8b62fcc847357931}
die() { echo "librispeech: $*" >&2; exit 1; }
for tool in md5sum tar gzip; do
  command -v "$tool" >/dev/null || die "$tool not found; install it (Debian: coreutils, tar, gzip)"
done
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || die "no mlperf binary; run 'make build' or set MLPERF"

if [ -f "$DIR/dev-all-repack.json" ]; then
  echo "librispeech: $DIR/dev-all-repack.json is already there"
  exec "$MLPERF" dataset verify librispeech --data "$DIR"
fi
mkdir -p "$DIR"
fetch() { # name md5
  local out=$DIR/$1 tmp
  if [ -f "$out" ] && echo "$2  $out" | md5sum -c --status; then
    echo "librispeech: $out is already there"
    return
  fi
  tmp=$(mktemp "$DIR/.$1.XXXXXX")
  echo "librispeech: downloading $URL/$1"
  if command -v curl >/dev/null; then
    curl -fL --retry 3 -o "$tmp" "$URL/$1" || { rm -f "$tmp"; die "download of $URL/$1 failed"; }
  elif command -v wget >/dev/null; then
    wget -q -O "$tmp" "$URL/$1" || { rm -f "$tmp"; die "download of $URL/$1 failed"; }
  else
    rm -f "$tmp"; die "need curl or wget (apt-get install curl)"
  fi
  local got
  got=$(md5sum "$tmp" | cut -d' ' -f1)
  if [ "$got" != "$2" ]; then
    rm -f "$tmp"
    die "checksum mismatch for $URL/$1: MD5 $got, want $2; the download was deleted"
  fi
  mv "$tmp" "$out"
}
fetch dev-clean.tar.gz "$CLEAN_MD5"
fetch dev-other.tar.gz "$OTHER_MD5"
for a in dev-clean dev-other; do
  tar -xzf "$DIR/$a.tar.gz" -C "$DIR" || die "could not unpack $DIR/$a.tar.gz"
done
[ -d "$DIR/LibriSpeech" ] || die "the archives held no LibriSpeech/ folder"
"$MLPERF" dataset preprocess librispeech --data "$DIR/LibriSpeech" -o "$DIR"
"$MLPERF" dataset verify librispeech --data "$DIR"
echo "librispeech: the data set is in $DIR (run with --data $DIR); the archives and $DIR/LibriSpeech may be deleted"
