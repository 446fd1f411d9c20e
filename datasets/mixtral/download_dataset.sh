#!/usr/bin/env bash
# Downloads the Mixtral-8x7B data set of MLPerf Inference: the 15,000-row
# validation pickle and the 1,000-row calibration pickle, from the public
# URLs of the reference README (mlcommons/inference
# language/mixtral-8x7b/README.md, "Using wget"), each checked against its
# MD5 (the reference publishes none; these are the sums NVIDIA's MLPerf
# Inference v5.0 submission checks). A file that does not match is deleted
# and the script fails; nothing partial is ever left under the final name.
# (MLCommons members can also use the R2 downloader on
# https://inference.mlcommons-storage.org/metadata/mixtral-8x7b-validation-dataset.uri.)
#
# Usage: download_dataset.sh [DIR]   (default build/data/mixtral)
# Environment (mirrors and tests):
#   MIXTRAL_BASE_URL   replaces https://inference.mlcommons-storage.org
#   MIXTRAL_MD5, MIXTRAL_CALIBRATION_MD5   replace the expected MD5s
#   MIXTRAL_SKIP_CALIBRATION=1   downloads the validation file only
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${1:-build/data/mixtral}
BASE=${MIXTRAL_BASE_URL:-https://inference.mlcommons-storage.org}
BASE=${BASE%/}
VALIDATION=09292024_mixtral_15k_mintoken2_v1.pkl
VALIDATION_MD5=${MIXTRAL_MD5:-ded6c711288c9bbca02929855557b8c1}
CALIBRATION=2024.06.06_mixtral_15k_calibration_v4.pkl
CALIBRATION_MD5=${MIXTRAL_CALIBRATION_MD5:-75067c9fe5cb5baef216a4b124c61df1}

bash "$HERE/../../scripts/fetch-checked.sh" mixtral "$BASE/mixtral_8x7b/$VALIDATION" "$DIR/$VALIDATION" "$VALIDATION_MD5"
if [ "${MIXTRAL_SKIP_CALIBRATION:-0}" != 1 ]; then
  bash "$HERE/../../scripts/fetch-checked.sh" mixtral "$BASE/mixtral_8x7b%2F$CALIBRATION" "$DIR/$CALIBRATION" "$CALIBRATION_MD5"
fi
echo "mixtral: run it with --data $DIR/$VALIDATION"
