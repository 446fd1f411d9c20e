#!/usr/bin/env bash
# Verifies the BERT data set: dev-v1.1.json's MD5 and version
# (datasets/squad/verify_dataset.sh), then builds its features with the
# vocabulary and checks that the official file gives 10833 of them, the
# QSL size of the reference.
#
# Usage: verify_dataset.sh [FILE [VOCAB]]
#   FILE   default build/data/dev-v1.1.json
#   VOCAB  default: where the mlperf binary finds bert/vocab.txt (`mlperf
#          deps`: $MLPERF_DEPS, a clone's .deps, the per-user folder
#          `make setup` fills)
# MLPERF overrides the mlperf binary (default bin/mlperf, else the clone's
# bin/mlperf beside this script, else mlperf on PATH);
# SQUAD_REQUIRE_OFFICIAL=1 fails on any file but the official one.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
FILE=${1:-build/data/dev-v1.1.json}
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf
  elif [ -x "$HERE/../../bin/mlperf" ]; then MLPERF=$HERE/../../bin/mlperf
  else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || { echo "verify_dataset: no mlperf binary; run 'make build' or set MLPERF" >&2; exit 1; }
if [ -n "${2:-}" ]; then
  VOCAB=$2
  [ -f "$VOCAB" ] || { echo "verify_dataset: vocabulary $VOCAB not found; run 'make setup' or give it as the second argument" >&2; exit 1; }
else
  VOCAB=$("$MLPERF" deps bert/vocab.txt) || { echo "verify_dataset: BERT vocabulary not installed (above: where mlperf looked); run 'make setup' or give it as the second argument" >&2; exit 1; }
fi
bash "$HERE/../../datasets/squad/verify_dataset.sh" "$FILE"
"$MLPERF" dataset verify squad --data "$FILE" --features --vocab "$VOCAB" ${SQUAD_REQUIRE_OFFICIAL:+--official}
