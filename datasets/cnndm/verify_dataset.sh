#!/usr/bin/env bash
# Verifies cnn_eval.json with `mlperf dataset verify cnndm`: a JSON array of
# {instruction, input, output} strings, every instruction the reference's,
# 13368 records (the validation split). No official checksum exists; set
# CNNDM_MD5 to pin the file you downloaded.
# Usage: verify_dataset.sh [FILE]   (default build/data/cnn_eval.json;
# MLPERF overrides the mlperf binary, default bin/mlperf or mlperf on PATH;
# CNNDM_ALLOW_PARTIAL=1 accepts another record count)
set -euo pipefail
FILE=${1:-build/data/cnn_eval.json}
[ -d "$FILE" ] && FILE="$FILE/cnn_eval.json"
if [ ! -f "$FILE" ]; then
  echo "cnndm: $FILE not found; run datasets/cnndm/download_dataset.sh first (or mlperf dataset synth cnndm)" >&2
  exit 1
fi
if [ -n "${CNNDM_MD5:-}" ]; then
  got=$(md5sum "$FILE" | cut -d' ' -f1)
  if [ "$got" != "$CNNDM_MD5" ]; then
    echo "cnndm: $FILE md5 $got, want $CNNDM_MD5" >&2
    exit 1
  fi
  echo "cnndm: $FILE md5 ok ($got)"
fi
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || { echo "cnndm: no mlperf binary; run 'make build' or set MLPERF" >&2; exit 1; }
exec "$MLPERF" dataset verify cnndm --data "$FILE" ${CNNDM_ALLOW_PARTIAL:+--partial}
