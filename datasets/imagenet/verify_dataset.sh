#!/usr/bin/env bash
# Verifies an ImageNet validation folder prepared by download_dataset.sh (or
# any folder with a val_map.txt): every listed image must be present, and
# when DATA_DIR/imagenet_val.md5 exists (written by download_dataset.sh
# from the checksum-verified tar) every image must still match its MD5.
#
# Usage: verify_dataset.sh [-d DATA_DIR] [-n EXPECTED_COUNT]
#   -d  dataset folder (default: ./imagenet, or $DATA_DIR)
#   -n  expected number of listed images (default 50000; 0 skips the check)
# Exit status: 0 when everything checks out, 1 otherwise.
set -euo pipefail

DATA_DIR=${DATA_DIR:-./imagenet}
EXPECT=50000
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:n:h" opt; do
  case $opt in
    d) DATA_DIR=$OPTARG ;;
    n) EXPECT=$OPTARG ;;
    *) usage ;;
  esac
done

MAP="$DATA_DIR/val_map.txt"
if [ ! -f "$MAP" ]; then
  echo "verify_dataset: $MAP not found; prepare the data set with download_dataset.sh (or mlperf dataset synth imagenet)" >&2
  exit 1
fi

status=0
listed=0
missing=0
while read -r path label rest; do
  [ -n "${path:-}" ] || continue
  listed=$((listed + 1))
  if [ -z "${label:-}" ] || [ -n "${rest:-}" ]; then
    echo "verify_dataset: malformed line $listed of $MAP: $path ${label:-} ${rest:-}" >&2
    status=1
    continue
  fi
  if [ ! -f "$DATA_DIR/$path" ]; then
    missing=$((missing + 1))
    [ $missing -le 10 ] && echo "missing: $DATA_DIR/$path" >&2
  fi
done < "$MAP"

echo "val_map.txt: $listed images listed, $((listed - missing)) present, $missing missing"
[ $missing -eq 0 ] || status=1
if [ "$EXPECT" != 0 ] && [ "$listed" -ne "$EXPECT" ]; then
  echo "verify_dataset: $listed images listed, the full validation set has $EXPECT" >&2
  status=1
fi

SUMS="$DATA_DIR/imagenet_val.md5"
if [ -f "$SUMS" ]; then
  command -v md5sum >/dev/null || { echo "verify_dataset: md5sum not found" >&2; exit 1; }
  total=$(wc -l < "$SUMS")
  if bad=$(cd "$DATA_DIR" && md5sum --quiet -c imagenet_val.md5 2>&1); then
    echo "checksums: $total files match imagenet_val.md5"
  else
    nbad=$(printf '%s\n' "$bad" | grep -c ': FAILED' || true)
    printf '%s\n' "$bad" | head -10 >&2
    echo "checksums: $nbad of $total files differ from imagenet_val.md5 or are missing" >&2
    status=1
  fi
else
  echo "checksums: no imagenet_val.md5 in $DATA_DIR (written by download_dataset.sh); presence checked only"
fi

if [ $status -eq 0 ]; then echo "OK"; else echo "FAILED" >&2; fi
exit $status
