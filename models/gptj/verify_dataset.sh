#!/usr/bin/env bash
# Verifies the GPT-J data set: cnn_eval.json's format and 13368 records
# (datasets/cnndm/verify_dataset.sh), and, with the GPT-2 tokenizer, how
# many prompts the reference cuts at 1919 tokens.
# Usage: verify_dataset.sh [FILE [TOKENIZER_DIR]]
#   FILE           default build/data/cnn_eval.json
#   TOKENIZER_DIR  default: where the mlperf binary finds gptj/encoder.json
#                  (`mlperf deps`: $MLPERF_DEPS, a clone's .deps, the
#                  per-user folder `make setup` fills)
# MLPERF overrides the mlperf binary (default bin/mlperf, else the clone's
# bin/mlperf beside this script, else mlperf on PATH); CNNDM_MD5 pins the
# file; CNNDM_ALLOW_PARTIAL=1 accepts another count.
set -euo pipefail
FILE=${1:-build/data/cnn_eval.json}
HERE=$(cd "$(dirname "$0")" && pwd)
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf
  elif [ -x "$HERE/../../bin/mlperf" ]; then MLPERF=$HERE/../../bin/mlperf
  else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || { echo "verify_dataset: no mlperf binary; run 'make build' or set MLPERF" >&2; exit 1; }
if [ -n "${2:-}" ]; then
  TOK=$2
  [ -f "$TOK/encoder.json" ] || { echo "verify_dataset: GPT-2 tokenizer not found in $TOK (no encoder.json); run 'make setup' or give its folder as the second argument" >&2; exit 1; }
else
  enc=$("$MLPERF" deps gptj/encoder.json) || { echo "verify_dataset: GPT-2 tokenizer not installed (above: where mlperf looked); run 'make setup' or give its folder as the second argument" >&2; exit 1; }
  TOK=$(dirname "$enc")
fi
bash "$HERE/../../datasets/cnndm/verify_dataset.sh" "$FILE"
[ -d "$FILE" ] && FILE="$FILE/cnn_eval.json"
"$MLPERF" dataset verify cnndm --data "$FILE" --tokenizer "$TOK" ${CNNDM_ALLOW_PARTIAL:+--partial}
