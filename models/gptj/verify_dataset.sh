#!/usr/bin/env bash
# Verifies the GPT-J data set: cnn_eval.json's format and 13368 records
# (datasets/cnndm/verify_dataset.sh), and, with the GPT-2 tokenizer, how
# many prompts the reference cuts at 1919 tokens.
# Usage: verify_dataset.sh [FILE [TOKENIZER_DIR]]
#   FILE           default build/data/cnn_eval.json
#   TOKENIZER_DIR  default $MLPERF_DEPS/gptj (encoder.json, vocab.bpe; make setup)
# MLPERF overrides the mlperf binary (default bin/mlperf, else mlperf on
# PATH); CNNDM_MD5 pins the file; CNNDM_ALLOW_PARTIAL=1 accepts another count.
set -euo pipefail
FILE=${1:-build/data/cnn_eval.json}
TOK=${2:-${MLPERF_DEPS:-.deps}/gptj}
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$TOK/encoder.json" ] || { echo "verify_dataset: GPT-2 tokenizer not found in $TOK; run 'make setup' or give it as the second argument" >&2; exit 1; }
bash "$HERE/../../datasets/cnndm/verify_dataset.sh" "$FILE"
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
[ -d "$FILE" ] && FILE="$FILE/cnn_eval.json"
"$MLPERF" dataset verify cnndm --data "$FILE" --tokenizer "$TOK" ${CNNDM_ALLOW_PARTIAL:+--partial}
