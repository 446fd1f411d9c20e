#!/usr/bin/env bash
# Verifies the gpt-oss-120b data sets with `mlperf dataset verify
# gpt-oss-120b` (the columns, the Harmony frame of every prompt, ids inside
# o200k_harmony, each prompt rebuilt from its question at the set's
# reasoning effort) after the MD5 list the downloader keeps beside them.
# Usage: verify_dataset.sh [DIR] [mlperf dataset verify flags...]
#   (default build/data/gpt-oss-120b; MLPERF overrides the mlperf binary,
#   default bin/mlperf or mlperf on PATH)
set -euo pipefail
DIR=${1:-build/data/gpt-oss-120b}
[ $# -gt 0 ] && shift
[ -d "$DIR" ] || { echo "gpt-oss-120b: $DIR not found; run models/gptoss/download_dataset.sh first (or mlperf dataset synth gpt-oss-120b -o $DIR)" >&2; exit 1; }
for list in "$DIR"/*.md5; do
  [ -f "$list" ] || continue
  (cd "$DIR" && md5sum -c --quiet "$(basename "$list")") || { echo "gpt-oss-120b: files in $DIR do not match $list" >&2; exit 1; }
  echo "gpt-oss-120b: md5 ok ($list)"
done
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || { echo "gpt-oss-120b: no mlperf binary; run 'make build' or set MLPERF" >&2; exit 1; }
for set in acc perf gpqa-compliance; do
  "$MLPERF" dataset verify gpt-oss-120b --data "$DIR" --eval-set "$set" "$@"
done
