#!/usr/bin/env bash
# Downloads the MLPerf SDXL data set as the reference's
# text_to_image/tools/download-coco-2014.sh lays it out (without Python):
#   DIR/captions/captions_source.tsv   the reference's 5000-caption selection
#   DIR/captions/captions.tsv          the first MAX rows of it (what coco.py
#                                      writes when captions_source.tsv exists)
#   DIR/latents/latents.npy            the fixed initial latents
#   DIR/statistics/val2014.npz         the FID reference statistics
# from mlcommons/inference on GitHub, each checked: captions_source.tsv and
# latents.npy by their MD5s, val2014.npz by its git blob id (no checksum is
# published). A mismatch deletes the file and fails. COCO images are not
# needed (FID uses the statistics).
#
# With -a, captions.tsv is instead regenerated as coco.py does from the
# COCO annotations (annotations_trainval2014.zip, SHA-256 checked; the
# first caption of each val2014 image, pandas' seed-2023 shuffle, the first
# MAX) by `mlperf dataset preprocess coco2014`, and compared with the
# reference's captions_source.tsv when MAX is 5000.
#
# Usage: download_dataset.sh [-d DIR] [-m MAX] [-a]   (default build/data/coco2014, 5000)
# Environment (mirrors, tests): COCO2014_BASE_URL replaces
#   https://raw.githubusercontent.com/mlcommons/inference/master/text_to_image;
#   COCO2014_ANNOTATIONS_URL the annotations zip's URL; COCO2014_MD5_SOURCE,
#   COCO2014_MD5_LATENTS, COCO2014_BLOB_STATS, COCO2014_SHA256_ANNOTATIONS
#   the expected sums; MLPERF the mlperf binary (default bin/mlperf, else
#   mlperf on PATH).
set -euo pipefail
DIR=build/data/coco2014
MAX=5000
FROM_ANN=
die() { echo "coco2014: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:m:n:ah" opt; do
  case $opt in
    a) FROM_ANN=1 ;;
    d) DIR=$OPTARG ;;
    m) MAX=$OPTARG ;;
    n) ;; # workers: accepted as the reference's script does; nothing to parallelise
    *) usage ;;
  esac
done
case $MAX in ''|*[!0-9]*) die "-m $MAX: want a number of captions" ;; esac
BASE=${COCO2014_BASE_URL:-https://raw.githubusercontent.com/mlcommons/inference/master/text_to_image}
MD5_SOURCE=${COCO2014_MD5_SOURCE:-24ba91c1e0fc04e70895385b4a57dca1}
MD5_LATENTS=${COCO2014_MD5_LATENTS:-e3ca8d78fda4f6001ef1dd2dea77ab05}
BLOB_STATS=${COCO2014_BLOB_STATS:-806479d0693a33110526b6689aa26baddd995c7b}
ANN_URL=${COCO2014_ANNOTATIONS_URL:-https://s3.amazonaws.com/images.cocodataset.org/annotations/annotations_trainval2014.zip}
SHA_ANN=${COCO2014_SHA256_ANNOTATIONS:-031296bbc80c45a1d1f76bf9a90ead27e94e99ec629208449507a4917a3bf009}

fetch() { # URL FILE
  if command -v curl >/dev/null; then curl -fsSL -o "$2" "$1"; else wget -q -O "$2" "$1"; fi
}
# sum KIND FILE: md5, sha256 or git blob id of FILE
sum() {
  case $1 in
    md5) md5sum "$2" | cut -d' ' -f1 ;;
    sha256) sha256sum "$2" | cut -d' ' -f1 ;;
    *) git_blob "$2" ;;
  esac
}
# git_blob FILE: the git blob id of FILE (sha1 of "blob SIZE\0" + bytes)
git_blob() { { printf 'blob %s\0' "$(wc -c <"$1" | tr -d ' ')"; cat "$1"; } | sha1sum | cut -d' ' -f1; }
get() { # URL DEST KIND SUM
  local url=$1 dest=$2 kind=$3 want=$4 got
  mkdir -p "$(dirname "$dest")"
  if [ -f "$dest" ]; then
    got=$(sum "$kind" "$dest")
    if [ "$got" = "$want" ]; then echo "coco2014: $dest present and checked"; return; fi
  fi
  echo "coco2014: fetching $url"
  fetch "$url" "$dest.part" || { rm -f "$dest.part"; die "download of $url failed"; }
  got=$(sum "$kind" "$dest.part")
  if [ "$got" != "$want" ]; then
    rm -f "$dest.part"
    die "$url: $kind $got, want $want (file deleted)"
  fi
  mv "$dest.part" "$dest"
}
get "$BASE/coco2014/captions/captions_source.tsv" "$DIR/captions/captions_source.tsv" md5 "$MD5_SOURCE"
get "$BASE/tools/latents.npy" "$DIR/latents/latents.npy" md5 "$MD5_LATENTS"
get "$BASE/tools/val2014.npz" "$DIR/statistics/val2014.npz" blob "$BLOB_STATS"
if [ -n "$FROM_ANN" ]; then
  MLPERF=${MLPERF:-}
  if [ -z "$MLPERF" ]; then
    if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
  fi
  get "$ANN_URL" "$DIR/download_aux/annotations_trainval2014.zip" sha256 "$SHA_ANN"
  rm -rf "$DIR/download_aux/selection"
  "$MLPERF" dataset preprocess coco2014 --data "$DIR/download_aux/annotations_trainval2014.zip" \
    -o "$DIR/download_aux/selection" --count "$MAX" || die "selection from the annotations failed"
  mv "$DIR/download_aux/selection/captions/captions.tsv" "$DIR/captions/captions.tsv"
  rm -rf "$DIR/download_aux"
  if [ "$MAX" -ge "$(($(wc -l <"$DIR/captions/captions_source.tsv") - 1))" ]; then
    if cmp -s "$DIR/captions/captions.tsv" "$DIR/captions/captions_source.tsv"; then
      echo "coco2014: the regenerated captions.tsv equals the reference's captions_source.tsv"
    else
      die "the regenerated captions.tsv differs from the reference's captions_source.tsv"
    fi
  fi
else
  head -n $((MAX + 1)) "$DIR/captions/captions_source.tsv" >"$DIR/captions/captions.tsv"
fi
echo "coco2014: $DIR ready ($(($(wc -l <"$DIR/captions/captions.tsv") - 1)) captions)"
