#!/usr/bin/env bash
# Downloads the official MLPerf ResNet50-v1.5 model and checks it against
# its published MD5. A file that does not match is deleted and the script
# fails; nothing partial is ever left under the final name.
#
# Usage: download_model.sh [-d DIR] [-f FORMAT]
#   -d  destination folder (default: ./models, or $MODEL_DIR)
#   -f  which file (default: onnx)
#         onnx        resnet50_v1.onnx, ONNX opset 11 (zenodo record 4735647)
#         onnx-opset8 resnet50_v1.onnx, ONNX opset 8  (zenodo record 2592612)
#         tf          resnet50_v1.pb, TensorFlow frozen graph (zenodo 2535873)
#   Both ONNX files take input_tensor:0 [N,3,224,224] and give ArgMax:0;
#   run them with: mlperf run resnet50 --model DIR/resnet50_v1.onnx
# Environment (for mirrors and tests): RESNET50_BASE_URL replaces
# https://zenodo.org; RESNET50_MODEL_MD5 replaces the expected MD5.
set -euo pipefail

MODEL_DIR=${MODEL_DIR:-./models}
FORMAT=onnx
BASE=${RESNET50_BASE_URL:-https://zenodo.org}
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

# Published URLs and MD5s (MLCommons inference README; MD5s as in
# mlcommons/mlperf-automations get-ml-model-resnet50).
case $FORMAT in
  onnx)        PATH_URL=/record/4735647/files/resnet50_v1.onnx; MD5=f6a4da60cd5f084d97efc2c1ddb10beb ;;
  onnx-opset8) PATH_URL=/record/2592612/files/resnet50_v1.onnx; MD5=a638cf028b5870da29e09ccc2f7182e7 ;;
  tf)          PATH_URL=/record/2535873/files/resnet50_v1.pb;   MD5=7b94a2da05dd30f6c0af23a46bc08886 ;;
  *) die "unknown format '$FORMAT'; want onnx, onnx-opset8 or tf" ;;
esac
MD5=${RESNET50_MODEL_MD5:-$MD5}
URL=$BASE$PATH_URL
OUT=$MODEL_DIR/${PATH_URL##*/}

HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../scripts/fetch-checked.sh" download_model "$URL" "$OUT" "$MD5"
