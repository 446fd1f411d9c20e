#!/usr/bin/env bash
# Verifies the MLPerf Whisper data set with `mlperf dataset verify
# librispeech`: the manifest read as the reference's Manifest does, every
# clip decoded (16 kHz mono 16-bit, at most 30 s, the sample count of its
# entry), every transcript non-empty; with LIBRISPEECH_REQUIRE_OFFICIAL=1
# also the official count (1,633 clips), else any count.
#
# Usage: verify_dataset.sh [DIR]   (default build/data/librispeech)
# MLPERF overrides the mlperf binary (default bin/mlperf, else mlperf on PATH).
set -euo pipefail
DIR=${1:-build/data/librispeech}
[ -f "$DIR/dev-all-repack.json" ] || { echo "librispeech: no $DIR/dev-all-repack.json; run datasets/librispeech/download_dataset.sh" >&2; exit 1; }
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || { echo "librispeech: no mlperf binary; run 'make build' or set MLPERF" >&2; exit 1; }
if [ -n "${LIBRISPEECH_REQUIRE_OFFICIAL:-}" ]; then
  "$MLPERF" dataset verify librispeech --data "$DIR"
else
  "$MLPERF" dataset verify librispeech --data "$DIR" -n 0
fi
