#!/usr/bin/env bash
# Downloads the DeepSeek-R1 data sets (the 4388-prompt evaluation set and
# the 500-prompt calibration set, pandas pickles) from the MLCommons R2
# bucket, as the reference README (mlcommons/inference language/deepseek-r1)
# does with
#   bash <(curl -s https://raw.githubusercontent.com/mlcommons/r2-downloader/refs/heads/main/mlc-r2-downloader.sh) \
#     -d ./ https://inference.mlcommons-storage.org/metadata/deepseek-r1-datasets-fp8-eval.uri
# Every file is checked against the MD5 list published beside the
# metadata (no checksum is published anywhere else); a mismatch deletes it
# and fails.
#
# Usage: download_dataset.sh [-d DIR]
#   -d   destination folder (default build/data/deepseek-r1)
# Environment: DEEPSEEK_R1_METADATA_BASE replaces
# https://inference.mlcommons-storage.org/metadata (mirrors, tests);
# MLC_R2_TOKEN gives a Cloudflare Access token (see scripts/mlc-r2-download.sh).
# Check the file afterwards with verify_dataset.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/data/deepseek-r1
BASE=${DEEPSEEK_R1_METADATA_BASE:-https://inference.mlcommons-storage.org/metadata}
FILE=mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl
die() { echo "deepseek-r1: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:h" opt; do
  case $opt in
    d) DIR=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$BASE/deepseek-r1-datasets-fp8-eval.uri"
[ -f "$DIR/$FILE" ] || die "$BASE/deepseek-r1-datasets-fp8-eval.uri brought no $FILE into $DIR"
echo "deepseek-r1: $DIR/$FILE"
