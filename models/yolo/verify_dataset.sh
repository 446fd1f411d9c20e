#!/usr/bin/env bash
# Verifies a YOLO data set folder as download_dataset.sh leaves it:
# annotations/instances_val2017.json must exist and list the 1525 safe
# images (unless -n says otherwise), and every listed image must be under
# val2017_safe. Decoding every image (and comparing its size with the
# file) and checking the annotations' categories is what
# `mlperf dataset verify coco2017 --data DIR` adds; this script runs it
# when an mlperf binary is found.
#
# Usage: verify_dataset.sh [-d DATA_DIR] [-n EXPECTED_COUNT]
#   -d  dataset folder (default: build/data/coco2017, or $DATA_DIR)
#   -n  expected number of listed images (default 1525; 0 skips the check)
# Environment: MLPERF_BIN, the mlperf binary (default: bin/mlperf from the
# repository root, else mlperf on PATH; none: presence checks only).
# Exit status: 0 when everything checks out, 1 otherwise.
set -euo pipefail

DATA_DIR=${DATA_DIR:-build/data/coco2017}
EXPECT=1525
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:n:h" opt; do
  case $opt in
    d) DATA_DIR=$OPTARG ;;
    n) EXPECT=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $EXPECT in ''|*[!0-9]*) echo "verify_dataset: -n $EXPECT: want a number of images" >&2; exit 2 ;; esac

ANN="$DATA_DIR/annotations/instances_val2017.json"
if [ ! -f "$ANN" ]; then
  echo "verify_dataset: $ANN not found; make the data set with download_dataset.sh (or mlperf dataset synth coco2017)" >&2
  exit 1
fi

status=0
# The images' file names, one per line (the only objects with a file_name
# key are the images).
names=$(grep -o '"file_name": *"[^"]*"' "$ANN" | sed 's/.*"\([^"]*\)"$/\1/') || true
listed=0
missing=0
while read -r name; do
  [ -n "$name" ] || continue
  listed=$((listed + 1))
  if [ ! -f "$DATA_DIR/val2017_safe/$name" ]; then
    missing=$((missing + 1))
    [ $missing -le 10 ] && echo "missing: $DATA_DIR/val2017_safe/$name" >&2
  fi
done <<< "$names"

echo "instances_val2017.json: $listed images listed, $((listed - missing)) present, $missing missing"
[ $missing -eq 0 ] || status=1
if [ "$EXPECT" != 0 ] && [ "$listed" -ne "$EXPECT" ]; then
  echo "verify_dataset: $listed images listed, the safe subset has $EXPECT" >&2
  status=1
fi

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${MLPERF_BIN:-}
if [ -z "$BIN" ]; then
  if [ -x "$ROOT/bin/mlperf" ]; then BIN=$ROOT/bin/mlperf; elif command -v mlperf >/dev/null; then BIN=$(command -v mlperf); fi
fi
if [ -n "$BIN" ] && [ $status -eq 0 ]; then
  "$BIN" dataset verify coco2017 --data "$DATA_DIR" -n "$EXPECT" || status=1
elif [ -z "$BIN" ]; then
  echo "verify_dataset: no mlperf binary (make build, or MLPERF_BIN); images were not decoded"
fi

if [ $status -eq 0 ]; then echo "OK"; else echo "FAILED" >&2; fi
exit $status
