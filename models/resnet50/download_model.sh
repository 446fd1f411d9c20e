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

command -v md5sum >/dev/null || die "md5sum not found; install coreutils"
md5_of() { md5sum "$1" | cut -d' ' -f1; }

if [ -f "$OUT" ]; then
  if [ "$(md5_of "$OUT")" = "$MD5" ]; then
    echo "download_model: $OUT already present, MD5 $MD5 OK"
    exit 0
  fi
  die "$OUT exists but its MD5 is not $MD5; delete it and run again"
fi

mkdir -p "$MODEL_DIR"
PART=$OUT.part.$$
trap 'rm -f "$PART"' EXIT
echo "download_model: $URL -> $OUT"
if command -v curl >/dev/null; then
  curl -fL --retry 3 -o "$PART" "$URL" || die "download of $URL failed"
elif command -v wget >/dev/null; then
  wget -q -O "$PART" "$URL" || die "download of $URL failed"
else
  die "neither curl nor wget found; install one (apt-get install curl)"
fi
got=$(md5_of "$PART")
if [ "$got" != "$MD5" ]; then
  die "checksum mismatch for $URL: MD5 $got, want $MD5; the file was deleted"
fi
mv "$PART" "$OUT"
trap - EXIT
echo "download_model: $OUT OK (MD5 $MD5)"
