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

command -v md5sum >/dev/null || die "md5sum not found; install coreutils"
md5_of() { md5sum "$1" | cut -d' ' -f1; }

if [ -f "$OUT" ]; then
  if [ -z "$MD5" ] || [ "$(md5_of "$OUT")" = "$MD5" ]; then
    echo "download_model: $OUT already present${MD5:+, MD5 $MD5 OK}"
    exit 0
  fi
  die "$OUT exists but its MD5 is not $MD5; delete it and run again"
fi

mkdir -p "$MODEL_DIR"
PART=$OUT.part.$$
trap 'rm -f "$PART"' EXIT
echo "download_model: $URL -> $OUT"
if command -v curl >/dev/null; then
  curl -fL --retry 3 -o "$PART" "$URL?download=1" || die "download of $URL failed"
elif command -v wget >/dev/null; then
  wget -q -O "$PART" "$URL?download=1" || die "download of $URL failed"
else
  die "neither curl nor wget found; install one (apt-get install curl)"
fi
got=$(md5_of "$PART")
if [ -z "$MD5" ]; then
  echo "download_model: no MD5 is published for $FILE; this download's MD5 is $got"
elif [ "$got" != "$MD5" ]; then
  die "checksum mismatch for $URL: MD5 $got, want $MD5; the file was deleted"
fi
mv "$PART" "$OUT"
trap - EXIT
echo "download_model: $OUT OK${MD5:+ (MD5 $MD5)}"
