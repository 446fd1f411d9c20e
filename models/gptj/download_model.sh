#!/usr/bin/env bash
# Downloads the MLCommons fine-tuned GPT-J 6B checkpoint (Hugging Face
# PyTorch format, about 22.7 GB unpacked) and checks its MD5. A download
# that does not match is deleted and the script fails; nothing partial is
# ever left under the final name.
#
# Usage: download_model.sh [-d DIR] [-x]
#   -d  destination folder (default: build/model, or $MODEL_DIR)
#   -x  also unzip checkpoint.zip (the model is in DIR/checkpoint-final)
# Source: the legacy MLCommons link of language/gpt-j
#   https://cloud.mlcommons.org/index.php/s/QAZ2oM94MkFtbQx/download (checkpoint.zip)
# with the MD5 mlcommons/mlperf-automations records for it
# (e677e28aaf03da84584bb3073b7ee315; MLC itself does not check it). The
# current reference fetches the same checkpoint with the R2 downloader:
#   bash <(curl -s https://raw.githubusercontent.com/mlcommons/r2-downloader/refs/heads/main/mlc-r2-downloader.sh) \
#        -d model https://inference.mlcommons-storage.org/metadata/gpt-j-model-checkpoint.uri
# mlperf runs ONNX: export the checkpoint once with its KV cache, e.g.
#   optimum-cli export onnx --model DIR/checkpoint-final --task text-generation-with-past gptj-onnx/
# then: mlperf run gptj --model gptj-onnx/model.onnx --data build/data
# Environment (mirrors, tests): GPTJ_URL replaces the URL, GPTJ_MD5 the MD5.
set -euo pipefail

MODEL_DIR=${MODEL_DIR:-build/model}
EXTRACT=
URL=${GPTJ_URL:-https://cloud.mlcommons.org/index.php/s/QAZ2oM94MkFtbQx/download}
MD5=${GPTJ_MD5:-e677e28aaf03da84584bb3073b7ee315}

die() { echo "download_model: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

while getopts "d:xh" opt; do
  case $opt in
    d) MODEL_DIR=$OPTARG ;;
    x) EXTRACT=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

command -v md5sum >/dev/null || die "md5sum not found; install coreutils"
OUT=$MODEL_DIR/checkpoint.zip
if [ -f "$OUT" ]; then
  [ "$(md5sum "$OUT" | cut -d' ' -f1)" = "$MD5" ] || die "$OUT exists but its MD5 is not $MD5; delete it and run again"
  echo "download_model: $OUT already present, MD5 $MD5 OK"
else
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
  got=$(md5sum "$PART" | cut -d' ' -f1)
  [ "$got" = "$MD5" ] || die "checksum mismatch for $URL: MD5 $got, want $MD5; the file was deleted"
  mv "$PART" "$OUT"
  trap - EXIT
  echo "download_model: $OUT OK (MD5 $MD5)"
fi
if [ -n "$EXTRACT" ]; then
  command -v unzip >/dev/null || die "unzip not found (apt-get install unzip)"
  unzip -q -o "$OUT" -d "$MODEL_DIR" || die "unzip of $OUT failed"
  echo "download_model: unpacked into $MODEL_DIR (the model is in checkpoint-final)"
fi
