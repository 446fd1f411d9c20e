#!/usr/bin/env bash
# Downloads Mixtral-8x7B-Instruct-v0.1, the checkpoint of the MLPerf
# Mixtral-8x7B benchmark, and checks what can be checked.
#
# The default source is the MLCommons copy through the R2 downloader
# (mlcommons/inference language/mixtral-8x7b/README.md, "Get Checkpoint"):
# https://inference.mlcommons-storage.org/metadata/mixtral-8x7b-model-checkpoint.uri,
# every file checked against the MD5 list published beside it (a mismatch
# deletes the file and fails). The other source is Hugging Face
# mistralai/Mixtral-8x7B-Instruct-v0.1 at revision
# a60832cb6c88d5cb6e507680d0e9996fbad77050, the commit the reference
# README names (huggingface-cli logged in). Either way the checkpoint's
# config.json must describe Mixtral-8x7B (32 layers, hidden 4096, 32 heads,
# 8 kv heads, 8 experts of width 14336 with 2 per token, vocabulary 32000,
# rope theta 1e6).
#
# Usage: download_model.sh [-d DIR] [-s SOURCE] [-c]
#   -d  destination folder (default build/models/Mixtral-8x7B-Instruct-v0.1)
#   -s  mlc (default) or hf
#   -c  only check an existing DIR (MD5 list and config.json)
#
# The checkpoint is in Hugging Face format (safetensors, 93 GB of
# bfloat16). mlperf runs ONNX: export it once with the decoder's KV cache,
# e.g. with optimum (your own Python, not part of this project):
#   optimum-cli export onnx --model DIR --task text-generation-with-past --fp16 --device cuda build/models/mixtral-onnx
#   mlperf run mixtral --model build/models/mixtral-onnx/model.onnx --data build/data/mixtral --backend cuda
# or serve it with vLLM and run mlperf over --backend openai.
# Environment (mirrors, tests): MIXTRAL_MODEL_METADATA_URL replaces the metadata URL.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/models/Mixtral-8x7B-Instruct-v0.1
SOURCE=mlc
CHECK=
REVISION=a60832cb6c88d5cb6e507680d0e9996fbad77050
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

URL=${MIXTRAL_MODEL_METADATA_URL:-https://inference.mlcommons-storage.org/metadata/mixtral-8x7b-model-checkpoint.uri}
LIST_NAME=${URL##*/}
LIST_NAME=${LIST_NAME%.*}.md5

if [ -z "$CHECK" ]; then
  case $SOURCE in
    mlc) bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL" ;;
    hf)
      command -v huggingface-cli >/dev/null || die "huggingface-cli not found (pip install huggingface_hub), or use -s mlc"
      huggingface-cli download mistralai/Mixtral-8x7B-Instruct-v0.1 --revision "$REVISION" --local-dir "$DIR" ;;
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
flat=$(tr -d ' \n\r\t' <"$CONFIG")
# value KEY: the number of "KEY": N in config.json (its integer part)
value() { echo "$flat" | grep -o "\"$1\":[0-9]*" | head -n1 | cut -d: -f2 || true; }
bad=
for kv in num_hidden_layers=32 hidden_size=4096 num_attention_heads=32 num_key_value_heads=8 intermediate_size=14336 \
  vocab_size=32000 num_local_experts=8 num_experts_per_tok=2 rope_theta=1000000; do
  k=${kv%=*} want=${kv#*=}
  got=$(value "$k")
  if [ "$got" != "$want" ]; then
    echo "download_model: $CONFIG: $k is '${got}', Mixtral-8x7B has $want" >&2
    bad=1
  fi
done
[ -z "$bad" ] || die "$CONFIG is not Mixtral-8x7B's"
echo "download_model: $CONFIG describes Mixtral-8x7B (32 layers, hidden 4096, 8 kv heads, 8 experts top 2, vocabulary 32000)"
echo "download_model: export it to ONNX with its KV cache before running mlperf (see the head of this script)"
