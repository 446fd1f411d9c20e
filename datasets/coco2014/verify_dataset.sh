#!/usr/bin/env bash
# Verifies the SDXL data set folder download_dataset.sh writes:
# captions_source.tsv and latents.npy against the reference's MD5s,
# captions.tsv with 5000 captions (COCO2014_ALLOW_SUBSET=1: fewer is
# allowed, each row equal to the source's), and val2014.npz present.
#
# Usage: verify_dataset.sh [DIR]   (default build/data/coco2014)
set -euo pipefail
DIR=${1:-build/data/coco2014}
bad=
check_md5() { # FILE MD5
  if [ ! -f "$1" ]; then echo "FAIL  $1 missing"; bad=1; return; fi
  local got
  got=$(md5sum "$1" | cut -d' ' -f1)
  if [ "$got" = "$2" ]; then echo "OK    $1 md5 $got"; else echo "FAIL  $1 md5 $got, want $2"; bad=1; fi
}
check_md5 "$DIR/captions/captions_source.tsv" 24ba91c1e0fc04e70895385b4a57dca1
check_md5 "$DIR/latents/latents.npy" e3ca8d78fda4f6001ef1dd2dea77ab05
if [ -f "$DIR/captions/captions.tsv" ]; then
  n=$(($(wc -l <"$DIR/captions/captions.tsv") - 1))
  if [ "$n" = 5000 ]; then
    echo "OK    $DIR/captions/captions.tsv: 5000 captions"
  elif [ "${COCO2014_ALLOW_SUBSET:-}" = 1 ] && cmp -s "$DIR/captions/captions.tsv" <(head -n $((n + 1)) "$DIR/captions/captions_source.tsv"); then
    echo "OK    $DIR/captions/captions.tsv: the first $n captions (subset allowed)"
  else
    echo "FAIL  $DIR/captions/captions.tsv: $n captions, want 5000"; bad=1
  fi
else
  echo "FAIL  $DIR/captions/captions.tsv missing"; bad=1
fi
if [ -s "$DIR/statistics/val2014.npz" ]; then echo "OK    $DIR/statistics/val2014.npz present"; else echo "FAIL  $DIR/statistics/val2014.npz missing"; bad=1; fi
[ -z "$bad" ] || { echo "coco2014: $DIR is not the reference data set" >&2; exit 1; }
echo "coco2014: $DIR verified"
