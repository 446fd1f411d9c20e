#!/usr/bin/env bash
# Downloads the MLCommons SDXL 1.0 base checkpoint of the MLPerf
# text-to-image benchmark, and checks an ONNX export of it.
#
# The checkpoint (a diffusers StableDiffusionXLPipeline folder) comes from
# the reference's source, the MLCommons R2 bucket, through the R2
# downloader (scripts/mlc-r2-download.sh: every file checked against the
# MD5 list published beside the metadata; no other checksum is published):
#   fp32: https://inference.mlcommons-storage.org/metadata/stable-diffusion-xl-1-0-fp32-checkpoint.uri
#   fp16: https://inference.mlcommons-storage.org/metadata/stable-diffusion-xl-1-0-fp16-checkpoint.uri
#
# mlperf runs ONNX: export the pipeline once with Hugging Face optimum
# (your own Python, not part of this project), e.g.
#   optimum-cli export onnx --model DIR/checkpoint_pipe --task text-to-image build/models/sdxl-onnx
#   (add --dtype fp16 --device cuda for a half-precision export)
# which writes text_encoder/, text_encoder_2/, unet/, vae_decoder/ (each
# model.onnx), tokenizer/, tokenizer_2/ and scheduler/; the UNet's timestep
# must be 1-D (optimum before 1.22 exports it so). Then
#   mlperf run sdxl --model build/models/sdxl-onnx --data build/data/coco2014 ...
#
# Usage: download_model.sh [-d DIR] [-p fp32|fp16] [-c EXPORT]
#   -d  destination folder (default build/models/stable-diffusion-xl-1-0-<precision>)
#   -p  precision of the checkpoint (default fp32)
#   -c  only check an ONNX export folder EXPORT (the layout above)
# Environment (mirrors, tests): SDXL_METADATA_URL replaces the metadata URL.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PREC=fp32
DIR=
CHECK=
die() { echo "download_model: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:p:c:h" opt; do
  case $opt in
    d) DIR=$OPTARG ;;
    p) PREC=$OPTARG ;;
    c) CHECK=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

if [ -n "$CHECK" ]; then
  [ -d "$CHECK" ] || die "$CHECK is not a folder"
  bad=
  for f in text_encoder/model.onnx text_encoder_2/model.onnx unet/model.onnx vae_decoder/model.onnx \
           tokenizer/vocab.json tokenizer/merges.txt tokenizer_2/vocab.json tokenizer_2/merges.txt; do
    if [ -s "$CHECK/$f" ]; then echo "OK    $f"; else echo "FAIL  $f missing"; bad=1; fi
  done
  if [ -f "$CHECK/scheduler/scheduler_config.json" ]; then
    grep -q '"EulerDiscreteScheduler"' "$CHECK/scheduler/scheduler_config.json" \
      && echo "OK    scheduler/scheduler_config.json (EulerDiscreteScheduler)" \
      || { echo "FAIL  scheduler/scheduler_config.json is not EulerDiscreteScheduler (the reference's)"; bad=1; }
  else
    echo "NOTE  no scheduler/scheduler_config.json: the reference's EulerDiscrete settings are used"
  fi
  [ -z "$bad" ] || die "$CHECK is not a complete SDXL ONNX export"
  echo "download_model: $CHECK is an SDXL ONNX export"
  exit 0
fi

case $PREC in
  fp32|fp16) ;;
  *) die "-p $PREC: want fp32 or fp16" ;;
esac
DIR=${DIR:-build/models/stable-diffusion-xl-1-0-$PREC}
URL=${SDXL_METADATA_URL:-https://inference.mlcommons-storage.org/metadata/stable-diffusion-xl-1-0-$PREC-checkpoint.uri}
bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL"
echo "download_model: checkpoint in $DIR; export it to ONNX with optimum before running mlperf (see the head of this script)"
