#!/usr/bin/env bash
# scripts/device/receive.sh: on the device machine, moves the chunks a call
# carried (.gpu-stage/c*/part-NN, from stage.sh) out of the repository into
# $MLPERF_GPU_STAGE (default /tmp/mlperf-gpu-stage), where they stay while
# the machine is held, and says how many of the payload's parts are there.
set -euo pipefail
cd "$(dirname "$0")/../.."
DEST=${MLPERF_GPU_STAGE:-/tmp/mlperf-gpu-stage}
mkdir -p "$DEST"
got=0
for d in .gpu-stage/c*/; do
  [ -d "$d" ] || continue
  for p in "$d"part-*; do
    [ -f "$p" ] || continue
    mv -f "$p" "$DEST/"
    got=$((got + 1))
  done
  cp -f "$d/MANIFEST" "$DEST/MANIFEST"
done
[ -f "$DEST/MANIFEST" ] || { echo "receive: no chunk carried (call with carry [\".gpu-stage/cK\"]) and none received before" >&2; exit 1; }
want=$(awk '$1 == "parts" {print $2}' "$DEST/MANIFEST")
have=$(find "$DEST" -maxdepth 1 -name 'part-*' | wc -l)
echo "receive: $got chunk(s) this call; $have of $want parts in $DEST ($(du -sm "$DEST" | cut -f1) MiB)"
