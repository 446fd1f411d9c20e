#!/usr/bin/env bash
# Verifies an OpenImages MLPerf data set folder as download_dataset.sh
# leaves it: annotations/openimages-mlperf.json must exist and list the
# 24781 images of the MLPerf subset (unless -n says otherwise), every
# listed image must be under validation/data, and the released annotation
# archive, when it lies beside the file, must have its published MD5.
# Decoding every image (and comparing its size with the file) is what
# `mlperf dataset verify openimages --data DIR` adds; this script runs it
# when an mlperf binary is found.
#
# Usage: verify_dataset.sh [-d DATA_DIR] [-n EXPECTED_COUNT]
#   -d  dataset folder (default: ./open-images-v6-mlperf, or $DATA_DIR)
#   -n  expected number of listed images (default 24781; 0 skips the check)
# Environment: MLPERF_BIN, the mlperf binary (default: bin/mlperf from the
# repository root, else mlperf on PATH; none: presence checks only).
# Exit status: 0 when everything checks out, 1 otherwise.
set -euo pipefail

DATA_DIR=${DATA_DIR:-./open-images-v6-mlperf}
EXPECT=24781
ZIP_MD5=817fd8da3aeeb0575f1e2d2926b15e68
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:n:h" opt; do
  case $opt in
    d) DATA_DIR=$OPTARG ;;
    n) EXPECT=$OPTARG ;;
    *) usage ;;
  esac
done

ANN="$DATA_DIR/annotations/openimages-mlperf.json"
if [ ! -f "$ANN" ]; then
  echo "verify_dataset: $ANN not found; prepare the data set with download_dataset.sh (or mlperf dataset synth openimages)" >&2
  exit 1
fi

status=0
# The images' file names, one per line, from the images array (the only
# objects with a file_name key).
names=$(grep -o '"file_name": *"[^"]*"' "$ANN" | sed 's/.*"\([^"]*\)"$/\1/') || true
listed=0
missing=0
while read -r name; do
  [ -n "$name" ] || continue
  listed=$((listed + 1))
  if [ ! -f "$DATA_DIR/validation/data/$name" ]; then
    missing=$((missing + 1))
    [ $missing -le 10 ] && echo "missing: $DATA_DIR/validation/data/$name" >&2
  fi
done <<< "$names"

echo "openimages-mlperf.json: $listed images listed, $((listed - missing)) present, $missing missing"
[ $missing -eq 0 ] || status=1
if [ "$EXPECT" != 0 ] && [ "$listed" -ne "$EXPECT" ]; then
  echo "verify_dataset: $listed images listed, the MLPerf subset has $EXPECT" >&2
  status=1
fi

ZIP="$DATA_DIR/annotations/openimages-mlperf_annotations_2.1.json.zip"
if [ -f "$ZIP" ]; then
  got=$(md5sum "$ZIP" | cut -d' ' -f1)
  if [ "$got" = "$ZIP_MD5" ]; then
    echo "annotations: $(basename "$ZIP") MD5 $got matches the release"
  else
    echo "verify_dataset: $ZIP has MD5 $got, want $ZIP_MD5; download it again" >&2
    status=1
  fi
fi

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${MLPERF_BIN:-}
if [ -z "$BIN" ]; then
  if [ -x "$ROOT/bin/mlperf" ]; then BIN=$ROOT/bin/mlperf; elif command -v mlperf >/dev/null; then BIN=$(command -v mlperf); fi
fi
if [ -n "$BIN" ] && [ $status -eq 0 ]; then
  "$BIN" dataset verify openimages --data "$DATA_DIR" -n "$EXPECT" || status=1
elif [ -z "$BIN" ]; then
  echo "verify_dataset: no mlperf binary (make build, or MLPERF_BIN); images were not decoded"
fi

if [ $status -eq 0 ]; then echo "OK"; else echo "FAILED" >&2; fi
exit $status
