#!/usr/bin/env bash
# Verifies a Llama 3.1 8B data set file with `mlperf dataset verify
# cnndm-llama3` (template, BOS, ids inside the vocabulary, each tok_input
# re-tokenized with the Llama 3.1 tokenizer) after its MD5 list, when the
# list the downloader keeps (NAME.md5) lies beside it.
# Usage: verify_dataset.sh [FILE]   (default build/data/llama3.1-8b/cnn_eval.json;
# MLPERF overrides the mlperf binary, default bin/mlperf or mlperf on PATH)
set -euo pipefail
FILE=${1:-build/data/llama3.1-8b/cnn_eval.json}
[ -f "$FILE" ] || { echo "llama3: $FILE not found; run models/llama3/download_dataset.sh first (or mlperf dataset synth cnndm-llama3)" >&2; exit 1; }
DIR=$(dirname "$FILE")
for list in "$DIR"/*.md5; do
  [ -f "$list" ] || continue
  want=$(awk -v f="$(basename "$FILE")" '{p=$2; sub(/^\.\//, "", p)} p==f {print $1}' "$list")
  [ -n "$want" ] || continue
  got=$(md5sum "$FILE" | cut -d' ' -f1)
  [ "$got" = "$want" ] || { echo "llama3: $FILE md5 $got, want $want (from $list)" >&2; exit 1; }
  echo "llama3: $FILE md5 ok ($got, $list)"
done
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || { echo "llama3: no mlperf binary; run 'make build' or set MLPERF" >&2; exit 1; }
exec "$MLPERF" dataset verify cnndm-llama3 --data "$FILE"
