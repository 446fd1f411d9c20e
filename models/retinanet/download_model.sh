#!/usr/bin/env bash
# Downloads the official MLPerf RetinaNet model (ResNeXt50-32x4d FPN,
# trained on the OpenImages MLPerf subset) and checks it against its
# published MD5. A file that does not match is deleted and the script
# fails; nothing partial is ever left under the final name.
#
# Usage: download_model.sh [-d DIR] [-f FORMAT]
#   -d  destination folder (default: ./models, or $MODEL_DIR)
#   -f  which file (default: onnx)
#         onnx     resnext50_32x4d_fpn.onnx, fp32, input images [1,3,800,800],
#                  outputs boxes/scores/labels (zenodo record 6617879)
#         pytorch  resnext50_32x4d_fpn.pth, the pickled PyTorch model
#                  (zenodo record 6617981; not runnable by mlperf)
#   Run the ONNX file with: mlperf run retinanet --model DIR/resnext50_32x4d_fpn.onnx
# Environment (for mirrors and tests): RETINANET_BASE_URL replaces
# https://zenodo.org; RETINANET_MODEL_MD5 replaces the expected MD5.
set -euo pipefail

MODEL_DIR=${MODEL_DIR:-./models}
FORMAT=onnx
BASE=${RETINANET_BASE_URL:-https://zenodo.org}
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

# Published URLs (mlcommons/inference vision/classification_and_detection
# README) and MD5s (mlcommons/mlperf-automations get-ml-model-retinanet).
case $FORMAT in
  onnx)    PATH_URL=/record/6617879/files/resnext50_32x4d_fpn.onnx; MD5=4544f4e56e0a4684215831cc937ea45c ;;
  pytorch) PATH_URL=/record/6617981/files/resnext50_32x4d_fpn.pth;  MD5=a55f6bec3464f605ce8d686da8ac1533 ;;
  *) die "unknown format '$FORMAT'; want onnx or pytorch" ;;
esac
MD5=${RETINANET_MODEL_MD5:-$MD5}
URL=$BASE$PATH_URL
OUT=$MODEL_DIR/${PATH_URL##*/}

HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../scripts/fetch-checked.sh" download_model "$URL" "$OUT" "$MD5"
