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
