#!/usr/bin/env bash
# Verifies the OpenOrca data set of Llama 2 70B: the downloaded files
# against the MD5 list that download_dataset.sh kept
# (llama-2-70b-open-orca-dataset.md5), then the converted parquet with
# `mlperf dataset verify openorca` (columns, tok_input ending in 29871 and
# under 1024 ids, length columns, origins; --official when
# OPENORCA_REQUIRE_OFFICIAL=1: 24576 rows, 6144 per origin).
#
# Usage: verify_dataset.sh [FILE]
#   FILE  the parquet (default build/data/open-orca/open_orca_gpt4_tokenized_llama.sampled_24576.parquet);
#         the MD5 list is looked for in its folder.
# MLPERF overrides the mlperf binary (default bin/mlperf, else mlperf on PATH).
set -euo pipefail
FILE=${1:-build/data/open-orca/open_orca_gpt4_tokenized_llama.sampled_24576.parquet}
DIR=$(dirname "$FILE")
if [ ! -f "$FILE" ]; then
  echo "openorca: $FILE not found; run download_dataset.sh and convert the pickle to parquet (see datasets/openorca/README.md)" >&2
  exit 1
fi
LIST=$DIR/llama-2-70b-open-orca-dataset.md5
if [ -f "$LIST" ]; then
  (cd "$DIR" && md5sum -c --quiet "$(basename "$LIST")") || { echo "openorca: downloaded files do not match $LIST" >&2; exit 1; }
  echo "openorca: downloaded files match $LIST"
else
  echo "openorca: no $LIST: the downloaded pickles are not checked"
fi
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || { echo "openorca: no mlperf binary; run 'make build' or set MLPERF" >&2; exit 1; }
"$MLPERF" dataset verify openorca --data "$FILE" ${OPENORCA_REQUIRE_OFFICIAL:+--official}
