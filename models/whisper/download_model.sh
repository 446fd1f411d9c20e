#!/usr/bin/env bash
# Downloads Whisper large-v3, the checkpoint of the MLPerf Whisper
# benchmark, and checks what can be checked.
#
# The reference's source (speech2text/README.md) is MLCommons' R2 bucket,
# https://inference.mlcommons-storage.org/metadata/whisper-model.uri, every
# file checked against the MD5 list published beside it (a mismatch
# deletes the file and fails; MLCommons members log in through Cloudflare
# Access or use MLC_R2_TOKEN). The alternative is Hugging Face's
# openai/whisper-large-v3 at the reference's revision
# 06f233fe06e710322aca913c1bc4249a0d71fce1 (not recommended for official
# submissions). The checkpoint's config.json must describe large-v3
# (32 + 32 layers, d_model 1280, 20 heads, 128 Mel bins, vocabulary 51866).
#
# Usage: download_model.sh [-d DIR] [-s SOURCE] [-c]
#   -d  destination folder (default build/models/whisper-large-v3)
#   -s  mlc (default) or hf
#   -c  only check an existing DIR (MD5 list and config.json)
#
# The checkpoint is in Hugging Face format. mlperf runs ONNX in optimum's
# layout (encoder_model.onnx, decoder_model.onnx,
# decoder_with_past_model.onnx); export it once, e.g. with optimum (your own
# Python, not part of this project), and give mlperf the folder:
#   optimum-cli export onnx --model DIR --task automatic-speech-recognition-with-past build/models/whisper-large-v3-onnx
#   mlperf run whisper --model build/models/whisper-large-v3-onnx --data build/data/librispeech --backend cuda
# The export folder's vocab.json (or openai/whisper's multilingual.tiktoken
# copied there) is the tokenizer.
# Environment (mirrors, tests): WHISPER_METADATA_URL replaces the metadata URL.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/models/whisper-large-v3
SOURCE=mlc
CHECK=
die() { echo "download_model: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

while getopts "d:s:ch" opt; do
  case $opt in
    d) DIR=$OPTARG ;;
    s) SOURCE=$OPTARG ;;
    c) CHECK=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

URL=${WHISPER_METADATA_URL:-https://inference.mlcommons-storage.org/metadata/whisper-model.uri}
LIST_NAME=${URL##*/}
LIST_NAME=${LIST_NAME%.*}.md5

if [ -z "$CHECK" ]; then
  case $SOURCE in
    mlc) bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL" ;;
    hf)
      command -v huggingface-cli >/dev/null || die "huggingface-cli not found (pip install huggingface_hub), or use -s mlc"
      huggingface-cli download openai/whisper-large-v3 --revision 06f233fe06e710322aca913c1bc4249a0d71fce1 --local-dir "$DIR" ;;
    *) die "unknown source '$SOURCE'; want mlc or hf" ;;
  esac
fi

[ -d "$DIR" ] || die "$DIR not found"
if [ -f "$DIR/$LIST_NAME" ]; then
  (cd "$DIR" && md5sum -c --quiet "$LIST_NAME") || die "files in $DIR do not match $LIST_NAME"
  echo "download_model: files in $DIR match $LIST_NAME"
elif [ -n "$CHECK" ]; then
  echo "download_model: no $LIST_NAME in $DIR: file checksums not checked"
fi

CONFIG=$(find "$DIR" -name config.json -print -quit)
[ -n "$CONFIG" ] || die "no config.json under $DIR: not a Hugging Face checkpoint"
# value KEY: the integer of "KEY": N in config.json
value() { tr -d ' \n\r\t' <"$CONFIG" | grep -o "\"$1\":[0-9]*" | head -n1 | cut -d: -f2; }
bad=
for kv in encoder_layers=32 decoder_layers=32 d_model=1280 encoder_attention_heads=20 decoder_attention_heads=20 num_mel_bins=128 vocab_size=51866; do
  k=${kv%=*} want=${kv#*=}
  got=$(value "$k")
  if [ "$got" != "$want" ]; then
    echo "download_model: $CONFIG: $k is '${got}', whisper-large-v3 has $want" >&2
    bad=1
  fi
done
[ -z "$bad" ] || die "$CONFIG is not whisper-large-v3's"
echo "download_model: $CONFIG describes whisper-large-v3 (32 + 32 layers, d_model 1280, 128 Mel bins, vocabulary 51866)"
echo "download_model: export it to ONNX with its decoder cache before running mlperf (see the head of this script)"
