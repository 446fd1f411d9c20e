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
# needed (FID uses the statistics). Regenerating the selection from
# annotations_trainval2014.zip (pandas' seed-2023 shuffle) is not done here.
#
# Usage: download_dataset.sh [-d DIR] [-m MAX]   (default build/data/coco2014, 5000)
# Environment (mirrors, tests): COCO2014_BASE_URL replaces
#   https://raw.githubusercontent.com/mlcommons/inference/master/text_to_image;
#   COCO2014_MD5_SOURCE, COCO2014_MD5_LATENTS, COCO2014_BLOB_STATS replace the
#   expected sums.
set -euo pipefail
DIR=build/data/coco2014
MAX=5000
die() { echo "coco2014: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:m:n:h" opt; do
  case $opt in
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

fetch() { # URL FILE
  if command -v curl >/dev/null; then curl -fsSL -o "$2" "$1"; else wget -q -O "$2" "$1"; fi
}
# git_blob FILE: the git blob id of FILE (sha1 of "blob SIZE\0" + bytes)
git_blob() { { printf 'blob %s\0' "$(wc -c <"$1" | tr -d ' ')"; cat "$1"; } | sha1sum | cut -d' ' -f1; }
get() { # URL DEST KIND SUM
  local url=$1 dest=$2 kind=$3 want=$4 got
  mkdir -p "$(dirname "$dest")"
  if [ -f "$dest" ]; then
    if [ "$kind" = md5 ]; then got=$(md5sum "$dest" | cut -d' ' -f1); else got=$(git_blob "$dest"); fi
    if [ "$got" = "$want" ]; then echo "coco2014: $dest present and checked"; return; fi
  fi
  echo "coco2014: fetching $url"
  fetch "$url" "$dest.part" || { rm -f "$dest.part"; die "download of $url failed"; }
  if [ "$kind" = md5 ]; then got=$(md5sum "$dest.part" | cut -d' ' -f1); else got=$(git_blob "$dest.part"); fi
  if [ "$got" != "$want" ]; then
    rm -f "$dest.part"
    die "$url: $kind $got, want $want (file deleted)"
  fi
  mv "$dest.part" "$dest"
}
get "$BASE/coco2014/captions/captions_source.tsv" "$DIR/captions/captions_source.tsv" md5 "$MD5_SOURCE"
get "$BASE/tools/latents.npy" "$DIR/latents/latents.npy" md5 "$MD5_LATENTS"
get "$BASE/tools/val2014.npz" "$DIR/statistics/val2014.npz" blob "$BLOB_STATS"
head -n $((MAX + 1)) "$DIR/captions/captions_source.tsv" >"$DIR/captions/captions.tsv"
echo "coco2014: $DIR ready ($(($(wc -l <"$DIR/captions/captions.tsv") - 1)) captions)"
