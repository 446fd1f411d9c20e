#!/usr/bin/env bash
# Verifies a SQuAD v1.1 file: its MD5 against the official dev-v1.1.json and
# that it parses as version 1.1 (through `mlperf dataset verify squad`).
# Usage: verify_dataset.sh [FILE]   (default build/data/dev-v1.1.json;
# MLPERF overrides the mlperf binary, default bin/mlperf or mlperf on PATH)
set -euo pipefail
FILE=${1:-build/data/dev-v1.1.json}
MD5=3e85deb501d4e538b6bc56f786231552
if [ ! -f "$FILE" ]; then
  echo "squad: $FILE not found; run datasets/squad/download_dataset.sh first" >&2
  exit 1
fi
got=$(md5sum "$FILE" | cut -d' ' -f1)
if [ "$got" = "$MD5" ]; then
  echo "squad: $FILE md5 ok ($MD5)"
else
  echo "squad: $FILE md5 $got is not the official dev-v1.1.json ($MD5)" >&2
fi
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
if command -v "$MLPERF" >/dev/null; then
  "$MLPERF" dataset verify squad --data "$FILE" ${SQUAD_REQUIRE_OFFICIAL:+--official}
fi
[ "$got" = "$MD5" ] || [ -z "${SQUAD_REQUIRE_OFFICIAL:-}" ]
