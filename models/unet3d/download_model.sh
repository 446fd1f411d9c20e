#!/usr/bin/env bash
# Downloads the official MLPerf 3D-UNet (KiTS19) ONNX model and checks it
# against its published MD5. A file that does not match is deleted and the
# script fails; nothing partial is ever left under the final name.
#
# Usage: download_model.sh [-d DIR] [-f FORMAT]
#   -d  destination folder (default: ./models, or $MODEL_DIR)
#   -f  which file (default: dynbatch), both from zenodo record 5597155
#         dynbatch  3dunet_kits19_128x128x128_dynbatch.onnx, batch dynamic
#                   (MD5 82f0618fde78f9839e7c712274019b4a)
#         onnx      3dunet_kits19_128x128x128.onnx, batch fixed to 1 (no
#                   MD5 is published: the script prints the one it got)
#   Both take input [N,1,128,128,128] and give output [N,3,128,128,128];
#   run them with: mlperf run unet3d --model DIR/FILE --data PREPROCESSED
# Environment (for mirrors and tests): UNET3D_BASE_URL replaces
# https://zenodo.org; UNET3D_MODEL_MD5 replaces the expected MD5.
set -euo pipefail

MODEL_DIR=${MODEL_DIR:-./models}
FORMAT=dynbatch
BASE=${UNET3D_BASE_URL:-https://zenodo.org}
BASE=${BASE%/}

die() { echo "download_model: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

while getopts "d:f:h" opt; do
  case $opt in
    d) MODEL_DIR=$OPTARG ;;
    f) FORMAT=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

# URLs: mlcommons/inference vision/medical_imaging/3d-unet-kits19/Makefile;
# MD5: mlcommons/mlperf-automations get-ml-model-3d-unet-kits19.
case $FORMAT in
  dynbatch) FILE=3dunet_kits19_128x128x128_dynbatch.onnx; MD5=82f0618fde78f9839e7c712274019b4a ;;
  onnx)     FILE=3dunet_kits19_128x128x128.onnx; MD5= ;;
  *) die "unknown format '$FORMAT'; want dynbatch or onnx" ;;
esac
MD5=${UNET3D_MODEL_MD5:-$MD5}
URL=$BASE/record/5597155/files/$FILE
OUT=$MODEL_DIR/$FILE

HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../scripts/fetch-checked.sh" download_model "$URL?download=1" "$OUT" "$MD5"
