#!/usr/bin/env bash
# Verifies the DeepSeek-R1 data set file with `mlperf dataset verify
# deepseek-r1` (the columns, the chat template's ids around every prompt,
# ids inside the vocabulary, each tok_input rebuilt from text_input with
# DeepSeek-R1's template and tokenizer) after its MD5 list, when the list
# the downloader keeps (NAME.md5) lies beside it.
# Usage: verify_dataset.sh [FILE] [mlperf dataset verify flags...]
#   (default build/data/deepseek-r1/mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl;
#   MLPERF overrides the mlperf binary, default bin/mlperf or mlperf on PATH)
set -euo pipefail
FILE=${1:-build/data/deepseek-r1/mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl}
[ $# -gt 0 ] && shift
[ -f "$FILE" ] || { echo "deepseek-r1: $FILE not found; run models/deepseekr1/download_dataset.sh first (or mlperf dataset synth deepseek-r1)" >&2; exit 1; }
DIR=$(dirname "$FILE")
for list in "$DIR"/*.md5; do
  [ -f "$list" ] || continue
  want=$(awk -v f="$(basename "$FILE")" '{p=$2; sub(/^\.\//, "", p)} p==f {print $1}' "$list")
  [ -n "$want" ] || continue
  got=$(md5sum "$FILE" | cut -d' ' -f1)
  [ "$got" = "$want" ] || { echo "deepseek-r1: $FILE md5 $got, want $want (from $list)" >&2; exit 1; }
  echo "deepseek-r1: $FILE md5 ok ($got, $list)"
done
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || { echo "deepseek-r1: no mlperf binary; run 'make build' or set MLPERF" >&2; exit 1; }
exec "$MLPERF" dataset verify deepseek-r1 --data "$FILE" "$@"
