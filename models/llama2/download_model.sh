#!/usr/bin/env bash
# Downloads Llama-2-70b-chat-hf, the checkpoint of the MLPerf Llama 2 70B
# benchmark, and checks what can be checked.
#
# The weights are hosted by MLCommons for its members only: first accept
# the confidentiality notice at https://llama2.mlcommons.org with your
# organisation's e-mail; the download then logs in through Cloudflare
# Access (cloudflared opens a browser) or uses MLC_R2_TOKEN. The source is
# the reference's: https://llama2.mlcommons-storage.org/metadata/llama-2-70b-chat-hf.uri,
# every file checked against the MD5 list published beside it (a mismatch
# deletes the file and fails). No other checksum is published. The
# checkpoint's config.json must then describe the 70B architecture
# (80 layers, hidden 8192, 64 heads, 8 kv heads, vocabulary 32000).
#
# Usage: download_model.sh [-d DIR] [-s SOURCE] [-c]
#   -d  destination folder (default build/models/Llama-2-70b-chat-hf)
#   -s  mlc (default; MLCommons R2, for submissions) or hf (Hugging Face
#       meta-llama/Llama-2-70b-chat-hf: needs Meta's licence accepted and
#       huggingface-cli logged in; not recommended for official submissions)
#   -c  only check an existing DIR (MD5 list and config.json)
#
# The checkpoint is in Hugging Face format (safetensors). mlperf runs ONNX:
# export it once with the decoder's KV cache, e.g. with optimum (your own
# Python, not part of this project):
#   optimum-cli export onnx --model DIR --task text-generation-with-past --fp16 --device cuda build/models/llama2-70b-onnx
#   mlperf run llama2 --model build/models/llama2-70b-onnx/model.onnx --backend cuda --data FILE.parquet
# Environment (mirrors, tests): LLAMA2_METADATA_URL replaces the metadata URL.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/models/Llama-2-70b-chat-hf
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

URL=${LLAMA2_METADATA_URL:-https://llama2.mlcommons-storage.org/metadata/llama-2-70b-chat-hf.uri}
LIST_NAME=${URL##*/}
LIST_NAME=${LIST_NAME%.*}.md5

if [ -z "$CHECK" ]; then
  case $SOURCE in
    mlc)
      echo "download_model: MLCommons members only: accept the notice at https://llama2.mlcommons.org first"
      bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL" ;;
    hf)
      command -v huggingface-cli >/dev/null || die "huggingface-cli not found (pip install huggingface_hub), or use -s mlc"
      huggingface-cli download meta-llama/Llama-2-70b-chat-hf --local-dir "$DIR" ;;
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
for kv in num_hidden_layers=80 hidden_size=8192 num_attention_heads=64 num_key_value_heads=8 intermediate_size=28672 vocab_size=32000; do
  k=${kv%=*} want=${kv#*=}
  got=$(value "$k")
  if [ "$got" != "$want" ]; then
    echo "download_model: $CONFIG: $k is '${got}', Llama-2-70b has $want" >&2
    bad=1
  fi
done
[ -z "$bad" ] || die "$CONFIG is not Llama-2-70b's"
echo "download_model: $CONFIG describes Llama-2-70b (80 layers, hidden 8192, 8 kv heads, vocabulary 32000)"
echo "download_model: export it to ONNX with its KV cache before running mlperf (see the head of this script)"
