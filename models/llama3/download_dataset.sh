#!/usr/bin/env bash
# Downloads the Llama 3.1 8B data sets (CNN-DailyMail 3.0.0 validation,
# tokenized for Llama 3.1) from the MLCommons R2 bucket, as the reference
# README (mlcommons/inference language/llama3.1-8b) does with
#   bash <(curl -s https://raw.githubusercontent.com/mlcommons/r2-downloader/refs/heads/main/mlc-r2-downloader.sh) \
#     https://inference.mlcommons-storage.org/metadata/llama3-1-8b-cnn-eval.uri
# Every file is checked against the MD5 list published beside its metadata
# (no checksum is published anywhere else); a mismatch deletes it and fails.
#
# Usage: download_dataset.sh [-d DIR] [SET...]
#   -d   destination folder (default build/data/llama3.1-8b)
#   SET  datacenter   cnn_eval.json, 13368 samples (llama3_1-8b, -interactive)
#        edge         sample_cnn_eval_5000.json, 5000 samples (llama3_1-8b-edge)
#        calibration  cnn_dailymail_calibration.json
#        (default: datacenter edge)
# Environment: LLAMA3_METADATA_BASE replaces
# https://inference.mlcommons-storage.org/metadata (mirrors, tests);
# MLC_R2_TOKEN gives a Cloudflare Access token (see scripts/mlc-r2-download.sh).
# Check a file afterwards with verify_dataset.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/data/llama3.1-8b
BASE=${LLAMA3_METADATA_BASE:-https://inference.mlcommons-storage.org/metadata}
die() { echo "llama3: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:h" opt; do
  case $opt in
    d) DIR=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- datacenter edge
for set in "$@"; do
  case $set in
    datacenter) name=llama3-1-8b-cnn-eval file=cnn_eval.json ;;
    edge) name=llama3-1-8b-sample-cnn-eval-5000 file=sample_cnn_eval_5000.json ;;
    calibration) name=llama3-1-8b-cnn-dailymail-calibration file=cnn_dailymail_calibration.json ;;
    *) die "unknown data set '$set' (want datacenter, edge or calibration)" ;;
  esac
  bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$BASE/$name.uri"
  [ -f "$DIR/$file" ] || die "$BASE/$name.uri brought no $file into $DIR"
  echo "llama3: $DIR/$file"
done
