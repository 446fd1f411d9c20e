#!/usr/bin/env bash
# Downloads the gpt-oss-120b data sets (parquet: the accuracy set
# acc/acc_eval_inputs.parquet, the performance set perf/perf_eval_ref.parquet
# and TEST07's acc/acc_eval_compliance_gpqa.parquet) from the MLCommons R2
# bucket, as the reference's download (mlcommons/inference
# language/gpt-oss-120b README; mlcommons/mlperf-automations
# get-dataset-mlperf-inference-gpt-oss) does with
#   bash <(curl -s https://raw.githubusercontent.com/mlcommons/r2-downloader/refs/heads/main/mlc-r2-downloader.sh) \
#     https://inference.mlcommons-storage.org/metadata/gpt-oss-data.uri
# Every file is checked against the MD5 list published beside the
# metadata (no checksum is published anywhere else); a mismatch deletes it
# and fails.
#
# Usage: download_dataset.sh [-d DIR]
#   -d   destination folder (default build/data/gpt-oss-120b); give it to
#        mlperf run gpt-oss-120b --data
# Environment: GPTOSS_METADATA_BASE replaces
# https://inference.mlcommons-storage.org/metadata (mirrors, tests);
# MLC_R2_TOKEN gives a Cloudflare Access token (see scripts/mlc-r2-download.sh).
# Check the files afterwards with verify_dataset.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/data/gpt-oss-120b
BASE=${GPTOSS_METADATA_BASE:-https://inference.mlcommons-storage.org/metadata}
die() { echo "gpt-oss-120b: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:h" opt; do
  case $opt in
    d) DIR=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$BASE/gpt-oss-data.uri"
for f in acc/acc_eval_inputs.parquet perf/perf_eval_ref.parquet acc/acc_eval_compliance_gpqa.parquet; do
  if [ -f "$DIR/$f" ]; then
    echo "gpt-oss-120b: $DIR/$f"
  else
    missing="${missing:-} $f"
  fi
done
[ -z "${missing:-}" ] || die "$BASE/gpt-oss-data.uri brought no$missing into $DIR (it has: $(cd "$DIR" && find . -type f ! -name '*.md5' | sort | tr '\n' ' '))"
