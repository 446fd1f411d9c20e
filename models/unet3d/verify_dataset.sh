#!/usr/bin/env bash
# Verifies a KiTS19 folder with `mlperf dataset verify kits19`: raw data
# (the 43 inference cases present, headers sane, case_00400 a copy of
# case_00185), or preprocessed data (every indexed case with the shape the
# index gives and its ground truth); the reference's pickles, where present,
# against their published MD5s.
#
# Usage: verify_dataset.sh [DIR]
#   DIR  default build/preprocessed_data
# MLPERF overrides the mlperf binary (default bin/mlperf, else mlperf on PATH).
set -euo pipefail
DIR=${1:-build/preprocessed_data}
[ -d "$DIR" ] || { echo "verify_dataset: $DIR not found; download it with models/unet3d/download_dataset.sh (then mlperf dataset preprocess kits19)" >&2; exit 1; }
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || { echo "verify_dataset: no mlperf binary; run 'make build' or set MLPERF" >&2; exit 1; }
exec "$MLPERF" dataset verify kits19 --data "$DIR"
