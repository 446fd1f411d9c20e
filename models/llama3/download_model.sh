#!/usr/bin/env bash
# Downloads Llama-3.1-8B-Instruct, the checkpoint of the MLPerf Llama 3.1
# 8B benchmark, and checks what can be checked.
#
# The MLCommons copy is for its members: request access at
# http://llama3-1.mlcommons.org; the download then logs in through
# Cloudflare Access (cloudflared opens a browser) or uses MLC_R2_TOKEN. The
# source is https://llama3-1.mlcommons-storage.org/metadata/llama3-1-8b-instruct.uri,
# every file checked against the MD5 list published beside it (a mismatch
# deletes the file and fails). The reference README's other source is
# Hugging Face meta-llama/Llama-3.1-8B-Instruct at revision
# be673f326cab4cd22ccfef76109faf68e41aa5f1 (Meta's licence accepted,
# huggingface-cli logged in; not recommended for official submissions).
# Either way the checkpoint's config.json must describe the 8B
# architecture (32 layers, hidden 4096, 32 heads, 8 kv heads, MLP 14336,
# vocabulary 128256, rope theta 500000 with the llama3 rescaling).
#
# Usage: download_model.sh [-d DIR] [-s SOURCE] [-c]
#   -d  destination folder (default build/models/Llama-3.1-8B-Instruct)
#   -s  mlc (default; MLCommons R2, for submissions) or hf
#   -c  only check an existing DIR (MD5 list and config.json)
#
# The checkpoint is in Hugging Face format (safetensors). mlperf runs ONNX:
# export it once with the decoder's KV cache, e.g. with optimum (your own
# Python, not part of this project):
#   optimum-cli export onnx --model DIR --task text-generation-with-past --fp16 --device cuda build/models/llama3.1-8b-onnx
#   mlperf run llama3.1-8b --model build/models/llama3.1-8b-onnx/model.onnx --tokenizer DIR --backend cuda
# Environment (mirrors, tests): LLAMA3_MODEL_METADATA_URL replaces the metadata URL.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/models/Llama-3.1-8B-Instruct
SOURCE=mlc
CHECK=
REVISION=be673f326cab4cd22ccfef76109faf68e41aa5f1
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

URL=${LLAMA3_MODEL_METADATA_URL:-https://llama3-1.mlcommons-storage.org/metadata/llama3-1-8b-instruct.uri}
LIST_NAME=${URL##*/}
LIST_NAME=${LIST_NAME%.*}.md5

if [ -z "$CHECK" ]; then
  case $SOURCE in
    mlc)
      echo "download_model: MLCommons members only: request access at http://llama3-1.mlcommons.org first"
      bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL" ;;
    hf)
      command -v huggingface-cli >/dev/null || die "huggingface-cli not found (pip install huggingface_hub), or use -s mlc"
      huggingface-cli download meta-llama/Llama-3.1-8B-Instruct --revision "$REVISION" --local-dir "$DIR" ;;
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
value() { echo "$flat" | grep -o "\"$1\":[0-9]*" | head -n1 | cut -d: -f2; }
bad=
for kv in num_hidden_layers=32 hidden_size=4096 num_attention_heads=32 num_key_value_heads=8 intermediate_size=14336 vocab_size=128256 rope_theta=500000; do
  k=${kv%=*} want=${kv#*=}
  got=$(value "$k")
  if [ "$got" != "$want" ]; then
    echo "download_model: $CONFIG: $k is '${got}', Llama-3.1-8B has $want" >&2
    bad=1
  fi
done
if ! echo "$flat" | grep -q '"rope_type":"llama3"'; then
  echo "download_model: $CONFIG: no \"rope_type\": \"llama3\" rope_scaling (Llama 3.1 has it; Llama 3 does not)" >&2
  bad=1
fi
[ -z "$bad" ] || die "$CONFIG is not Llama-3.1-8B's"
TOK=$(find "$DIR" -name tokenizer.json -print -quit)
[ -n "$TOK" ] || echo "download_model: no tokenizer.json under $DIR; mlperf uses the one make setup installs" >&2
echo "download_model: $CONFIG describes Llama-3.1-8B (32 layers, hidden 4096, 8 kv heads, vocabulary 128256, llama3 rope)"
echo "download_model: export it to ONNX with its KV cache before running mlperf (see the head of this script)"
